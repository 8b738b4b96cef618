"""What an in-tree ledger hands ``snapline upgrade`` to put on git's refs, and its index.

The snapshots of every line the ledger holds (its main line in order, then each side
line from where it left the main line), each with its changes and its ledger file's
own bytes (which become the refs commit's ``record`` unchanged: every reader of the
ledger format reads it there); the main line's milestones with their last snapshot's
id. And the refs store's index, made from the ledger's: a copy (SQLite's backup API)
that also holds the baseline's content, which the ledger leaves in the work tree and in
``HEAD`` (:mod:`snapline.store.ledger.baseline`) and the refs store keeps itself.
"""

from __future__ import annotations

import os
from pathlib import Path

from snapline.content import pack
from snapline.store.ledger.files import SNAPSHOTS
from snapline.store.ledger.forgetting import forgotten_in
from snapline.store.ledger.format import parse_snapshot, render_snapshot, snapshot_name
from snapline.store.ledger.store import LedgerStore
from snapline.store.migrate import copy_store
from snapline.store.refs.moving import MovedSnapshot
from snapline.store.rows import MilestoneRow, SnapshotRow
from snapline.store.sqlite import SqliteStore

__all__ = [
    "copy_index",
    "ledger_milestones",
    "ledger_other_milestones",
    "ledger_records",
    "ledger_snapshots",
]

# A record lists every file of its snapshot; a baseline's of a large tree is large.
_RECORD_LIMIT = 1 << 31


def ledger_snapshots(store: LedgerStore) -> list[MovedSnapshot]:
    """Every snapshot of the ledger: the main line in order, then the side lines.

    Call holding the writer lock (nothing changes the ledger meanwhile).

    Raises:
        StoreCorruptError: If a snapshot file does not hold what the index lists.
    """
    from snapline.store.errors import StoreCorruptError

    found: list[MovedSnapshot] = []
    listed = store.index.connection.query("SELECT path, hash FROM forgotten")
    forgot: set[tuple[str, str]] = {(path, hash_) for path, hash_ in listed}
    latest = store.index.snapshots.latest_number()
    for number in range(0 if latest is None else latest + 1):
        row = store.index.snapshots.get(number)
        if row is None:
            raise StoreCorruptError(store.path, f"snapshot {number} is missing from the index")
        changes = store.index.changes.of(number, deltas=True)
        found.append(MovedSnapshot(row, changes, _record(store, row, forgot), main=True))
    side = store.side_snapshots()
    parents = {row.parent_id for row in side}
    seen: set[str] = set()
    for head in (row for row in side if row.id not in parents):
        for row, changes in store.side_line(head.id):
            if row.id not in seen:
                seen.add(row.id)
                found.append(MovedSnapshot(row, changes, _record(store, row, forgot), main=False))
    return found


def _record(store: LedgerStore, row: SnapshotRow, forgot: set[tuple[str, str]]) -> bytes:
    """The snapshot's ledger file, checked to be that snapshot, with ``forgot``'s tombstones.

    A file that still holds a delta of forgotten content (a branch that never took the
    forget in; the ledger is not rewritten) goes onto the refs with that delta made its
    tombstone, as the index holds it: a forgotten secret is never copied there.
    """
    from snapline.store.errors import StoreCorruptError

    name = snapshot_name(row.number, row.id)
    data = store.ledger.read(SNAPSHOTS, name, _RECORD_LIMIT)
    parsed = parse_snapshot(data)
    found = parsed.row
    if (found.id, found.number, found.chain_hash) != (row.id, row.number, row.chain_hash):
        raise StoreCorruptError(store.ledger.file(SNAPSHOTS, name), "it is not the snapshot listed")
    changes = [forgotten_in(change, forgot) for change in parsed.changes]
    if forgot and changes != list(parsed.changes):
        return render_snapshot(found, changes)
    return data


def ledger_milestones(store: LedgerStore) -> list[tuple[MilestoneRow, str]]:
    """The main line's milestones, in order, each with the id of its last snapshot."""
    found = []
    for milestone in store.index.milestones.all():
        last = store.index.snapshots.get(milestone.last)
        assert last is not None, "a milestone's last snapshot is on the main line"
        found.append((milestone, last.id))
    return found


def ledger_other_milestones(store: LedgerStore) -> list[tuple[MilestoneRow, str]]:
    """The milestones closed on other lines (files the main line does not hold)."""
    found = []
    for entry in store.other_milestones():
        if entry.milestone is not None and entry.last_id is not None:
            found.append((entry.milestone, entry.last_id))
    return found


def ledger_records(store: LedgerStore, kind: str) -> list[tuple[str, bytes]]:
    """Every file of one kind of the ledger (``checks``, ``forgotten``): name and bytes."""
    return [
        (name, store.ledger.read(kind, name, _RECORD_LIMIT)) for name in store.ledger.names(kind)
    ]


def copy_index(store: LedgerStore, target: Path, timeout: float) -> SqliteStore:
    """The ledger's index copied to ``target``, with the baseline's content in it; opened.

    Args:
        store: The open ledger store (its writer lock held).
        target: The new file (a staging name); a leftover there is replaced.
        timeout: Seconds to wait for SQLite's locks.

    Raises:
        StoreCorruptError: If the index cannot be copied.
    """
    for suffix in ("", "-wal", "-shm", "-journal"):
        if os.path.lexists(f"{target}{suffix}"):
            os.unlink(f"{target}{suffix}")
    copy_store(store.index.path, target, timeout)
    index = SqliteStore.open(target, busy_timeout=timeout)
    baseline = index.changes.of(0) if index.snapshots.get(0) is not None else []
    with index.write():
        for change in baseline:
            if change.content is None or change.result_hash is None:
                continue
            if index.blobs.has(change.content):
                continue
            data = store.baseline_content(change.path, change.result_hash, change.size or 0)
            if data is not None:
                index.blobs.put(change.content, len(data), pack(data))
    return index
