"""Forgotten content in a ledger read as it is: tombstones in the index, never in the files.

A forget (``forgotten/<time>-<id>.forget``) travels with the ledger: a branch that
recorded on top of a version another branch forgot, or a forget a killed 0.2 process
left half done, holds snapshot files whose deltas still rebuild a forgotten version.
This snapline writes no ledger file, so those files stay as git has them; what it reads
of them is the forget applied: the index takes each such delta as its tombstone (the
digest the chain hash covers, so the chain still verifies), its blobs lose the forgotten
content, and :func:`secure_index` leaves no page of the index file holding it.
``snapline upgrade`` carries the tombstones onto the refs (``moving_out.py``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from snapline.content import MAX_DELTA_BYTES, tombstone, tombstone_digest, unpack
from snapline.store.ledger.format import SnapshotRecord
from snapline.store.ledger.store import LedgerStore
from snapline.store.rows import ChangeRow

__all__ = ["finish_forgets", "forgotten_in", "secure_index"]


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
    store: LedgerStore, records: Sequence[SnapshotRecord], names: Sequence[str]
) -> tuple[list[SnapshotRecord], bool]:
    """The snapshot records as the index takes them: every forget record applied.

    Each forward delta that produces a forgotten version and each reverse delta back to
    one becomes its tombstone, in the records returned only (the files are not touched).
    A version recorded as a delta on a forgotten one cannot be rebuilt any more, and
    says so (``ForgottenVersionError``), as the forgotten one does.

    Args:
        store: The open store.
        records: Every snapshot file, parsed.
        names: The forget records' file names.

    Returns:
        The records with tombstones, and whether the index must be cleaned afterwards
        (a delta became a tombstone, or a forget record is new to the index).
    """
    from snapline.store.ledger.forgotten import read_forget

    forgets = [read_forget(store.ledger, name) for name in names]
    forgot = {(v.path, v.hash) for record in forgets for v in record.forgot}
    if not forgot:
        return list(records), False
    changed = not set(names) <= store.names.all()
    result = []
    for record in records:
        changes = tuple(forgotten_in(change, forgot) for change in record.changes)
        if changes != record.changes:
            record = record._replace(changes=changes)
            changed = True
        result.append(record)
    return result, changed


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


def _tombstone(packed: bytes | None) -> bytes | None:
    if packed is None or tombstone_digest(packed) is not None:
        return packed
    # The digest of the delta's text, as chain version 2 covers it.
    return tombstone(hashlib.sha256(unpack(packed, limit=MAX_DELTA_BYTES)).hexdigest())
