"""Claude Code's ``UserPromptSubmit`` event: the conversation's prompts, bound to the history.

Each prompt of a session gets its position (1, 2, 3...) and the latest snapshot when it
was submitted; every snapshot the hooks then record for that session carries it as
``metadata["prompt"]`` (:func:`stamp`), which is what ``before-prompt:N@SESSION`` resolves
from (:mod:`snapline.snapshots.read.prompts`). The prompt's text is kept with it (at most
1,000 characters), or only its SHA-256 digest when ``--prompt-digest`` or
``SNAPLINE_PROMPTS=digest`` says so: the history is pushed with the project's branches,
and a prompt may hold what should not be. The current prompt of each session lives in
``claude-code-prompts.json`` of the local state (``.git/snapline/``, or ``.snapline/``
outside git); a session it has lost (a fresh clone) is counted on from its stamped
snapshots.

With milestones per prompt, each new prompt also closes the work done since the last
milestone as the next milestone, titled from the prompt that asked for that work.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from collections.abc import Mapping
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from snapline.hosts.claude_code import HookOutcome, cwd_of, open_workspace, session_of
from snapline.state_dir import read_state_file, state_dir

if TYPE_CHECKING:
    from snapline.workspace import Workspace

__all__ = ["PROMPTS_ENV", "PROMPTS_FILE", "PROMPT_FILE", "prompt", "stamp"]

PROMPT_FILE = "claude-code-prompt.json"
"""In ``.snapline/``: the title of the prompt whose milestone is still open."""

PROMPTS_FILE = "claude-code-prompts.json"
"""In ``.snapline/``: each session's current prompt (its stamp)."""

PROMPTS_ENV = "SNAPLINE_PROMPTS"
"""``digest`` keeps only each prompt's SHA-256 (as ``--prompt-digest`` does); else its text."""

_MAX_TITLE = 100
_MAX_TEXT = 1000
_MAX_SESSIONS = 64


def prompt(
    event: Mapping[str, Any],
    *,
    milestone_per_prompt: bool,
    timeout: float,
    digest_only: bool | None = None,
) -> HookOutcome:
    """The ``UserPromptSubmit`` hook: number the prompt, and close a milestone if asked.

    Args:
        event: The hook event (``prompt``, ``session_id``, ``cwd``...).
        milestone_per_prompt: Close a milestone per prompt.
        timeout: Seconds to wait for another process holding the store.
        digest_only: Keep only the prompt's digest; ``None`` reads ``SNAPLINE_PROMPTS``.

    Returns:
        The milestone closed, if any.
    """
    if digest_only is None:
        digest_only = os.environ.get(PROMPTS_ENV, "") == "digest"
    text = event.get("prompt") if isinstance(event.get("prompt"), str) else ""
    session = session_of(event)
    with open_workspace(cwd_of(event), timeout) as ws:
        if ws is None:
            return HookOutcome()
        if session is not None:
            _number(ws, session, str(text), digest_only=digest_only)
        number = _milestone(ws, event, str(text)) if milestone_per_prompt else None
    return HookOutcome(milestone=number)


def stamp(root: Path, session: str | None) -> dict[str, Any] | None:
    """The current prompt of ``session`` for a snapshot's ``metadata["prompt"]``, if any."""
    if session is None:
        return None
    current = read_state_file(state_dir(root) / PROMPTS_FILE).get(session)
    return current if isinstance(current, dict) else None


def _number(ws: Workspace, session: str, text: str, *, digest_only: bool) -> None:
    from snapline import atomic

    path = state_dir(ws.root) / PROMPTS_FILE
    prompts = read_state_file(path)
    previous = prompts.pop(session, None)
    last = previous.get("n") if isinstance(previous, dict) else None
    if not isinstance(last, int):
        last = _last_recorded(ws, session)
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
    current: dict[str, Any] = {
        "session": session,
        "n": last + 1,
        "at": ws.latest,
        "time": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "digest": f"sha256:{digest}",
    }
    if not digest_only:
        current["text"] = text[:_MAX_TEXT]
        if len(text) > _MAX_TEXT:
            current["text_truncated"] = True
    prompts[session] = current
    kept = dict(list(prompts.items())[-_MAX_SESSIONS:])
    atomic.write_file(path, json.dumps(kept, ensure_ascii=False).encode("utf-8"), 0o100644)


def _last_recorded(ws: Workspace, session: str) -> int:
    # The local file lost this session (a fresh clone, a deleted store file): count on
    # from the last prompt its snapshots were stamped with.
    for snapshot in ws.snapshots(session=session, newest_first=True):
        found = snapshot.metadata.get("prompt")
        if isinstance(found, dict) and isinstance(found.get("n"), int):
            return int(found["n"])
    return 0


def _milestone(ws: Workspace, event: Mapping[str, Any], text: str) -> int | None:
    from snapline import atomic
    from snapline.milestones import EmptyMilestoneError

    title = _shorten(text.strip().splitlines()[0], _MAX_TITLE) if text.strip() else ""
    remembered = state_dir(ws.root) / PROMPT_FILE
    # The work since the last milestone answered the previous prompt: close it
    # under that prompt's title, then remember this one for the next turn.
    previous = read_state_file(remembered).get("title")
    number = None
    with contextlib.suppress(EmptyMilestoneError):
        title_then = previous if isinstance(previous, str) and previous else "Claude Code prompt"
        number = ws.milestones.create(title_then).number
    data = json.dumps({"title": title or "Claude Code prompt", "session": session_of(event)})
    atomic.write_file(remembered, data.encode("utf-8") + b"\n", 0o100644)
    return number


def _shorten(text: str, limit: int) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"
