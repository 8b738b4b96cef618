"""``snapline integrate claude-code``: snapline's hooks in a project's ``.claude/settings.json``.

Claude Code reads hooks from the settings' ``hooks`` key: per event, a list of matcher
groups, each ``{"matcher": "Edit|Write", "hooks": [{"type": "command", "command": ...,
"timeout": seconds}]}``. Installing merges snapline's groups into what is there and
keeps every other setting and hook; uninstalling removes only snapline's. Both are
idempotent, and the file is replaced atomically.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from snapline import atomic
from snapline.errors import SnaplineError

__all__ = [
    "DEFAULT_COMMAND",
    "HOOK_TIMEOUT",
    "SETTINGS_PATH",
    "Integration",
    "SettingsError",
    "integrate_claude_code",
]

SETTINGS_PATH = Path(".claude") / "settings.json"
"""The project settings file, relative to the workspace root."""

DEFAULT_COMMAND = "snapline hook claude-code"
"""The hook command written into the settings; every entry holding it is snapline's."""

HOOK_TIMEOUT = 10
"""Claude Code's own limit on one hook run, in seconds (the hook gives up sooner)."""

_MATCHER = "Edit|Write|MultiEdit|NotebookEdit|Bash"
_TOOL_EVENTS = ("PreToolUse", "PostToolUse")
_PROMPT_EVENT = "UserPromptSubmit"
_MILESTONE_FLAG = " --milestone-per-prompt"


class SettingsError(SnaplineError):
    """The Claude Code settings file cannot be read as settings.

    Attributes:
        path: The settings file.
        detail: What is wrong with it.
    """

    exit_code = 1

    def __init__(self, path: Path, detail: str) -> None:
        self.path = str(path)
        self.detail = detail
        super().__init__(
            f"cannot update {path}: {detail}; fix the file (it must be a JSON object) "
            "and run `snapline integrate claude-code` again"
        )


@dataclass(frozen=True)
class Integration:
    """What ``integrate`` did.

    Attributes:
        path: The settings file.
        changed: Whether the file was written (``False``: it already said so).
        events: The events snapline's hooks are now installed for (empty: uninstalled).
    """

    path: Path
    changed: bool
    events: tuple[str, ...]


def integrate_claude_code(
    root: Path,
    *,
    uninstall: bool = False,
    milestone_per_prompt: bool = False,
    command: str = DEFAULT_COMMAND,
) -> Integration:
    """Install (or remove) snapline's Claude Code hooks in ``<root>/.claude/settings.json``.

    Args:
        root: The project root (the workspace root).
        uninstall: Remove snapline's entries instead, and nothing else.
        milestone_per_prompt: Also install the ``UserPromptSubmit`` hook that closes a
            milestone per prompt.
        command: The hook command (default ``snapline hook claude-code``; give a full
            path when ``snapline`` is not on the agent's ``PATH``).

    Returns:
        The settings file, whether it changed, and the events now hooked.

    Raises:
        SettingsError: If the file exists but is not a JSON object with a ``hooks``
            object in it.
    """
    path = root / SETTINGS_PATH
    settings = _load(path)
    original = json.dumps(settings, sort_keys=True)
    hooks = settings.get("hooks", {})
    if not isinstance(hooks, dict):
        raise SettingsError(path, '"hooks" is not an object')
    for event in (*_TOOL_EVENTS, _PROMPT_EVENT):
        _remove_ours(path, hooks, event, command)
    events: tuple[str, ...] = ()
    if not uninstall:
        events = (*_TOOL_EVENTS, _PROMPT_EVENT) if milestone_per_prompt else _TOOL_EVENTS
        for event in _TOOL_EVENTS:
            hooks.setdefault(event, []).append(_group(command, _MATCHER))
        if milestone_per_prompt:
            hooks.setdefault(_PROMPT_EVENT, []).append(_group(command + _MILESTONE_FLAG, None))
    if hooks:
        settings["hooks"] = hooks
    else:
        settings.pop("hooks", None)
    changed = json.dumps(settings, sort_keys=True) != original
    if changed:
        text = json.dumps(settings, indent=2, ensure_ascii=False) + "\n"
        atomic.write_file(path, text.encode("utf-8"), 0o100644)
    return Integration(path=path, changed=changed, events=events)


def _load(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as error:
        raise SettingsError(path, str(error)) from None
    if not text.strip():
        return {}
    try:
        settings = json.loads(text)
    except ValueError as error:
        raise SettingsError(path, f"not JSON ({error})") from None
    if not isinstance(settings, dict):
        raise SettingsError(path, "not a JSON object")
    return settings


def _group(command: str, matcher: str | None) -> dict[str, Any]:
    group: dict[str, Any] = {} if matcher is None else {"matcher": matcher}
    group["hooks"] = [{"type": "command", "command": command, "timeout": HOOK_TIMEOUT}]
    return group


def _ours(hook: object, command: str) -> bool:
    if not isinstance(hook, dict):
        return False
    text = hook.get("command")
    return isinstance(text, str) and (command in text or DEFAULT_COMMAND in text)


def _remove_ours(path: Path, hooks: dict[str, Any], event: str, command: str) -> None:
    groups = hooks.get(event)
    if groups is None:
        return
    if not isinstance(groups, list):
        raise SettingsError(path, f'"hooks.{event}" is not a list')
    kept = []
    for group in groups:
        inner = group.get("hooks") if isinstance(group, dict) else None
        if not isinstance(inner, list) or not any(_ours(hook, command) for hook in inner):
            kept.append(group)
            continue
        rest = [hook for hook in inner if not _ours(hook, command)]
        if rest:
            kept.append({**group, "hooks": rest})
    if kept:
        hooks[event] = kept
    else:
        del hooks[event]
