"""Snapshot files a branch switch left behind: recorded on a branch, never committed.

See docs/format.md, "Orphaned snapshot files".
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from snapline.store.ledger.format import SnapshotRecord, snapshot_name
from snapline.store.ledger.gitview import untracked_snapshot_files

__all__ = ["find_orphans"]


def find_orphans(records: Sequence[SnapshotRecord], root: Path) -> dict[str, SnapshotRecord]:
    """Snapshot files a branch switch left behind, by id; empty when there are none.

    A snapshot recorded on a branch and not committed stays in the work tree, untracked,
    when git checks out another branch; its parent (committed on that branch) does not.
    Snapshots whose chain of parents breaks are orphans when git tracks the ledger and
    every one of them is untracked; otherwise a missing parent is damage, which
    :func:`split_lines` names (exit 3).
    """
    by_id = {record.row.id: record for record in records}
    rooted: dict[str, bool] = {}

    def reaches_baseline(record: SnapshotRecord) -> bool:
        walked = []
        current: SnapshotRecord | None = record
        while current is not None and current.row.id not in rooted and current.row.number:
            walked.append(current.row.id)
            parent = by_id.get(current.row.parent_id or "")
            # Numbers fall by one along parents; a crafted loop stops here (and
            # split_lines names it).
            current = (
                parent if parent is not None and parent.row.number < current.row.number else None
            )
        ok = current is not None and rooted.get(current.row.id, current.row.number == 0)
        rooted.update(dict.fromkeys(walked, ok))
        return ok

    broken = {r.row.id: r for r in records if not reaches_baseline(r)}
    if not broken:
        return {}
    untracked = untracked_snapshot_files(root)
    names = {snapshot_name(r.row.number, r.row.id) for r in broken.values()}
    if untracked is None or not names <= untracked:
        return {}
    return broken
