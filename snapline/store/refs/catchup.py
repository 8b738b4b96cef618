"""Catching the index up with the main line's ref: the snapshots the ref has and it lacks.

The ref is the history; the index is a cache of it. A writer killed after its ref moved
and before its index transaction committed leaves the ref one snapshot ahead, and an
empty index (a fresh clone, a deleted cache) has none: both are filled here from the
line as :func:`~snapline.store.refs.reading.read_line` reads and checks it, the whole
versions' content taken from each state through
:func:`~snapline.store.refs.reading.read_version` (hash-checked).

A minimal first step: the line is read whole each time (no mark kept in the index yet),
and only the main line (the one whose first snapshot is a baseline) is followed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from snapline.content import pack
from snapline.store.refs.layout import line_ref
from snapline.store.refs.reading import (
    LineSnapshot,
    list_lines,
    read_line,
    read_milestones,
    read_version,
)
from snapline.store.rows import StateRow

if TYPE_CHECKING:
    from snapline.store.refs.store import RefsStore

__all__ = ["catch_up", "find_main_line"]


def find_main_line(store: RefsStore) -> str | None:
    """The main line's id: the index's baseline's, else the one line that starts with one.

    ``None`` when the index is empty and no line, or more than one, starts with a baseline.

    Raises:
        DamagedLineError: If a line read to choose is damaged or crafted.
    """
    known = store.main_line()
    if known is not None:
        return known
    found = [line for line in sorted(list_lines(store.repo)) if _starts_a_history(store, line)]
    return found[0] if len(found) == 1 else None


def _starts_a_history(store: RefsStore, line: str) -> bool:
    snapshots = read_line(store.repo, line)
    return bool(snapshots) and snapshots[0].record.row.number == 0


def catch_up(store: RefsStore) -> int:
    """Add to the index the main line's snapshots and milestones it lacks; how many.

    Each one comes with its changes, the content of its whole versions (as blobs) and
    its effect on the known state, then the line's milestones the index lacks, in one
    index transaction that publishes nothing.

    Raises:
        DamagedLineError: If the line is damaged or crafted.
        LineMovedError: If the index holds a snapshot the line does not (the line was
            rewritten, or the index belongs to another history).
    """
    from snapline.store.refs.store import LineMovedError

    line = find_main_line(store)
    if line is None:
        return 0
    snapshots = read_line(store.repo, line)
    with store.index.write():
        latest = store.index.snapshots.latest_number()
        have = -1 if latest is None else latest
        if have >= 0:
            mine = store.index.snapshots.get(have)
            theirs = snapshots[have].record.row if have < len(snapshots) else None
            if mine is None or theirs is None or theirs.id != mine.id:
                raise LineMovedError(
                    line_ref(line), have, mine.id if mine else "", theirs.id if theirs else None
                )
        missing = snapshots[have + 1 :]
        for snapshot in missing:
            _add(store, snapshot)
        latest_milestone = store.index.milestones.latest()
        after = 0 if latest_milestone is None else latest_milestone.number
        milestones = [m for m in read_milestones(store.repo, line) if m.row.number > after]
        for milestone in milestones:
            store.index.milestones.insert(milestone.row)
    return len(missing) + len(milestones)


def _add(store: RefsStore, snapshot: LineSnapshot) -> None:
    index = store.index
    record = snapshot.record
    index.snapshots.insert(record.row, record.changes)
    upserts: dict[str, StateRow] = {}
    deletes: set[str] = set()
    for change in record.changes:
        if change.old_path is not None:
            deletes.add(change.old_path)
        if change.result_hash is None:
            deletes.add(change.path)
            continue
        size = change.size or 0
        upserts[change.path] = StateRow(
            change.path, change.result_hash, change.result_mode or 0o100644, size, change.snapshot
        )
        if change.content is not None and not index.blobs.has(change.content):
            data = read_version(store.repo, snapshot, change.path, change.content)
            index.blobs.put(change.content, len(data), pack(data))
    index.state.set(upserts.values(), deletes - set(upserts))
