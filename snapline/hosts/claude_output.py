"""What a Claude Code hook says: one event's outcome, as the JSON Claude Code reads.

Claude Code reads a hook's stdout as JSON when it exits 0, and shows its stderr to
nobody then (only in verbose mode or the transcript): a warning on stderr alone is lost.
So every outcome with something to say prints one JSON object on stdout, with the
fields Claude Code documents for the event:

- a decision (``PreToolUse`` only): ``hookSpecificOutput`` with ``hookEventName``,
  ``permissionDecision`` (``deny`` or ``ask``) and ``permissionDecisionReason``;
- a warning (any event): the common field ``systemMessage``, shown to the person, and
  the same line on stderr, for logs and terminals;
- after the tool (``PostToolUse`` only): ``hookSpecificOutput`` with ``hookEventName``
  and ``additionalContext``, given to the model: a change it made that snapline did
  not record, and what to do about it (:func:`unrecorded`).

The exit code is always 0: a hook never breaks a tool.
"""

from __future__ import annotations

import enum
import json
import sys
from collections.abc import Mapping
from typing import Any, NamedTuple

__all__ = ["HookOutcome", "Verdict", "failure_line", "say", "unrecorded", "warn"]

_PREFIX = "snapline: warning: "
_FILE_TOOLS = ("Edit", "Write", "MultiEdit", "NotebookEdit")


class Verdict(enum.Enum):
    """What the hook tells Claude Code."""

    ALLOW = "allow"
    """Nothing to say: the tool runs (or ran)."""
    WARN = "warn"
    """A warning (``systemMessage``, and stderr): snapline could not do its part; the tool runs."""
    ASK = "ask"
    """``permissionDecision: "ask"``: the person decides, reading the reason."""
    DENY = "deny"
    """``permissionDecision: "deny"``: the tool is refused, the reason shown to the model."""


class HookOutcome(NamedTuple):
    """The result of one hook event.

    Attributes:
        verdict: Allow, warn, ask or deny.
        message: The reason (ask, deny) or the warning (empty when there is nothing to say).
        snapshot: The snapshot recorded, if any (the last, when there are two).
        milestone: The milestone closed, if any.
        context: Said to the model after its tool ran (``PostToolUse``'s
            ``additionalContext``): empty unless its change went unrecorded.
        noted: A file tool's change went unrecorded and is noted, to be recorded at
            the next tool call (:mod:`snapline.hosts.claude_unrecorded`).
    """

    verdict: Verdict = Verdict.ALLOW
    message: str = ""
    snapshot: int | None = None
    milestone: int | None = None
    context: str = ""
    noted: bool = False

    @property
    def exit_code(self) -> int:
        """Always 0: what the hook says travels as JSON on stdout, and it never breaks a tool."""
        return 0

    @property
    def stdout(self) -> str:
        """The one JSON object Claude Code reads (empty when there is nothing to say)."""
        said: dict[str, Any] = {}
        if self.verdict is Verdict.WARN:
            said["systemMessage"] = self.stderr
        if self.verdict in (Verdict.ASK, Verdict.DENY):
            said["hookSpecificOutput"] = {
                "hookEventName": "PreToolUse",
                "permissionDecision": self.verdict.value,
                "permissionDecisionReason": self.message,
            }
        elif self.context:
            said["hookSpecificOutput"] = {
                "hookEventName": "PostToolUse",
                "additionalContext": self.context,
            }
        return json.dumps(said, ensure_ascii=False) if said else ""

    @property
    def stderr(self) -> str:
        """The warning as one line (empty unless the verdict is a warning)."""
        return " ".join(self.message.split()) if self.verdict is Verdict.WARN else ""


def warn(message: str) -> HookOutcome:
    """A warning outcome: the tool runs, the person reads the line."""
    return HookOutcome(Verdict.WARN, f"{_PREFIX}{message}")


def failure_line(error: Exception) -> str:
    """What went wrong, as a warning names it: a snapline or OS error's own line, else a bug."""
    from snapline.errors import SnaplineError

    # A busy store (StoreBusyError) says so itself, with what held it and for how long.
    if isinstance(error, (SnaplineError, OSError)):
        return str(error)
    return f"internal error {type(error).__name__}: {error}"


def say(outcome: HookOutcome) -> int:
    """Write ``outcome`` as the hook process says it: JSON on stdout, a warning on stderr.

    Returns:
        The exit code, always 0.
    """
    # Claude Code reads stdout (JSON) at exit 0 and shows stderr to nobody: the line on
    # stderr is for logs and terminals.
    if outcome.stdout:
        sys.stdout.write(outcome.stdout + "\n")
    if outcome.stderr:
        sys.stderr.write(outcome.stderr + "\n")
    return outcome.exit_code


def unrecorded(outcome: HookOutcome, event: Mapping[str, Any]) -> HookOutcome:
    """A ``PostToolUse`` warning with what the model must know: its change is not recorded.

    Unrecorded, the change looks made outside snapline: the next ``PreToolUse`` denies
    an edit of that file (and asks the person before a command), and the model, told
    such a change is not its own, would leave it to the person to file as theirs.

    Args:
        outcome: The warning (any other outcome is returned as it is).
        event: The ``PostToolUse`` event of a file tool or Bash.

    Returns:
        The outcome with its ``context`` for the model.
    """
    if outcome.verdict is not Verdict.WARN:
        return outcome
    tool = event.get("tool_name")
    tool = tool if isinstance(tool, str) else "tool"
    reason = outcome.stderr.removeprefix(_PREFIX)
    tool_input = event.get("tool_input")
    target = None
    if tool in _FILE_TOOLS and isinstance(tool_input, Mapping):
        target = tool_input.get("file_path") or tool_input.get("notebook_path")
    session = event.get("session_id")
    command = f"snapline record {{paths}} --tool {tool}"
    if isinstance(session, str) and session:
        command += f" --session {_quoted(session)}"
    if isinstance(target, str) and target and outcome.noted:
        # Noted: the next hook records it as this tool's (claude_unrecorded.settle).
        done = (
            f"snapline did not record your {tool} of {target} yet: {reason}. It is your "
            "own change: do not undo it. snapline noted it and records it as yours at "
            "your next tool call, before anything else; only if snapline then tells you "
            "it still could not, record it as yours yourself (a Bash call): "
            f"`{command.format(paths=_quoted(target))}`"
        )
    elif isinstance(target, str) and target:
        done = (
            f"snapline did not record your {tool} of {target}: {reason}. Your change is on "
            "disk but not in snapline's history, so snapline takes it for a change made "
            "outside it and will refuse your next edit of that file. It is your own "
            "change: do not undo it. Record it as yours now (a Bash call): "
            f"`{command.format(paths=_quoted(target))}`"
        )
    else:
        done = (
            f"snapline did not record what your {tool} call changed: {reason}. Those "
            "changes are on disk but not in snapline's history, so snapline takes them "
            "for changes made outside it and will refuse your next edit of those files. "
            "If they are your own, do not undo them: record them as yours now (a Bash "
            f"call): `{command.format(paths='PATH...')}`, naming the files you changed "
            "(`snapline status` lists what is unrecorded)"
        )
    done += "; if that fails too, tell the user what it said."
    return outcome._replace(context=done)


def _quoted(text: str) -> str:
    import shlex  # only when something went wrong: the hook's start-up stays lean

    return shlex.quote(text)
