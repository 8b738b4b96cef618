"""The ``forgotten`` table: versions whose content was forgotten (``snapline forget``).

Every store's index has it; a store without a history beside it (a 0.1 store) keeps it
empty.
"""

from __future__ import annotations

from collections.abc import Iterable

from snapline.store.connection import encode_path
from snapline.store.rows import ForgottenRow
from snapline.store.table import Table

__all__ = ["ForgottenTable"]


class ForgottenTable(Table):
    """Versions whose content was forgotten: rebuilding them says so."""

    def get(self, path: str, hash_: str) -> ForgottenRow | None:
        """The version ``hash_`` of ``path`` if it was forgotten, else ``None``."""
        rows = self._c.query(
            "SELECT snapshot, time, reason FROM forgotten WHERE path = ? AND hash = ?",
            (encode_path(path), hash_),
        )
        if not rows:
            return None
        snapshot, time, reason = rows[0]
        return ForgottenRow(path, hash_, int(snapshot), str(time), str(reason))

    def hashes(self) -> set[str]:
        """The hash of every forgotten version."""
        return {str(row[0]) for row in self._c.query("SELECT hash FROM forgotten")}

    def add(self, versions: Iterable[ForgottenRow]) -> None:
        """Record versions as forgotten; call inside ``write()``. The first record stays."""
        self._c.require_transaction()
        self._c.db.executemany(
            "INSERT OR IGNORE INTO forgotten(path, hash, snapshot, time, reason) "
            "VALUES (?, ?, ?, ?, ?)",
            [(encode_path(r.path), r.hash, r.snapshot, r.time, r.reason) for r in versions],
        )
