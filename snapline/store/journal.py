"""The ``journal`` table: workspace changes under way, finished or undone on open."""

from __future__ import annotations

from snapline.store.rows import JournalRow
from snapline.store.table import Table

__all__ = ["JournalTable"]


class JournalTable(Table):
    """Journal entries: added before work on the workspace, deleted once it is done."""

    def entries(self) -> list[JournalRow]:
        """Every entry, oldest first."""
        return [JournalRow(*row) for row in self._c.query("SELECT * FROM journal ORDER BY id")]

    def add(self, op: str, created: str, payload: str) -> int:
        """Add one entry; call inside ``write()``.

        Args:
            op: The operation.
            created: When (ISO 8601, UTC).
            payload: What to finish or undo, as JSON.

        Returns:
            The new entry's id.

        Raises:
            RuntimeError: Outside a transaction.
        """
        self._c.require_transaction()
        cursor = self._c.db.execute(
            "INSERT INTO journal(op, created, payload) VALUES (?, ?, ?)", (op, created, payload)
        )
        return int(cursor.lastrowid or 0)

    def delete(self, entry_id: int) -> None:
        """Delete one entry (absent ones are ignored); call inside ``write()``.

        Args:
            entry_id: Its id.

        Raises:
            RuntimeError: Outside a transaction.
        """
        self._c.require_transaction()
        self._c.db.execute("DELETE FROM journal WHERE id = ?", (entry_id,))
