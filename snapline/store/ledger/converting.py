"""The one writer of ledger files left: a 0.1 store converted to the ledger, on its first open.

A snapline 0.1 store (``store.db``) reaches git's refs in two steps: it is converted to
the ledger (:mod:`snapline.upgrade`), then ``snapline upgrade`` moves that ledger (as
any in-tree ledger) onto the refs. This module is the first step's last part: with the
converted rows in the staging index, it writes every snapshot file, the objects their
diffs cannot carry and every milestone file into the staging ledger, as the 0.2 code
published them, and lists them in the index. Nothing else writes a ledger any more: a
checkout whose history is a ledger refuses every write (``InTreeLedgerError``).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Sequence

from snapline.content import unpack
from snapline.store.errors import StoreCorruptError
from snapline.store.ledger.files import MILESTONES, SNAPSHOTS, Ledger
from snapline.store.ledger.format import (
    milestone_name,
    render_milestone,
    render_snapshot_parts,
    snapshot_name,
)
from snapline.store.ledger.tables import LedgerNameTable
from snapline.store.rows import ChangeRow
from snapline.store.sqlite import SqliteStore

__all__ = ["write_ledger"]


def write_ledger(index: SqliteStore, ledger: Ledger) -> None:
    """Write the ledger files of every snapshot and milestone ``index`` holds.

    Args:
        index: The converted index (its writer lock held); it lists the files written.
        ledger: The staging ledger, started (``FORMAT``, ``config.json``) and empty.

    Raises:
        StoreCorruptError: If a milestone ends at a snapshot the index lacks.
        OSError: If the disk refuses (the staging ledger is then removed by the caller).
    """
    names = []
    latest = index.snapshots.latest_number()
    for number in range(0 if latest is None else latest + 1):
        row = index.snapshots.get(number)
        assert row is not None, "the conversion checked the sequence"
        # Streamed from the index into the file: a baseline's rows and its text held at
        # once were three quarters of init's peak at 100,000 files.
        name = snapshot_name(number, row.id)
        with contextlib.closing(index.changes.stream_of(number)) as stream:
            changes: Iterable[ChangeRow] = stream
            if number > 0:
                changes = list(stream)
                _write_objects(index, ledger, number, changes)
            ledger.write_new(SNAPSHOTS, name, render_snapshot_parts(row, changes))
        names.append(name)
    for milestone in index.milestones.all():
        last = index.snapshots.get(milestone.last)
        if last is None:
            raise StoreCorruptError(ledger.path, f"milestone {milestone.number} ends nowhere")
        data = render_milestone(milestone, last.id)
        name = milestone_name(milestone.number, data)
        ledger.write_new(MILESTONES, name, data)
        names.append(name)
    with index.write():
        LedgerNameTable(index.connection).add(names)


def _write_objects(
    index: SqliteStore, ledger: Ledger, number: int, changes: Sequence[ChangeRow]
) -> None:
    """Give the ledger the content the snapshot's diffs cannot carry.

    A version stored in full becomes an object. The ledger keeps no baseline content
    (the workspace holds it): when a snapshot changes a file still at its baseline
    version, that version becomes an object then, so it stays rebuildable.
    """
    for change in changes:
        if change.content is not None and change.size is not None:
            _copy_blob(index, ledger, change.content, change.size)
        if change.base_hash is None:
            continue
        lineage = change.old_path or change.path
        base = index.changes.version_at(lineage, number - 1)
        if (
            base is not None
            and base.snapshot == 0
            and base.path == lineage
            and base.content == change.base_hash
            and base.size is not None
        ):
            _copy_blob(index, ledger, base.content, base.size)


def _copy_blob(index: SqliteStore, ledger: Ledger, hash_: str, size: int) -> None:
    # A 0.1 store holds every version's content, the baseline's too.
    packed = index.blobs.get(hash_)
    if packed is not None and not ledger.has_object(hash_):
        ledger.write_object(hash_, unpack(packed, limit=size))
