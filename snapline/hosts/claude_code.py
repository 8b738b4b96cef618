"""Claude Code hooks: one hook event in, one outcome out (``snapline hook claude-code``).

Claude Code runs a hook command per event with the event as JSON on stdin: the common
fields ``session_id``, ``transcript_path``, ``cwd``, ``permission_mode`` and
``hook_event_name``, and for tool events ``tool_name``, ``tool_input``, ``tool_use_id``
and (after the tool) ``tool_response``. A ``PreToolUse`` hook decides by printing
``{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny" |
"ask", "permissionDecisionReason": ...}}`` on stdout and exiting 0: ``deny`` refuses the
tool and shows the reason to the model, ``ask`` shows it to the person, who decides.

What snapline does with each event:

- ``PreToolUse`` of a file tool (Edit, Write, MultiEdit, NotebookEdit): ``deny`` when the
  target file was changed outside snapline, or lies inside ``.git/`` or ``.snapline/``
  (the writers' rule); of Bash: ``ask`` when anything in the workspace was changed
  outside snapline (:mod:`snapline.hosts.claude_bash`). Any other tool (Read, Grep, Glob,
  LS, ...) is never refused.
- ``PostToolUse`` of a file tool: record that file as one snapshot; of Bash: record what
  the command changed as one snapshot, an outside change it did not touch first as its
  own. Each snapshot keeps the exact command, ``session_id``, ``tool_use_id`` and
  ``transcript_path`` in its metadata.
- ``UserPromptSubmit``: number the prompt in its session; the snapshots recorded while
  answering it carry it (``metadata["prompt"]``), which ``before-prompt:N@SESSION``
  resolves from (:mod:`snapline.hosts.claude_prompt`).

A hook must never hang or break the agent: no store means nothing to do, a busy store,
bad input (deeply nested JSON included) or any failure is a warning with exit 0, which
Claude Code shows the person (``systemMessage``; :mod:`snapline.hosts.claude_output`);
after the tool it tells the model too that its change went unrecorded. A file tool's
change left so is noted and recorded as that tool's at the next tool call
(:mod:`snapline.hosts.claude_unrecorded`): the model's own change is not someone else's.
This module imports the library only inside the calls that use it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from snapline.hosts.claude_output import HookOutcome, Verdict, failure_line, unrecorded, warn

if TYPE_CHECKING:
    from snapline.snapshots.check.unfetched import Pulled
    from snapline.snapshots.snapshot import Problem
    from snapline.workspace import Workspace

__all__ = [
    "BUSY_TIMEOUT",
    "DRIFT_KINDS",
    "FILE_TOOLS",
    "MILESTONE_ENV",
    "HookOutcome",
    "Verdict",
    "cwd_of",
    "event_metadata",
    "handle_event",
    "handle_input",
    "named",
    "open_workspace",
    "pulled_message",
    "session_of",
    "unmerged_message",
    "warn",
]

BUSY_TIMEOUT = 2.0
"""Seconds a hook waits for another process holding the store before giving up."""

FILE_TOOLS = ("Edit", "Write", "MultiEdit", "NotebookEdit")
"""Claude Code tools that change one file, named in ``tool_input``."""

MILESTONE_ENV = "SNAPLINE_MILESTONE_PER_PROMPT"
"""Set to ``1`` to close a milestone per prompt (as ``--milestone-per-prompt`` does)."""

DRIFT_KINDS = ("modified", "deleted", "untracked")
"""Sync problems that are outside changes (an unreadable file is not one)."""

_BASH = "Bash"
_EVENT_FIELDS = ("session_id", "tool_use_id", "transcript_path")
_MAX_NAMED = 3


def handle_input(
    text: str,
    *,
    timeout: float = BUSY_TIMEOUT,
    milestone_per_prompt: bool | None = None,
    prompt_digest: bool | None = None,
) -> HookOutcome:
    """Handle one hook event given as the JSON text Claude Code writes on stdin.

    Args:
        text: The event JSON.
        timeout: As :func:`handle_event`'s.
        milestone_per_prompt: As :func:`handle_event`'s.
        prompt_digest: As :func:`handle_event`'s.

    Returns:
        The outcome; malformed input is a warning, never a refusal.
    """
    try:
        event = json.loads(text)
    except ValueError as error:
        return warn(f"the hook input is not JSON ({error}); nothing recorded")
    except RecursionError:
        # json's decoder recurses once per nesting level: `[` * 200,000 overflows it.
        return warn("the hook input is JSON nested too deeply to read; nothing recorded")
    if not isinstance(event, dict):
        return warn("the hook input is not a JSON object; nothing recorded")
    return handle_event(
        event,
        timeout=timeout,
        milestone_per_prompt=milestone_per_prompt,
        prompt_digest=prompt_digest,
    )


def handle_event(
    event: Mapping[str, Any],
    *,
    timeout: float = BUSY_TIMEOUT,
    milestone_per_prompt: bool | None = None,
    prompt_digest: bool | None = None,
) -> HookOutcome:
    """Handle one Claude Code hook event.

    Args:
        event: The decoded event (``hook_event_name``, ``cwd``, ``tool_name``, ...).
        timeout: Seconds to wait for another process holding the store.
        milestone_per_prompt: Close a milestone per prompt; ``None`` reads
            ``SNAPLINE_MILESTONE_PER_PROMPT`` from the environment.
        prompt_digest: Keep only a prompt's digest, not its text; ``None`` reads
            ``SNAPLINE_PROMPTS`` from the environment.

    Returns:
        The outcome. Never raises: a failure is a :attr:`Verdict.WARN` outcome.
    """
    if milestone_per_prompt is None:
        milestone_per_prompt = os.environ.get(MILESTONE_ENV, "") not in ("", "0")
    name = event.get("hook_event_name")
    tool = event.get("tool_name")
    if name in ("PreToolUse", "PostToolUse") and tool in (*FILE_TOOLS, _BASH):
        outcome = _tool(event, str(tool), pre=name == "PreToolUse", timeout=timeout)
        # After the tool, a warning means its change went unrecorded: the model is told.
        return outcome if name == "PreToolUse" else unrecorded(outcome, event)
    try:
        if name == "UserPromptSubmit":
            from snapline.hosts.claude_prompt import prompt

            return prompt(
                event,
                milestone_per_prompt=milestone_per_prompt,
                timeout=timeout,
                digest_only=prompt_digest,
            )
        return HookOutcome()
    except Exception as error:
        return _failure(error, "this prompt was not numbered")


def _tool(event: Mapping[str, Any], tool: str, *, pre: bool, timeout: float) -> HookOutcome:
    try:
        if tool == _BASH:
            from snapline.hosts.claude_bash import bash

            return bash(event, pre=pre, timeout=timeout)
        return _file_tool(event, tool, pre=pre, timeout=timeout)
    except Exception as error:
        # Before the tool nothing is recorded: the change is not checked, the tool runs.
        return _failure(
            error,
            "not checked; the tool was not blocked" if pre else "this change was not recorded",
        )


def _file_tool(event: Mapping[str, Any], tool: str, *, pre: bool, timeout: float) -> HookOutcome:
    tool_input = event.get("tool_input")
    if not isinstance(tool_input, Mapping):
        return warn(f"{tool} event without tool_input; nothing recorded")
    target = tool_input.get("file_path") or tool_input.get("notebook_path")
    if not isinstance(target, str) or not target:
        return warn(f"{tool} event without a file path; nothing recorded")
    from snapline.hosts import claude_unrecorded as unrecorded_notes
    from snapline.opening import NotInitializedError, find_root
    from snapline.paths import ProtectedPathError, UnsafePathError, writable_relpath
    from snapline.scanning import IgnoreRules
    from snapline.snapshots.info_fields import PlainInfo
    from snapline.workspace.rows import record_rows, sync_state

    cwd = cwd_of(event)
    path = os.path.normpath(os.path.join(cwd, target))
    try:
        # Found before the store is opened: a change not recorded is noted at its root.
        root = find_root(Path(os.path.abspath(cwd)))
    except NotInitializedError:
        return HookOutcome()
    try:
        rel = writable_relpath(root, path)
        if IgnoreRules(root).is_ignored(rel):
            return HookOutcome()  # ignored: never recorded, so never guarded
    except ProtectedPathError as error:
        # The writers' rule (DESIGN rule 10) for the agent's own file tools: a git
        # hook or config planted by the agent would run outside the history.
        return HookOutcome(Verdict.DENY, f"snapline: {error}") if pre else HookOutcome()
    except UnsafePathError:
        return HookOutcome()  # outside the workspace, or through a symlinked directory
    session = session_of(event)
    if pre:
        with open_workspace(cwd, timeout, root) as ws:
            if ws is None:
                return HookOutcome()
            # The changes a tool left unrecorded first, as that tool's (claude_unrecorded).
            settled = unrecorded_notes.settle(ws)
            try:
                problems, _, came = sync_state(ws, [path])
            except UnsafePathError:
                return HookOutcome()  # a symlinked directory on the way: not tracked
        note = settled.kept.get(rel)
        if note is not None and any(p.actual == note.digest for p in problems):
            return HookOutcome(
                Verdict.DENY, unrecorded_notes.pending_reason(note, session, settled.failure, root)
            )
        return _refuse_drift(problems, came, rel in settled.touched)
    info = PlainInfo.checked(
        tool, f"{tool} {os.path.relpath(path, root)}", session, event_metadata(event, root)
    )
    try:
        with open_workspace(cwd, timeout, root) as ws:
            if ws is None:
                return HookOutcome()
            # This change is recorded with any earlier one of the same file.
            settled = unrecorded_notes.settle(ws, skip=rel)
            number = record_rows(ws, [path], info).number
    except UnsafePathError:
        return HookOutcome()  # a symlinked directory on the way: not tracked
    except Exception as error:
        noted = unrecorded_notes.remember(root, rel, info, failure_line(error))
        return _failure(error, "this change was not recorded")._replace(noted=noted)
    unrecorded_notes.drop(root, rel)
    return HookOutcome(
        snapshot=number, context=unrecorded_notes.still_pending(settled, session, root)
    )


def _refuse_drift(
    problems: Sequence[Problem], came: Pulled | None, touched: bool = False
) -> HookOutcome:
    unmerged = [p for p in problems if p.kind == "unmerged"]
    if unmerged:
        return HookOutcome(Verdict.DENY, unmerged_message(unmerged))
    drifted = [p for p in problems if p.kind in DRIFT_KINDS]
    if not drifted:
        return HookOutcome()
    if came is not None:
        return HookOutcome(Verdict.DENY, pulled_message(drifted, came))
    # Said to the model: the change is a person's (or another tool's), so the way out is
    # the person's too; a model told to resync would file their work as its own. But a
    # Bash call's changes the hook could not record are the model's, and it was told to
    # record them itself (claude_output.unrecorded): it is not told the opposite here.
    if touched:
        whose = (
            "It changed again after your own change of it that snapline could not "
            "record, so it holds someone else's change too, which is not yours: snapline "
            "did not record it as yours; do not record or undo it yourself"
        )
    else:
        whose = (
            "Unless snapline told you it could not record what one of your Bash calls "
            "changed there (then record it as it told you), that change is not yours: "
            "do not record or undo it yourself"
        )
    return HookOutcome(
        Verdict.DENY,
        f"snapline: refused: changed outside snapline since the last snapshot: "
        f"{named(drifted)}. {whose}; ask the user to keep it (`snapline resync`) or "
        "drop it (`snapline rollback`), then retry",
    )


def unmerged_message(problems: Sequence[Problem]) -> str:
    """Said to the model when files are another line's work that git merged (history on refs).

    Not an outside change: resync would file that agent's recorded work as a person's.
    """
    return (
        f"snapline: {named(problems)}: recorded on another line and merged by git, "
        "not joined yet. Do not record or undo it yourself; ask the user to run "
        "`snapline merge`, then retry"
    )


def pulled_message(problems: Sequence[Problem], came: Pulled) -> str:
    """Said to the model when files came with commits git fetched before their history.

    A colleague's recorded work whose snapshots are still on the remote: resync (which
    refuses it) would file it as an outside change, a record as the agent's own.
    """
    return (
        f"snapline: {named([p for p in problems if p.path in came.paths])}: came with "
        f"commits git fetched {came.whence} before their history (recorded elsewhere, "
        "not yours). Do not record or undo it yourself; ask the user to run "
        f"{came.fetch}, then retry"
    )


def named(problems: Sequence[Problem]) -> str:
    """``a.txt (modified), b.txt (untracked) and 2 more``: drifted files for a message."""
    shown = ", ".join(f"{p.path} ({p.kind})" for p in problems[:_MAX_NAMED])
    more = f" and {len(problems) - _MAX_NAMED} more" if len(problems) > _MAX_NAMED else ""
    return shown + more


def event_metadata(
    event: Mapping[str, Any], root: Path | None = None, **extra: Any
) -> dict[str, Any]:
    """What a snapshot made from ``event`` keeps of it: the host, the ids, the prompt.

    Args:
        event: The hook event.
        root: The workspace root, to read the session's current prompt from.
        **extra: More keys (the command...).

    Returns:
        ``{"via": "claude-code", "session_id", "tool_use_id", "transcript_path",
        "prompt", ...}`` with the fields the event carried as non-empty text, and the
        session's current prompt (:func:`snapline.hosts.claude_prompt.stamp`) when known.
    """
    metadata: dict[str, Any] = {"via": "claude-code"}
    for key in _EVENT_FIELDS:
        value = event.get(key)
        if isinstance(value, str) and value:
            metadata[key] = value
    if root is not None:
        from snapline.hosts.claude_prompt import stamp

        current = stamp(root, session_of(event))
        if current is not None:
            metadata["prompt"] = current
    metadata.update(extra)
    return metadata


class open_workspace:
    """The workspace containing ``cwd`` (``None`` when there is none), closed on exit.

    ``root``: the workspace's root, when the caller found it already.
    """

    def __init__(self, cwd: str, timeout: float, root: Path | None = None) -> None:
        self._cwd = cwd
        self._timeout = timeout
        self._root = root
        self._ws: Workspace | None = None

    def __enter__(self) -> Workspace | None:
        from snapline.opening import NotInitializedError
        from snapline.workspace import Workspace

        try:
            if self._root is not None:
                self._ws = Workspace.open(self._root, timeout=self._timeout)
            else:
                self._ws = Workspace.find(self._cwd, timeout=self._timeout)
        except NotInitializedError:
            return None
        return self._ws

    def __exit__(self, *exc: object) -> None:
        if self._ws is not None:
            self._ws.close()


def cwd_of(event: Mapping[str, Any]) -> str:
    """The event's ``cwd``, or the process's when the event has none."""
    cwd = event.get("cwd")
    return cwd if isinstance(cwd, str) and cwd else os.getcwd()


def session_of(event: Mapping[str, Any]) -> str | None:
    """The event's ``session_id`` when it is non-empty text."""
    session = event.get("session_id")
    return session if isinstance(session, str) and session else None


def _failure(error: Exception, undone: str) -> HookOutcome:
    # A busy store (StoreBusyError) says so itself, with what held it and for how long.
    return warn(f"{failure_line(error)}; {undone}")
