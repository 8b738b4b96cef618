"""Which Claude Code conversations recorded a run of snapshots (for the resume line).

The hook stamps every snapshot it records with ``metadata["via"] == "claude-code"`` and
Claude Code's ``session_id`` (:func:`snapline.hosts.claude_code.event_metadata`); a
rollback that takes back such work tells the person how to go on with that conversation
(``claude --resume SESSION``), whatever reference it was given.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from snapline.snapshots.snapshot import Snapshot

__all__ = ["VIA", "conversations"]

VIA = "claude-code"
"""``metadata["via"]`` of a snapshot the Claude Code hook recorded."""


def conversations(snapshots: Iterable[Snapshot], paths: Collection[str]) -> list[str]:
    """The Claude Code sessions that recorded a change of one of ``paths`` in ``snapshots``.

    Args:
        snapshots: The snapshots a restore went back over (their files, no diffs needed).
        paths: The paths the restore changed: a session whose snapshots touched none of
            them lost nothing to it.

    Returns:
        The full session ids, each once, in the order of their first such snapshot.
    """
    found: list[str] = []
    wanted = set(paths)
    for snapshot in snapshots:
        metadata = snapshot.metadata
        if metadata.get("via") != VIA:
            continue
        session = metadata.get("session_id") or snapshot.session
        if not isinstance(session, str) or not session or session in found:
            continue
        touched = {f.path for f in snapshot.files} | {
            f.old_path for f in snapshot.files if f.old_path
        }
        if touched & wanted:
            found.append(session)
    return found
