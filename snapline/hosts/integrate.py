"""``snapline integrate claude-code``: snapline's hooks in a project's ``.claude/settings.json``.

Claude Code reads hooks from the settings' ``hooks`` key: per event, a list of matcher
groups, each ``{"matcher": "Edit|Write", "hooks": [{"type": "command", "command": ...,
"timeout": seconds}]}``. Installing merges snapline's groups into what is there and
keeps every other setting and hook; uninstalling removes only snapline's. Both are
idempotent.

Three traps are closed here:

- The command written is the absolute path of the snapline that runs ``integrate``
  (:func:`running_command`), since Claude Code runs hooks with its own ``PATH``; a
  warning says when ``snapline`` is not on this ``PATH``, or is another one.
- The settings file is project configuration, shared through the repository, so its
  changes are **recorded**, not ignored: the file is written through
  :meth:`Workspace.write_file <snapline.Workspace.write_file>` (tool ``integrate``), so
  the hooks' own first ``PreToolUse`` never finds it drifted, and a later edit that
  turns the guard off shows in the history like any other. A change a person made to
  the file before (unrecorded) is recorded first as its own snapshot (tool ``external``).
- ``--uninstall`` gives back the file byte for byte: installing keeps its bytes (or
  its absence) in ``.snapline/claude-code-settings.before.json``; uninstalling restores
  them when what is left equals them (nobody changed anything else meanwhile), else
  removes only snapline's entries.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import shlex
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from snapline import atomic
from snapline.errors import SnaplineError
from snapline.state_dir import read_state_file, state_dir

if TYPE_CHECKING:
    from snapline.workspace import Workspace

__all__ = [
    "DEFAULT_COMMAND",
    "HOOK_TIMEOUT",
    "SETTINGS_PATH",
    "Integration",
    "SettingsError",
    "integrate_claude_code",
    "running_command",
]

SETTINGS_PATH = Path(".claude") / "settings.json"
"""The project settings file, relative to the workspace root."""

DEFAULT_COMMAND = "snapline hook claude-code"
"""The hook command's arguments; every entry running ``snapline ... hook claude-code`` is ours."""

HOOK_TIMEOUT = 10
"""Claude Code's own limit on one hook run, in seconds (the hook gives up sooner)."""

_MATCHER = "Edit|Write|MultiEdit|NotebookEdit|Bash"
_TOOL_EVENTS = ("PreToolUse", "PostToolUse")
_PROMPT_EVENT = "UserPromptSubmit"
_MILESTONE_FLAG = " --milestone-per-prompt"
_DIGEST_FLAG = " --prompt-digest"
_HOOK_ARGS = "hook claude-code"
_BEFORE_FILE = "claude-code-settings.before.json"
_TOOL = "integrate"


class SettingsError(SnaplineError):
    """The Claude Code settings file cannot be read as settings.

    Attributes:
        path: The settings file.
        detail: What is wrong with it.
    """

    exit_code = 1
    path: str
    detail: str

    def __init__(self, path: Path, detail: str) -> None:
        super().__init__(str(path), detail)

    def _message(self) -> str:
        return (
            f"cannot update {self.path}: {self.detail}; fix the file (it must be a JSON "
            "object) and run `snapline integrate claude-code` again"
        )


@dataclass(frozen=True)
class Integration:
    """What ``integrate`` did.

    Attributes:
        path: The settings file.
        changed: Whether the file was written (``False``: it already said so).
        events: The events snapline's hooks are now installed for (empty: uninstalled).
        command: The hook command written (empty when uninstalling).
        snapshots: The snapshots recorded: an outside change to the file first, if any,
            then the file as ``integrate`` left it.
        warnings: What the person should know (``snapline`` not on ``PATH``...).
    """

    path: Path
    changed: bool
    events: tuple[str, ...]
    command: str = ""
    snapshots: tuple[int, ...] = ()
    warnings: tuple[str, ...] = ()


def running_command(program: str = "") -> str:
    """The hook command for the snapline running now, by absolute path.

    Args:
        program: The program this process was started as (the command line's
            ``cli/lean.py`` says), when it is a snapline console script.

    Returns:
        ``program`` when it is snapline's console script, else the one installed beside
        this interpreter, else ``<python> -m snapline``; followed by ``hook claude-code``.
    """
    script = _running_script(program)
    if script is not None:
        return f"{shlex.quote(script)} {_HOOK_ARGS}"
    return f"{shlex.quote(sys.executable)} -m snapline {_HOOK_ARGS}"


def integrate_claude_code(
    root: Path,
    *,
    uninstall: bool = False,
    milestone_per_prompt: bool = False,
    prompt_digest: bool = False,
    command: str | None = None,
) -> Integration:
    """Install (or remove) snapline's Claude Code hooks in ``<root>/.claude/settings.json``.

    Args:
        root: The workspace root (it must have a store: the change is recorded).
        uninstall: Remove snapline's entries instead, and nothing else; the file's
            bytes from before the install come back when nothing else changed.
        milestone_per_prompt: Have the ``UserPromptSubmit`` hook also close a milestone
            per prompt.
        prompt_digest: Have it keep only each prompt's digest, not its text.
        command: The hook command (default: :func:`running_command`, the absolute path
            of the snapline running now).

    Returns:
        The settings file, whether it changed, the events now hooked, the command, the
        snapshots recorded and any warnings.

    Raises:
        SettingsError: If the file exists but is not a JSON object with a ``hooks``
            object in it.
        NotInitializedError: If ``root`` has no store.
    """
    from snapline.workspace import Workspace

    path = root / SETTINGS_PATH
    with Workspace.open(root) as ws:
        original = _read(path)
        settings = _parsed(path, original) if original is not None else {}
        hooks = settings.get("hooks", {})
        if not isinstance(hooks, dict):
            raise SettingsError(path, '"hooks" is not an object')
        had_ours = False
        for event in (*_TOOL_EVENTS, _PROMPT_EVENT):
            had_ours = _remove_ours(path, hooks, event) or had_ours
        command = command or running_command()
        events: tuple[str, ...] = ()
        if not uninstall:
            events = (*_TOOL_EVENTS, _PROMPT_EVENT)
            for event in _TOOL_EVENTS:
                hooks.setdefault(event, []).append(_group(command, _MATCHER))
            # Every prompt is numbered (before-prompt:N@SESSION needs it); the flags
            # say what else the prompt hook does.
            flags = _MILESTONE_FLAG if milestone_per_prompt else ""
            flags += _DIGEST_FLAG if prompt_digest else ""
            hooks.setdefault(_PROMPT_EVENT, []).append(_group(command + flags, None))
        if hooks:
            settings["hooks"] = hooks
        else:
            settings.pop("hooks", None)
        text = json.dumps(settings, indent=2, ensure_ascii=False).encode("utf-8") + b"\n"
        before = state_dir(root) / _BEFORE_FILE
        new: bytes | None = text
        if uninstall:
            changed = had_ours
            new = _as_before(before, settings, text)
        else:
            changed = original is None or _parsed(path, original) != settings
        snapshots: tuple[int, ...] = ()
        if changed:
            if not uninstall and not had_ours:
                _keep_before(before, path, original, text)
            snapshots = _write(ws, path, new, "uninstalled" if uninstall else "installed")
            if new is None and not read_state_file(before).get("directory_existed", True):
                with contextlib.suppress(OSError):
                    path.parent.rmdir()  # only when empty: the install made it
        if uninstall:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(before)
    return Integration(
        path=path,
        changed=changed,
        events=events,
        command="" if uninstall else command,
        snapshots=snapshots,
        warnings=() if uninstall else _path_warnings(command),
    )


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as error:
        raise SettingsError(path, str(error)) from None


def _parsed(path: Path, data: bytes) -> dict[str, Any]:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise SettingsError(path, str(error)) from None
    if not text.strip():
        return {}
    try:
        settings = json.loads(text)
    except (ValueError, RecursionError) as error:
        raise SettingsError(path, f"not JSON ({error})") from None
    if not isinstance(settings, dict):
        raise SettingsError(path, "not a JSON object")
    return settings


def _keep_before(before: Path, path: Path, original: bytes | None, installed: bytes) -> None:
    """Keep the file as it was before the install (its bytes, or its absence)."""
    kept = {
        "version": 1,
        "existed": original is not None,
        "content": base64.b64encode(original or b"").decode("ascii"),
        "directory_existed": path.parent.is_dir(),
        "installed": base64.b64encode(installed).decode("ascii"),
    }
    atomic.write_file(before, json.dumps(kept).encode("utf-8") + b"\n", 0o100644)


def _as_before(before: Path, settings: dict[str, Any], text: bytes) -> bytes | None:
    """What uninstalling writes: the bytes from before the install when nothing else changed.

    Returns:
        Those bytes, ``None`` when the file did not exist then, else ``text``.
    """
    kept = read_state_file(before)
    try:
        existed = bool(kept["existed"])
        content = base64.b64decode(kept["content"], validate=True)
    except (ValueError, KeyError, TypeError):
        return text  # no record of the install (or a damaged one): only ours go
    try:
        same = (json.loads(content.decode("utf-8")) if content.strip() else {}) == settings
    except (ValueError, UnicodeDecodeError, RecursionError):
        same = False
    if existed and same:
        return content
    if not existed and not settings:
        return None
    return text


def _write(ws: Workspace, path: Path, data: bytes | None, what: str) -> tuple[int, ...]:
    """Write (or delete) the settings file through the workspace, recording each change."""
    from snapline.workspace.rows import sync_problems

    rel = path.relative_to(ws.root).as_posix()
    numbers = []
    drifted = [
        p for p in sync_problems(ws, [rel]) if p.kind in ("modified", "deleted", "untracked")
    ]
    if drifted:
        # A person's own edit of the file, never recorded: its own snapshot, not ours.
        outside = ws.resync(paths=[rel], description=f"{rel} as found by snapline integrate")
        numbers.append(outside.number if outside is not None else None)
    description = f"snapline integrate claude-code: hooks {what}"
    if data is not None:
        done = ws.write_file(rel, data, tool=_TOOL, description=description)
    elif rel in ws.tracked():
        done = ws.delete_file(rel, tool=_TOOL, description=description)
    else:
        done = None
        with contextlib.suppress(FileNotFoundError):
            atomic.remove_file(path)
    numbers.append(done.number if done is not None else None)
    return tuple(n for n in numbers if n is not None)


def _path_warnings(command: str) -> tuple[str, ...]:
    words = shlex.split(command)
    program = os.path.realpath(words[0]) if words else ""
    found = shutil.which("snapline")
    if found is None:
        return (
            f"`snapline` is not on PATH; the hooks run {words[0]} by its full path, so keep "
            "that installation (or pass --command)",
        )
    if program and "-m" not in words and os.path.realpath(found) != program:
        return (
            f"the `snapline` on PATH is {found}, but the hooks run {words[0]} (the one that "
            "ran this command)",
        )
    return ()


def _running_script(program: str) -> str | None:
    for candidate in (program, str(Path(sys.executable).with_name("snapline"))):
        located = candidate if os.sep in candidate else shutil.which(candidate or "-")
        if not located:
            continue
        script = Path(located)
        if (
            script.name.startswith("snapline")
            and script.suffix != ".py"
            and script.is_file()
            and os.access(script, os.X_OK)
        ):
            return os.path.abspath(script)
    return None


def _group(command: str, matcher: str | None) -> dict[str, Any]:
    group: dict[str, Any] = {} if matcher is None else {"matcher": matcher}
    group["hooks"] = [{"type": "command", "command": command, "timeout": HOOK_TIMEOUT}]
    return group


def _ours(hook: object) -> bool:
    # Any snapline's hook entry, by whatever path it was written (bare, absolute, -m).
    if not isinstance(hook, dict):
        return False
    text = hook.get("command")
    return isinstance(text, str) and _HOOK_ARGS in text and "snapline" in text


def _remove_ours(path: Path, hooks: dict[str, Any], event: str) -> bool:
    """Remove snapline's entries for ``event``; whether there were any."""
    groups = hooks.get(event)
    if groups is None:
        return False
    if not isinstance(groups, list):
        raise SettingsError(path, f'"hooks.{event}" is not a list')
    kept = []
    found = False
    for group in groups:
        inner = group.get("hooks") if isinstance(group, dict) else None
        if not isinstance(inner, list) or not any(_ours(hook) for hook in inner):
            kept.append(group)
            continue
        found = True
        rest = [hook for hook in inner if not _ours(hook)]
        if rest:
            kept.append({**group, "hooks": rest})
    if kept:
        hooks[event] = kept
    else:
        del hooks[event]
    return found
