"""What an index transaction adds, noted so a store can publish it before it commits.

A store over an index (:class:`~snapline.store.indexed.IndexedStore`: the ledger store,
the refs store) hands the domain these in place of the index's snapshot and milestone
tables: they insert as the tables do and note the numbers, which the store publishes
(ledger files, commits on a line's ref) just before the transaction commits.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from snapline.store.milestones import MilestoneTable
from snapline.store.rows import ChangeRow, MilestoneRow, SnapshotRow
from snapline.store.snapshots import SnapshotTable

if TYPE_CHECKING:
    from snapline.store.sqlite import SqliteStore

__all__ = ["Pending", "PublishingMilestones", "PublishingSnapshots"]


class Pending:
    """What the open transaction added, to publish before it commits."""

    def __init__(self) -> None:
        self.snapshots: list[int] = []
        self.milestones: list[int] = []
        self.contents: dict[str, bytes] = {}
        # A store that writes contents into git's objects as it stores them (the refs
        # store's blobs) notes their ids here: publishing names them unread.
        self.written: dict[str, str] = {}

    def clear(self) -> None:
        """Forget what was noted (the transaction ended)."""
        self.snapshots.clear()
        self.milestones.clear()
        self.contents.clear()
        self.written.clear()

    def at_hand(self) -> tuple[dict[str, bytes], dict[str, str]]:
        """What a publisher takes as it is: new versions' bytes, and git blobs written."""
        return self.contents, self.written

    def __bool__(self) -> bool:
        return bool(self.snapshots or self.milestones)


class PublishingSnapshots(SnapshotTable):
    """The index's snapshot table, noting what is inserted so it can be published.

    Args:
        index: The open index, whose connection and change table it shares.
        pending: Where the open transaction's additions are noted.
    """

    def __init__(self, index: SqliteStore, pending: Pending) -> None:
        super().__init__(index.connection, index.changes)
        self._pending = pending

    def insert(
        self,
        row: SnapshotRow,
        changes: Sequence[ChangeRow],
        contents: Mapping[str, bytes] | None = None,
    ) -> None:
        """Insert one snapshot with its changes; it is published when the write commits.

        ``contents`` (new versions by SHA-256) are kept for the publisher until then.
        """
        super().insert(row, changes)
        self._pending.snapshots.append(row.number)
        if contents:
            self._pending.contents.update(contents)


class PublishingMilestones(MilestoneTable):
    """The index's milestone table, noting what is inserted so it can be published.

    Args:
        index: The open index, whose connection it shares.
        pending: Where the open transaction's additions are noted.
    """

    def __init__(self, index: SqliteStore, pending: Pending) -> None:
        super().__init__(index.connection)
        self._pending = pending

    def insert(self, row: MilestoneRow) -> None:
        """Insert one milestone; it is published when the write commits."""
        super().insert(row)
        self._pending.milestones.append(row.number)
