"""Claude Code's ``UserPromptSubmit`` event: a milestone per prompt, when asked for.

Each new prompt closes the work done since the last milestone as the next milestone,
titled from the first line of the prompt that asked for that work (remembered in
``.snapline/claude-code-prompt.json`` until the next prompt); nothing is closed when
nothing was recorded.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from snapline.hosts.claude_code import HookOutcome, cwd_of, open_workspace, session_of

__all__ = ["PROMPT_FILE", "prompt"]

PROMPT_FILE = "claude-code-prompt.json"
"""In ``.snapline/``: the title of the prompt whose work is still open."""

_MAX_TITLE = 100


def prompt(event: Mapping[str, Any], *, milestone_per_prompt: bool, timeout: float) -> HookOutcome:
    """The ``UserPromptSubmit`` hook.

    Args:
        event: The hook event (``prompt``, ``session_id``, ``cwd``...).
        milestone_per_prompt: Close a milestone per prompt.
        timeout: Seconds to wait for another process holding the store.

    Returns:
        The milestone closed, if any.
    """
    if not milestone_per_prompt:
        return HookOutcome()
    from snapline import atomic
    from snapline.milestones import EmptyMilestoneError
    from snapline.paths import STORE_DIR

    text = event.get("prompt")
    title = _shorten(text.strip().splitlines()[0], _MAX_TITLE) if isinstance(text, str) else ""
    with open_workspace(cwd_of(event), timeout) as ws:
        if ws is None:
            return HookOutcome()
        remembered = ws.root / STORE_DIR / PROMPT_FILE
        # The work since the last milestone answered the previous prompt: close it
        # under that prompt's title, then remember this one for the next turn.
        previous = _remembered_title(remembered) or "Claude Code prompt"
        number = None
        with contextlib.suppress(EmptyMilestoneError):
            number = ws.milestones.create(previous).number
        data = json.dumps({"title": title or "Claude Code prompt", "session": session_of(event)})
        atomic.write_file(remembered, data.encode("utf-8") + b"\n", 0o100644)
    return HookOutcome(milestone=number)


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
