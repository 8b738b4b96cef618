"""Removing forgotten content from the ledger and the index: the one rewrite of history files.

What to forget is decided above the store (``snapline/snapshots/record/forget.py``);
this module carries it out on the files, in an order that keeps every step safe to
interrupt and to repeat:

1. the versions kept whole (later versions that were deltas on a forgotten one) are
   written as objects, so nothing after the forgotten content stops being rebuildable;
2. the forget record is written (``forgotten/<time>-<id>.forget``): from here on the
   act is on record, and running the same forget again finishes it;
3. each snapshot file holding a forgotten delta is rewritten with a tombstone in its
   place (``  forward forgotten sha256:<hex>``: the digest the chain hash covers, so
   the chain still verifies);
4. the forgotten objects are deleted;
5. the index is rebuilt from the ledger (the new record makes it differ), which drops
   the forgotten deltas and blobs, with SQLite's ``secure_delete`` on, then vacuumed
   and its write-ahead log truncated, so that no page of either file keeps the bytes.

The snapshot files' ``storage`` and ``content`` fields are covered by the chain hash and
stay as they were: a kept version is an object only, found by its content hash
(:class:`~snapline.snapshots.read.reconstruct.Reconstructor` ends a delta chain at any
version whose content is stored).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from snapline.content import MAX_DELTA_BYTES, tombstone, tombstone_digest, unpack
from snapline.crashpoints import crash_point
from snapline.store.errors import StoreCorruptError
from snapline.store.ledger.files import FORGOTTEN, SNAPSHOTS, LedgerFileError
from snapline.store.ledger.forget_format import ForgetRecord, forget_name, render_forget
from snapline.store.ledger.format import SnapshotRecord, render_snapshot, snapshot_name
from snapline.store.ledger.store import LedgerStore
from snapline.store.ledger.sync import read_snapshot
from snapline.store.rows import ChangeRow

__all__ = [
    "Direction",
    "KeptContent",
    "finish_forgets",
    "forget_in_ledger",
    "forgotten_in",
    "secure_index",
]

Direction = tuple[str, str]
"""A delta to forget: ``(path, "forward" | "reverse")``."""


@dataclass(frozen=True)
class KeptContent:
    """A version to store whole before the delta it was built on goes.

    Attributes:
        hash: Its content hash.
        size: Its size in bytes.
        packed: Its content, packed (:func:`snapline.content.pack`).
    """

    hash: str
    size: int
    packed: bytes


def forget_in_ledger(
    store: LedgerStore,
    record: ForgetRecord,
    record_id: str,
    deltas: Mapping[str, Iterable[Direction]],
    kept: Iterable[KeptContent],
) -> str:
    """Carry out a forget on the ledger and the index; call holding the writer lock.

    Args:
        store: The open store.
        record: What is forgotten, when and why.
        record_id: A fresh id (32 lowercase hex) for the record's file name.
        deltas: For each snapshot file (by name, on any line), the deltas to replace by
            tombstones.
        kept: Later versions to store whole first.

    Returns:
        The forget record's file name.

    Raises:
        StoreCorruptError: If a snapshot file to rewrite is damaged or missing.
        OSError: If the disk refuses; running the same forget again finishes it.
    """
    for content in kept:
        if not store.ledger.has_object(content.hash):
            store.ledger.write_object(content.hash, unpack(content.packed, limit=content.size))
    crash_point("forget-kept")
    name = forget_name(record.time, record_id)
    try:
        store.ledger.write_new(FORGOTTEN, name, render_forget(record))
    except LedgerFileError as error:
        raise StoreCorruptError(error.path, error.what) from None
    crash_point("forget-recorded")
    for snapshot, directions in sorted(deltas.items()):
        _rewrite_snapshot(store, snapshot, set(directions))
        crash_point("forget-rewritten")
    for hash_ in sorted({v.hash for v in record.forgot}):
        store.ledger.delete_object(hash_)
    crash_point("forget-objects-deleted")
    # The new record makes the index differ from the ledger: the rebuild drops the
    # forgotten rows, then cleans the index file (sync.catch_up, secure_index).
    store.refresh()
    return name


def secure_index(store: LedgerStore) -> None:
    """Leave no page of the index or its log holding forgotten bytes; outside ``write()``.

    Run after a rebuild that took in a forget (noted in the index, so that a process
    killed before this step has the next command run it).
    """
    # Deleted rows otherwise linger in free space inside the file's pages.
    store.index.connection.run("PRAGMA secure_delete = ON")
    store.vacuum()
    # VACUUM writes the new file through the write-ahead log; the old pages (with the
    # forgotten bytes) stay in the -wal file until a checkpoint truncates it.
    store.index.connection.run("PRAGMA wal_checkpoint(TRUNCATE)")
    with store.index.write():
        store.forget_cleanup.set(False)


def finish_forgets(
    store: LedgerStore, root: Path, records: Sequence[SnapshotRecord], names: Sequence[str]
) -> tuple[list[SnapshotRecord], bool, list[str]]:
    """Apply the forget records to every snapshot file of the ledger, on every line.

    A forget travels with the ledger: a branch that recorded on top of a version
    another branch forgot still holds its bytes (a reverse delta back to it, its
    object), and a forget killed midway left some files unrewritten. Each forward delta
    that produces a forgotten version and each reverse delta back to one becomes its
    tombstone (the chain still verifies), and each forgotten object goes. A version
    recorded as a delta on a forgotten one is first stored whole when the workspace
    still holds it (after a merge it usually does); otherwise it cannot be rebuilt any
    more, and says so (``ForgottenVersionError``), as the forgotten one does.

    Args:
        store: The open store.
        root: The workspace root (where a version to keep whole may still be).
        records: Every snapshot file, parsed.
        names: The forget records' file names.

    Returns:
        The records as they now are, whether the index must be cleaned afterwards (a
        file changed, or a forget record is new to the index), and the hashes of the
        versions just stored whole (their objects for the index to import).
    """
    from snapline.store.ledger.forgotten import read_forget

    forgets = [read_forget(store.ledger, name) for name in names]
    forgot = {(v.path, v.hash) for record in forgets for v in record.forgot}
    if not forgot:
        return list(records), False, []
    changed = not set(names) <= store.names.all()
    kept: list[str] = []
    result = []
    for record in records:
        changes = [forgotten_in(change, forgot) for change in record.changes]
        for before, after in zip(record.changes, changes, strict=True):
            if before.reverse != after.reverse and before.storage == "delta":
                kept += _keep_from_workspace(store, root, after)
        if changes != list(record.changes):
            name = snapshot_name(record.row.number, record.row.id)
            store.ledger.replace(SNAPSHOTS, name, render_snapshot(record.row, changes))
            record = record._replace(changes=tuple(changes))
            changed = True
        result.append(record)
    for hash_ in sorted({hash_ for _, hash_ in forgot}):
        changed = store.ledger.delete_object(hash_) or changed
    return result, changed, kept


def _keep_from_workspace(store: LedgerStore, root: Path, change: ChangeRow) -> list[str]:
    # The version after a forgotten one, built on it by a delta: kept whole as an object
    # when the workspace file still has it (a reader ends a delta chain at any version
    # whose content is stored).
    if change.result_hash is None:
        return []
    if store.ledger.has_object(change.result_hash):
        return [change.result_hash]
    try:
        data = (root / change.path).read_bytes()
    except OSError:
        return []
    if "sha256:" + hashlib.sha256(data).hexdigest() != change.result_hash:
        return []
    store.ledger.write_object(change.result_hash, data)
    return [change.result_hash]


def forgotten_in(change: ChangeRow, forgot: set[tuple[str, str]]) -> ChangeRow:
    """``change`` with each delta that rebuilds a forgotten version made its tombstone.

    Its forward delta when its result is a forgotten ``(path, hash)``, its reverse
    delta when its base is; the tombstone keeps the digest the chain hash covers.
    """
    forward, reverse = change.forward, change.reverse
    if change.result_hash is not None and (change.path, change.result_hash) in forgot:
        forward = _tombstone(forward)
    base_path = change.old_path or change.path
    if change.base_hash is not None and (base_path, change.base_hash) in forgot:
        reverse = _tombstone(reverse)
    return change._replace(forward=forward, reverse=reverse)


def _rewrite_snapshot(store: LedgerStore, name: str, directions: set[Direction]) -> None:
    record = read_snapshot(store.ledger, name)
    changes = [_tombstoned(change, directions) for change in record.changes]
    if changes == list(record.changes):
        return  # already rewritten (a forget run again)
    store.ledger.replace(SNAPSHOTS, name, render_snapshot(record.row, changes))


def _tombstoned(change: ChangeRow, directions: set[Direction]) -> ChangeRow:
    forward = change.forward
    reverse = change.reverse
    if (change.path, "forward") in directions:
        forward = _tombstone(forward)
    if (change.path, "reverse") in directions:
        reverse = _tombstone(reverse)
    return change._replace(forward=forward, reverse=reverse)


def _tombstone(packed: bytes | None) -> bytes | None:
    if packed is None or tombstone_digest(packed) is not None:
        return packed
    # The digest of the delta's text, as chain version 2 covers it.
    return tombstone(hashlib.sha256(unpack(packed, limit=MAX_DELTA_BYTES)).hexdigest())
