"""``before-prompt:N@SESSION``: the snapshot an agent conversation stood on before prompt N.

A host that knows the conversation (the Claude Code hook) stamps every snapshot it
records while answering prompt N of session S with ``metadata["prompt"] = {"session": S,
"n": N, "at": A, ...}``, ``A`` being the latest snapshot when the prompt was submitted.
The reference resolves from those stamps alone, so it works wherever the ledger goes (a
clone, CI): the ``at`` of prompt N, or, when prompt N recorded nothing, of the next
prompt of that session that did (the workspace had not changed for it in between).

``SESSION`` is a session id or a unique prefix of one (Claude Code's are UUIDs); without
``@SESSION`` the reference means the session of the latest stamped snapshot.
"""

from __future__ import annotations

import json
import re
from typing import Any

from snapline.errors import SnaplineError
from snapline.store import SnapshotRow, StoreReader

__all__ = [
    "PROMPT_PREFIX",
    "PromptNotFoundError",
    "before_prompt",
    "is_prompt_ref",
    "prompt_of",
    "prompt_session",
    "prompt_stamp",
]

PROMPT_PREFIX = "before-prompt:"
"""How a prompt reference starts."""

_PROMPT_REF = re.compile(r"before-prompt:(?P<n>\d+)(?:@(?P<session>[^\s@]+))?")


class PromptNotFoundError(SnaplineError):
    """No snapshot was recorded for that prompt (or any later one) of that session.

    Attributes:
        ref: The reference as given.
        detail: What was found instead.
    """

    exit_code = 1
    ref: str
    detail: str

    def _message(self) -> str:
        return (
            f"{self.ref!r} names no recorded prompt: {self.detail}; `snapline log --session "
            "ID` lists a session's snapshots with their prompts"
        )


def is_prompt_ref(ref: object) -> bool:
    """Whether ``ref`` is written as a prompt reference (well-formed or not)."""
    return isinstance(ref, str) and ref.strip().startswith(PROMPT_PREFIX)


def prompt_of(row: SnapshotRow) -> dict[str, Any] | None:
    """The prompt stamp of one snapshot (``session``, ``n``, ``at``...), when it has one."""
    if '"prompt"' not in row.metadata:
        return None  # most snapshots: no JSON parsed
    try:
        metadata = json.loads(row.metadata)
    except (ValueError, RecursionError):
        return None
    return prompt_stamp(metadata)


def prompt_stamp(metadata: object) -> dict[str, Any] | None:
    """The prompt stamp in a snapshot's metadata, when it has a well-formed one.

    Args:
        metadata: The snapshot's metadata, as parsed JSON.

    Returns:
        ``metadata["prompt"]`` when it names a session (a string) and counts ``n`` and
        ``at`` (whole numbers from 0), else ``None``.
    """
    stamp = metadata.get("prompt") if isinstance(metadata, dict) else None
    if not isinstance(stamp, dict):
        return None
    session, number, at = stamp.get("session"), stamp.get("n"), stamp.get("at")
    if not isinstance(session, str) or not _count(number) or not _count(at):
        return None
    return stamp


def before_prompt(store: StoreReader, ref: str, latest: int) -> int:
    """The snapshot ``before-prompt:N[@SESSION]`` names (see :func:`prompt_session`)."""
    return _resolve(store, ref, latest)[0]


def prompt_session(store: StoreReader, ref: str, latest: int) -> str:
    """The session a ``before-prompt:N[@SESSION]`` reference resolves to (a prefix expanded).

    Raises:
        SnapshotRefError: If ``ref`` is malformed.
        PromptNotFoundError: If it names no recorded prompt.
    """
    return _resolve(store, ref, latest)[1]


def _resolve(store: StoreReader, ref: str, latest: int) -> tuple[int, str]:
    """The snapshot ``before-prompt:N[@SESSION]`` names, and the session.

    Args:
        store: The store to read the stamps from.
        ref: The reference.
        latest: The latest snapshot number.

    Returns:
        A number from 0 to ``latest``, and the session's full id.

    Raises:
        SnapshotRefError: If ``ref`` is malformed.
        PromptNotFoundError: If no stamped snapshot answers it, or the session prefix
            names no session or several.
    """
    from snapline.snapshots.read.refs import SnapshotRefError

    match = _PROMPT_REF.fullmatch(ref.strip())
    if match is None or int(match["n"]) < 1:
        raise SnapshotRefError(ref)
    wanted, given = int(match["n"]), match["session"]
    rows = store.snapshots.select(session=given) if given else []
    stamps = [s for s in map(prompt_of, rows) if s is not None]
    if not stamps:
        # A prefix, or no session named: every stamped snapshot, by number.
        stamps = [s for s in map(prompt_of, store.snapshots.select()) if s is not None]
        sessions = {s["session"] for s in stamps}
        if given:
            sessions = {s for s in sessions if s.startswith(given)}
        elif stamps:
            sessions = {stamps[-1]["session"]}
        if len(sessions) != 1:
            detail = "no session has one" if not sessions else f"{len(sessions)} sessions match"
            raise PromptNotFoundError(ref, detail)
        (session,) = sessions
        stamps = [s for s in stamps if s["session"] == session]
    later = [s for s in stamps if s["n"] >= wanted]
    if not later:
        last = max(s["n"] for s in stamps)
        raise PromptNotFoundError(ref, f"the session's last recorded prompt is {last}")
    chosen = min(later, key=lambda s: (s["n"], s["at"]))
    return min(int(chosen["at"]), latest), str(chosen["session"])


def _count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0
