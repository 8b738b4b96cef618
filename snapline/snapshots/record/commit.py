"""Appending a snapshot: number, link, chain hash, content and known state in one transaction."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from datetime import datetime, timezone
from typing import TYPE_CHECKING

from snapline.paths import check_recorded
from snapline.scanning import Skipped
from snapline.snapshots.check.chain import GENESIS, chain_hash
from snapline.snapshots.info_fields import InfoFields
from snapline.snapshots.kinds import SNAPSHOT_VERSION
from snapline.snapshots.record.build import Prepared
from snapline.store import ChangeRow, SnapshotRow, StoreCorruptError, state_moves

if TYPE_CHECKING:
    from snapline.store import Store

__all__ = ["append_snapshot", "check_parent", "header_row", "new_id", "now_iso", "skipped_json"]


def now_iso() -> str:
    """The time now, as snapshots store it: UTC ISO 8601 with microseconds."""
    return datetime.now(timezone.utc).isoformat(timespec="microseconds")


def append_snapshot(
    store: Store,
    info: InfoFields,
    prepared: Prepared,
    skipped: Sequence[Skipped] = (),
    *,
    trusted: set[str] | None = None,
    merges: Sequence[str] = (),
) -> tuple[SnapshotRow, list[ChangeRow]]:
    """Append one snapshot on top of the latest; call inside ``store.write()``.

    The number is one past the latest (0 for the baseline), the parent is the latest
    snapshot's id, and the chain hash covers the latest one's. The known state moves to
    the results of ``prepared.changes``.

    Args:
        store: The open store.
        info: What the caller says about the snapshot.
        prepared: Its change rows and the blobs they need.
        skipped: Paths the recording did not capture.
        trusted: Chain hashes already checked by :func:`check_parent` (kept by the
            caller across appends, so each snapshot is checked once per process).
        merges: The ids of the heads of the other lines this snapshot joins.

    Returns:
        The inserted header row and change rows.

    Raises:
        StoreCorruptError: If the latest snapshot does not match its chain hash.
    """
    latest = store.snapshots.latest_number()
    parent = store.snapshots.get(latest) if latest is not None else None
    if parent is not None:
        check_parent(store, parent, set() if trusted is None else trusted)
    number = 0 if latest is None else latest + 1
    row = header_row(number, parent, info, [*skipped, *prepared.skipped])
    if merges:
        row = row._replace(merges=json.dumps(list(merges)))
    # Rows usually arrive unnumbered (-1); the baseline's are built as snapshot 0, and
    # copying 100k rows just to stamp the same number again costs seconds.
    changes = [c if c.snapshot == number else c._replace(snapshot=number) for c in prepared.changes]
    previous_chain = parent.chain_hash if parent else GENESIS
    row = row._replace(chain_hash=chain_hash(previous_chain, row, changes))
    for hash_, (size, packed) in prepared.blobs.items():
        store.blobs.put(hash_, size, packed)
    store.snapshots.insert(row, changes, prepared.contents)
    store.state.set(*state_moves(number, changes))
    if trusted is not None:
        trusted.add(row.chain_hash)
    return row, changes


def new_id() -> str:
    """A random snapshot id: a version 4 UUID (RFC 4122) as 32 hex digits.

    What ``uuid.uuid4().hex`` gives, without importing ``uuid`` (which imports
    ``platform``) into every process that records.
    """
    value = int.from_bytes(os.urandom(16), "big")
    value = (value & ~(0xF000 << 64)) | (0x4000 << 64)  # version 4
    value = (value & ~(0xC000 << 48)) | (0x8000 << 48)  # variant RFC 4122
    return f"{value:032x}"


def header_row(
    number: int, parent: SnapshotRow | None, info: InfoFields, skipped: Sequence[Skipped]
) -> SnapshotRow:
    """A new snapshot's row, with a fresh id and the time now; its chain hash is not set."""
    return SnapshotRow(
        number=number,
        id=new_id(),
        parent_id=parent.id if parent else None,
        time=now_iso(),
        tool=info.tool,
        description=info.description,
        session=info.session,
        metadata=json.dumps(info.metadata, sort_keys=True, separators=(",", ":")),
        skipped=skipped_json(skipped),
        version=SNAPSHOT_VERSION,
        chain_hash="",
    )


def skipped_json(skipped: Sequence[Skipped]) -> str:
    """How a snapshot row stores the paths its recording left out."""
    return json.dumps([[s.path, s.reason] for s in skipped], separators=(",", ":"))


def check_parent(store: Store, parent: SnapshotRow, trusted: set[str]) -> None:
    """Refuse to build on a latest snapshot that was edited after it was recorded.

    Writing on top of a damaged history would seal the damage under a new, valid-looking
    chain hash. Checking the whole chain before every write would cost time in
    proportion to the history (``validate()`` does that, for ``snapline verify``), so
    writers check only what they build on: the latest snapshot against its own parent's
    chain hash, once per process (``trusted``). That catches a hand-edited tip, the
    most likely target of an edit meant to pass unnoticed, and a crafted one naming an
    unsafe path, at the cost of reading one snapshot; older damage is found by
    ``verify``.

    Raises:
        StoreCorruptError: If ``parent`` does not match its chain hash or link.
        UnsafeRecordError: If it records a path that is not safe to use.
    """
    if parent.chain_hash in trusted:
        return
    grandparent = store.snapshots.get(parent.number - 1) if parent.number > 0 else None
    if parent.number > 0 and (grandparent is None or parent.parent_id != grandparent.id):
        raise StoreCorruptError(
            store.path,
            f"snapshot {parent.number} does not link to snapshot {parent.number - 1}; "
            "run `snapline verify`",
        )
    previous = grandparent.chain_hash if grandparent is not None else GENESIS
    changes = store.changes.of(parent.number, deltas=True)
    for change in changes:
        # A crafted store can reseal its chain; its paths it cannot make safe.
        check_recorded(change.path)
        if change.old_path is not None:
            check_recorded(change.old_path)
    if chain_hash(previous, parent, changes) != parent.chain_hash:
        raise StoreCorruptError(
            store.path,
            f"snapshot {parent.number} does not match its chain hash: it was edited after "
            "it was recorded, so nothing is recorded on top of it; run `snapline verify`",
        )
    trusted.add(parent.chain_hash)
