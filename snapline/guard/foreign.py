"""What a guard's rollback would take out that is not the guarded session's own work.

``guard --rollback`` goes back over every snapshot after the last pass. Among them may
be a person's edit (``resync``, an outside change recorded before a Bash call, a Bash
snapshot that took in an outside change) or another agent session's work: those are
never rolled back without saying so first (a question on a terminal, else a refusal).
"""

from __future__ import annotations

import json

from snapline.guard.outcome import ForeignSnapshot
from snapline.snapshots.info_fields import EXTERNAL_TOOL
from snapline.store import StoreReader

__all__ = ["foreign_work"]


def foreign_work(
    store: StoreReader, first: int, last: int, ours: str | None
) -> list[ForeignSnapshot]:
    """The snapshots of ``first..last`` that are a person's edit or another session's work.

    A snapshot is another session's when it names a session and that is not ``ours``;
    one that names none cannot be told apart and counts as ours (a plain ``record``, a
    rollback by the guard itself).

    Args:
        store: The open store (read inside its read transaction).
        first: The first snapshot the rollback would take out.
        last: The last one (the snapshot that failed its check).
        ours: The session guarding (its ``--session``, else the failing snapshot's).

    Returns:
        Those snapshots, by number, each with its files.
    """
    rows = store.snapshots.select(first=first, last=last) if first <= last else []
    files: dict[int, list[str]] = {}
    for number, path, _ in store.changes.paths(first, last) if first <= last else []:
        files.setdefault(number, []).append(path)
    found: list[ForeignSnapshot] = []
    for row in rows:
        reason = _reason(row.tool, row.session, row.metadata, ours)
        if reason is not None:
            found.append(
                ForeignSnapshot(
                    number=row.number,
                    tool=row.tool,
                    session=row.session,
                    reason=reason,
                    files=tuple(files.get(row.number, ())),
                )
            )
    return found


def _reason(tool: str, session: str | None, metadata: str, ours: str | None) -> str | None:
    if tool == EXTERNAL_TOOL:
        return "a change made outside snapline (a person's edit)"
    try:
        meta = json.loads(metadata)
    except ValueError:
        meta = {}
    if isinstance(meta, dict) and meta.get("outside_changes"):
        return "holds a change made outside snapline (a person's edit)"
    if session is not None and session != ours:
        return f"session {session}" + ("" if ours is None else f", not {ours}")
    return None
