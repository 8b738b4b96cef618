"""Listing and loading snapshots, and the known state, as the public records."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Unpack

from snapline.snapshots.read.history import SnapshotNotFoundError
from snapline.snapshots.read.reconstruct import Reconstructor
from snapline.store import StoreReader
from snapline.store.rows import SnapshotQuery

if TYPE_CHECKING:
    from snapline.snapshots.snapshot import Snapshot

__all__ = ["content_at", "known_hashes", "latest_number", "load_snapshot", "select_snapshots"]


def latest_number(store: StoreReader) -> int:
    """The number of the latest snapshot (0: only the baseline)."""
    number = store.snapshots.latest_number()
    return 0 if number is None else number


def select_snapshots(store: StoreReader, **query: Unpack[SnapshotQuery]) -> Iterator[Snapshot]:
    """Snapshots matching every filter of ``query``, in number order, without their diffs.

    Args:
        store: The open store.
        **query: The filters (``store.rows.SnapshotQuery``).

    Yields:
        The matching snapshots.
    """
    from snapline.snapshots.read.convert import to_snapshot  # models: only where read

    for row in store.snapshots.select(**query):
        yield to_snapshot(row, store.changes.of(row.number, deltas=False), store.path)


def load_snapshot(store: StoreReader, number: int) -> Snapshot:
    """One snapshot with its diffs.

    Raises:
        SnapshotNotFoundError: If there is no such snapshot.
    """
    from snapline.snapshots.read.convert import to_snapshot

    with store.read():
        row = store.snapshots.get(number)
        if row is None:
            raise SnapshotNotFoundError(number, latest_number(store))
        changes = store.changes.of(number, deltas=True)
        base_sizes = {}
        for change in changes:
            if change.forward is not None or change.reverse is not None:
                base_path = change.old_path or change.path
                before = store.changes.version_at(base_path, number - 1)
                base_sizes[base_path] = before.size if before and before.size else 0
        return to_snapshot(row, changes, store.path, base_sizes)


def content_at(
    store: StoreReader, reconstructor: Reconstructor, path: str, number: int | None
) -> bytes:
    """The bytes of ``path`` after snapshot ``number`` (``None``: the latest), hash-checked.

    Raises:
        NotInSnapshotError: If the file did not exist then.
        ContentUnavailableError: If that version was tracked by hash only.
        SnapshotNotFoundError: If there is no snapshot ``number``.
    """
    with store.read():
        latest = latest_number(store)
        at = latest if number is None else number
        if not 0 <= at <= latest:
            raise SnapshotNotFoundError(at, latest)
        return reconstructor.content_at(path, at)


def known_hashes(store: StoreReader) -> dict[str, str]:
    """Every tracked path with its content hash, sorted by path."""
    return {path: row.hash for path, row in sorted(store.state.get().items())}
