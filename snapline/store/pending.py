"""What an index transaction adds, noted so a store can publish it before it commits.

A store over an index (:class:`~snapline.store.indexed.IndexedStore`: the ledger store,
the refs store) hands the domain these in place of the index's snapshot and milestone
tables: they insert as the tables do and note the numbers, which the store publishes
(ledger files, commits on a line's ref) just before the transaction commits.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from snapline.store.milestones import MilestoneTable
from snapline.store.rows import ChangeRow, MilestoneRow, SnapshotRow
from snapline.store.snapshots import SnapshotTable

__all__ = ["Pending", "PublishingMilestones", "PublishingSnapshots"]


class Pending:
    """What the open transaction added, to publish before it commits."""

    def __init__(self) -> None:
        self.snapshots: list[int] = []
        self.milestones: list[int] = []
        self.contents: dict[str, bytes] = {}

    def clear(self) -> None:
        """Forget what was noted (the transaction ended)."""
        self.snapshots.clear()
        self.milestones.clear()
        self.contents.clear()

    def __bool__(self) -> bool:
        return bool(self.snapshots or self.milestones)


class PublishingSnapshots:
    """The index's snapshot table, noting what is inserted so it can be published."""

    def __init__(self, table: SnapshotTable, pending: Pending) -> None:
        self._table = table
        self._pending = pending
        self.latest_number = table.latest_number
        self.get = table.get
        self.select = table.select
        self.with_ids = table.with_ids
        self.with_id_prefix = table.with_id_prefix
        self.seal = table.seal

    def insert(
        self,
        row: SnapshotRow,
        changes: Sequence[ChangeRow],
        contents: Mapping[str, bytes] | None = None,
    ) -> None:
        """Insert one snapshot with its changes; it is published when the write commits.

        ``contents`` (new versions by SHA-256) are kept for the publisher until then.
        """
        self._table.insert(row, changes)
        self._pending.snapshots.append(row.number)
        if contents:
            self._pending.contents.update(contents)


class PublishingMilestones:
    """The index's milestone table, noting what is inserted so it can be published."""

    def __init__(self, table: MilestoneTable, pending: Pending) -> None:
        self._table = table
        self._pending = pending
        self.all = table.all
        self.get = table.get
        self.latest = table.latest
        self.containing = table.containing

    def insert(self, row: MilestoneRow) -> None:
        """Insert one milestone; it is published when the write commits."""
        self._table.insert(row)
        self._pending.milestones.append(row.number)
