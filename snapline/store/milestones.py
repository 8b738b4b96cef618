"""The ``milestones`` table: titled, continuous ranges of snapshots."""

from __future__ import annotations

from snapline.store.rows import MilestoneRow
from snapline.store.table import Table

__all__ = ["MilestoneTable"]


class MilestoneTable(Table):
    """Milestones: read by number or by the snapshot they contain, inserted one by one."""

    def all(self) -> list[MilestoneRow]:
        """Every milestone, in number order."""
        return [
            MilestoneRow(*row) for row in self._c.query("SELECT * FROM milestones ORDER BY number")
        ]

    def get(self, number: int) -> MilestoneRow | None:
        """Milestone ``number``, or ``None`` when there is none.

        Args:
            number: The milestone number.
        """
        rows = self._c.query("SELECT * FROM milestones WHERE number = ?", (number,))
        return MilestoneRow(*rows[0]) if rows else None

    def latest(self) -> MilestoneRow | None:
        """The milestone with the highest number, or ``None`` when there is none."""
        rows = self._c.query("SELECT * FROM milestones ORDER BY number DESC LIMIT 1")
        return MilestoneRow(*rows[0]) if rows else None

    def containing(self, snapshot: int) -> MilestoneRow | None:
        """The (lowest-numbered) milestone whose range includes snapshot ``snapshot``.

        Args:
            snapshot: The snapshot number.
        """
        rows = self._c.query(
            "SELECT * FROM milestones WHERE first <= ? AND last >= ? ORDER BY number LIMIT 1",
            (snapshot, snapshot),
        )
        return MilestoneRow(*rows[0]) if rows else None

    def insert(self, row: MilestoneRow) -> None:
        """Insert one milestone; call inside ``write()``.

        Args:
            row: The milestone.

        Raises:
            RuntimeError: Outside a transaction.
        """
        self._c.require_transaction()
        # The row's fields are the table's columns, in order (as reading it back assumes).
        self._c.db.execute("INSERT INTO milestones VALUES (?,?,?,?,?,?,?,?,?)", row)
