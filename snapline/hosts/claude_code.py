"""Claude Code hooks: one hook event in, one outcome out (``snapline hook claude-code``).

Claude Code runs a hook command per event with the event as JSON on stdin: the common
fields ``session_id``, ``transcript_path``, ``cwd`` and ``hook_event_name``, and for tool
events ``tool_name``, ``tool_input`` and (after the tool) ``tool_response``. Exit code 2
blocks a ``PreToolUse`` and shows stderr to the model; any other code lets the tool run.

What snapline does with each event:

- ``PreToolUse`` of a file tool (Edit, Write, MultiEdit, NotebookEdit): refuse (exit 2)
  when the target file was changed outside snapline; ``PreToolUse`` of Bash: refuse when
  anything in the workspace was.
- ``PostToolUse`` of a file tool: record that file as one snapshot; of Bash: record
  everything the command changed as one snapshot.
- ``UserPromptSubmit``, when milestones per prompt are on: close the work since the last
  milestone as one, titled from the prompt that asked for it.

A hook must never hang or break the agent: no store means nothing to do, a busy store,
bad input or any failure is a warning on stderr with exit 0. Only the drift refusal blocks.
This module imports the library only inside the calls that use it.
"""

from __future__ import annotations

import contextlib
import enum
import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from snapline.snapshots.snapshot import Problem
    from snapline.workspace import Workspace

__all__ = [
    "BUSY_TIMEOUT",
    "FILE_TOOLS",
    "MILESTONE_ENV",
    "HookOutcome",
    "Verdict",
    "handle_event",
    "handle_input",
]

BUSY_TIMEOUT = 2.0
"""Seconds a hook waits for another process holding the store before giving up."""

FILE_TOOLS = ("Edit", "Write", "MultiEdit", "NotebookEdit")
"""Claude Code tools that change one file, named in ``tool_input``."""

MILESTONE_ENV = "SNAPLINE_MILESTONE_PER_PROMPT"
"""Set to ``1`` to close a milestone per prompt (as ``--milestone-per-prompt`` does)."""

_BASH = "Bash"
_DRIFT_KINDS = ("modified", "deleted", "untracked")
_PROMPT_FILE = "claude-code-prompt.json"
_MAX_DESCRIPTION = 200
_MAX_TITLE = 100
_MAX_NAMED = 3


class Verdict(enum.Enum):
    """What the hook tells Claude Code."""

    ALLOW = "allow"
    """Exit 0: the tool runs (or ran); nothing to say."""
    WARN = "warn"
    """Exit 0 with a warning on stderr: snapline could not do its part."""
    BLOCK = "block"
    """Exit 2 with the reason on stderr: the tool is refused."""


@dataclass(frozen=True)
class HookOutcome:
    """The result of one hook event.

    Attributes:
        verdict: Allow, warn or block.
        message: The line for stderr (empty when there is nothing to say).
        snapshot: The snapshot recorded, if any.
        milestone: The milestone closed, if any.
    """

    verdict: Verdict = Verdict.ALLOW
    message: str = ""
    snapshot: int | None = None
    milestone: int | None = None

    @property
    def exit_code(self) -> int:
        """The hook's exit code: 2 blocks the tool, 0 lets it run."""
        return 2 if self.verdict is Verdict.BLOCK else 0


def handle_input(
    text: str, *, timeout: float = BUSY_TIMEOUT, milestone_per_prompt: bool | None = None
) -> HookOutcome:
    """Handle one hook event given as the JSON text Claude Code writes on stdin.

    Args:
        text: The event JSON.
        timeout: Seconds to wait for another process holding the store.
        milestone_per_prompt: Close a milestone per prompt; ``None`` reads
            ``SNAPLINE_MILESTONE_PER_PROMPT`` from the environment.

    Returns:
        The outcome; malformed input is a warning, never a refusal.
    """
    try:
        event = json.loads(text)
    except ValueError as error:
        return _warn(f"the hook input is not JSON ({error}); nothing recorded")
    if not isinstance(event, dict):
        return _warn("the hook input is not a JSON object; nothing recorded")
    return handle_event(event, timeout=timeout, milestone_per_prompt=milestone_per_prompt)


def handle_event(
    event: Mapping[str, Any],
    *,
    timeout: float = BUSY_TIMEOUT,
    milestone_per_prompt: bool | None = None,
) -> HookOutcome:
    """Handle one Claude Code hook event.

    Args:
        event: The decoded event (``hook_event_name``, ``cwd``, ``tool_name``, ...).
        timeout: Seconds to wait for another process holding the store.
        milestone_per_prompt: Close a milestone per prompt; ``None`` reads
            ``SNAPLINE_MILESTONE_PER_PROMPT`` from the environment.

    Returns:
        The outcome. Never raises: a failure is a :attr:`Verdict.WARN` outcome.
    """
    if milestone_per_prompt is None:
        milestone_per_prompt = os.environ.get(MILESTONE_ENV, "") not in ("", "0")
    name = event.get("hook_event_name")
    tool = event.get("tool_name")
    try:
        if name in ("PreToolUse", "PostToolUse") and isinstance(tool, str):
            if tool in FILE_TOOLS:
                return _file_tool(event, tool, pre=name == "PreToolUse", timeout=timeout)
            if tool == _BASH:
                return _bash(event, pre=name == "PreToolUse", timeout=timeout)
        elif name == "UserPromptSubmit" and milestone_per_prompt:
            return _prompt(event, timeout=timeout)
        return HookOutcome()
    except Exception as error:
        return _failure(error)


def _file_tool(event: Mapping[str, Any], tool: str, *, pre: bool, timeout: float) -> HookOutcome:
    tool_input = event.get("tool_input")
    if not isinstance(tool_input, Mapping):
        return _warn(f"{tool} event without tool_input; nothing recorded")
    target = tool_input.get("file_path") or tool_input.get("notebook_path")
    if not isinstance(target, str) or not target:
        return _warn(f"{tool} event without a file path; nothing recorded")
    from snapline.paths import ProtectedPathError, UnsafePathError, writable_relpath
    from snapline.scanning import IgnoreRules
    from snapline.snapshots.info_fields import PlainInfo
    from snapline.workspace.rows import record_rows, sync_problems

    cwd = _cwd(event)
    path = os.path.normpath(os.path.join(cwd, target))
    with _open(cwd, timeout) as ws:
        if ws is None:
            return HookOutcome()
        try:
            rel = writable_relpath(ws.root, path)
        except ProtectedPathError as error:
            # The writers' rule (DESIGN rule 10) for the agent's own file tools: a git
            # hook or config planted by the agent would run outside the history.
            return HookOutcome(Verdict.BLOCK, f"snapline: {error}") if pre else HookOutcome()
        except UnsafePathError:
            return HookOutcome()  # outside the workspace: not snapline's to guard
        try:
            if IgnoreRules(ws.root).is_ignored(rel):
                return HookOutcome()  # ignored: never recorded, so never guarded
            if pre:
                return _refuse_drift(sync_problems(ws, [path]))
            shown = os.path.relpath(path, ws.root)
            info = PlainInfo.checked(tool, f"{tool} {shown}", _session(event))
            number = record_rows(ws, [path], info).number
        except UnsafePathError:
            return HookOutcome()  # a symlinked directory on the way: not tracked
    return HookOutcome(snapshot=number)


def _bash(event: Mapping[str, Any], *, pre: bool, timeout: float) -> HookOutcome:
    from snapline.snapshots.info_fields import PlainInfo
    from snapline.workspace.rows import record_rows, sync_problems

    cwd = _cwd(event)
    with _open(cwd, timeout) as ws:
        if ws is None:
            return HookOutcome()
        if pre:
            return _refuse_drift(sync_problems(ws, None))
        tool_input = event.get("tool_input")
        command = tool_input.get("command") if isinstance(tool_input, Mapping) else None
        description = _shorten(command if isinstance(command, str) else "", _MAX_DESCRIPTION)
        info = PlainInfo.checked(_BASH, description, _session(event))
        number = record_rows(ws, None, info).number
    return HookOutcome(snapshot=number)


def _prompt(event: Mapping[str, Any], *, timeout: float) -> HookOutcome:
    from snapline import atomic
    from snapline.milestones import EmptyMilestoneError
    from snapline.paths import STORE_DIR

    prompt = event.get("prompt")
    title = _shorten(prompt.strip().splitlines()[0], _MAX_TITLE) if isinstance(prompt, str) else ""
    with _open(_cwd(event), timeout) as ws:
        if ws is None:
            return HookOutcome()
        remembered = ws.root / STORE_DIR / _PROMPT_FILE
        # The work since the last milestone answered the previous prompt: close it
        # under that prompt's title, then remember this one for the next turn.
        previous = _remembered_title(remembered) or "Claude Code prompt"
        number = None
        with contextlib.suppress(EmptyMilestoneError):
            number = ws.milestones.create(previous).number
        data = json.dumps({"title": title or "Claude Code prompt", "session": _session(event)})
        atomic.write_file(remembered, data.encode("utf-8") + b"\n", 0o100644)
    return HookOutcome(milestone=number)


def _refuse_drift(problems: Sequence[Problem]) -> HookOutcome:
    # Only an outside change refuses; a file snapline cannot read is not one.
    problems = tuple(p for p in problems if p.kind in _DRIFT_KINDS)
    if not problems:
        return HookOutcome()
    named = ", ".join(f"{p.path} ({p.kind})" for p in problems[:_MAX_NAMED])
    more = f" and {len(problems) - _MAX_NAMED} more" if len(problems) > _MAX_NAMED else ""
    return HookOutcome(
        Verdict.BLOCK,
        f"snapline: refused: changed outside snapline since the last snapshot: {named}{more}; "
        "ask the user to run `snapline resync` to record that change (or `snapline rollback` "
        "to drop it), then retry",
    )


class _open:
    """The workspace containing ``cwd`` (``None`` when there is none), closed on exit."""

    def __init__(self, cwd: str, timeout: float) -> None:
        self._cwd = cwd
        self._timeout = timeout
        self._ws: Workspace | None = None

    def __enter__(self) -> Workspace | None:
        from snapline.opening import NotInitializedError
        from snapline.workspace import Workspace

        try:
            self._ws = Workspace.find(self._cwd, timeout=self._timeout)
        except NotInitializedError:
            return None
        return self._ws

    def __exit__(self, *exc: object) -> None:
        if self._ws is not None:
            self._ws.close()


def _cwd(event: Mapping[str, Any]) -> str:
    cwd = event.get("cwd")
    return cwd if isinstance(cwd, str) and cwd else os.getcwd()


def _session(event: Mapping[str, Any]) -> str | None:
    session = event.get("session_id")
    return session if isinstance(session, str) and session else None


def _remembered_title(path: Path) -> str:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return ""
    title = data.get("title") if isinstance(data, dict) else None
    return title if isinstance(title, str) else ""


def _shorten(text: str, limit: int) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _warn(message: str) -> HookOutcome:
    return HookOutcome(Verdict.WARN, f"snapline: warning: {message}")


def _failure(error: Exception) -> HookOutcome:
    from snapline import StoreBusyError
    from snapline.errors import SnaplineError

    if isinstance(error, StoreBusyError):
        return _warn(f"the store is busy; this change was not recorded now ({error})")
    if isinstance(error, (SnaplineError, OSError)):
        return _warn(f"{error}; the tool was not blocked")
    return _warn(f"internal error {type(error).__name__}: {error}; the tool was not blocked")
