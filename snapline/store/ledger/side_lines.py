"""The snapshots of other lines as their ledger files hold them: ids, and whole records.

The index lists side snapshots by their headers only (``side_snapshots``); their changes
stay in their files, read here when a command names one of them (``show``, ``diff``,
``rollback`` to a snapshot of a joined line, docs/format.md "Lines and merges").
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from snapline.store.rows import ChangeRow, SnapshotRow

if TYPE_CHECKING:
    from snapline.store.ledger.store import LedgerStore

__all__ = ["read_side_line"]


def read_side_line(store: LedgerStore, id_: str) -> list[tuple[SnapshotRow, list[ChangeRow]]]:
    """The side snapshots from where ``id_``'s line left the main line to ``id_``, oldest first.

    Each with its changes, deltas packed as the index packs a main-line change's;
    ``[]`` when ``id_`` is not a side snapshot.

    Raises:
        StoreCorruptError: If one of those files is damaged (it is named), or holds
            another snapshot than the index lists.
    """
    from snapline.store.errors import StoreCorruptError
    from snapline.store.ledger.files import SNAPSHOTS
    from snapline.store.ledger.format import snapshot_name
    from snapline.store.ledger.sync import read_snapshot  # sync imports the store

    by_id = {row.id: row for row in store.side.all()}
    walked = []
    current = by_id.get(id_)
    while current is not None:
        walked.append(current)
        current = by_id.get(current.parent_id or "")
    records = []
    for side in reversed(walked):
        name = snapshot_name(side.number, side.id)
        # Kept for the next reader: a page or a diff reads one line once per snapshot
        # on it, and an unchanged file (same lstat stamp) is not parsed again.
        record = read_snapshot(store.ledger, name, keep=True)
        if record.row.parent_id != side.parent_id:
            # The index was built from other files: never mix the two.
            raise StoreCorruptError(
                store.ledger.file(SNAPSHOTS, name), "its parent is not the one the index lists"
            )
        records.append((record.row, list(record.changes)))
    return records
