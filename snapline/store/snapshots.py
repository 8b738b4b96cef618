"""The ``snapshots`` table: one header row per recorded snapshot."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Unpack

from snapline.store.changes import ChangeTable
from snapline.store.connection import Connection, encode_path
from snapline.store.rows import ChangeRow, SnapshotQuery, SnapshotRow

__all__ = ["SnapshotTable"]

_BATCH = 500
"""Ids per query: well under SQLite's limit on bound parameters."""


class SnapshotTable:
    """Snapshot headers: read by number or filter, inserted with their changes."""

    def __init__(self, connection: Connection, changes: ChangeTable) -> None:
        """Bind the table to the store's connection.

        Args:
            connection: The connection every table of the store shares.
            changes: The change table, which :meth:`insert` fills too.
        """
        self._c = connection
        self._changes = changes

    def latest_number(self) -> int | None:
        """The highest snapshot number, or ``None`` when nothing is recorded."""
        rows = self._c.query("SELECT MAX(number) FROM snapshots")
        value = rows[0][0] if rows else None
        return None if value is None else int(value)

    def get(self, number: int) -> SnapshotRow | None:
        """The header of snapshot ``number``, or ``None`` when there is none.

        Args:
            number: The snapshot number.
        """
        rows = self._c.query("SELECT * FROM snapshots WHERE number = ?", (number,))
        return SnapshotRow(*rows[0]) if rows else None

    def with_id_prefix(self, prefix: str, limit: int) -> list[SnapshotRow]:
        """Up to ``limit`` headers whose id starts with ``prefix``, by number.

        Args:
            prefix: The first hex digits of an id (lowercase).
            limit: At most this many.
        """
        # Ids are not indexed: a scan of a text column, about a millisecond for ten
        # thousand snapshots, and asked only when a person names a snapshot by id.
        rows = self._c.query(
            "SELECT * FROM snapshots WHERE substr(id, 1, ?) = ? ORDER BY number LIMIT ?",
            (len(prefix), prefix, limit),
        )
        return [SnapshotRow(*row) for row in rows]

    def with_ids(self, ids: Collection[str]) -> list[SnapshotRow]:
        """The headers whose id is one of ``ids``, in number order.

        One pass over the table in SQLite per batch of ids, rather than every header
        turned into a row in Python: what a check of a few new snapshots asks about the
        ones before them (a parent's chain hash, an id used before).
        """
        unique = sorted(set(ids))
        found: list[SnapshotRow] = []
        for start in range(0, len(unique), _BATCH):
            batch = unique[start : start + _BATCH]
            marks = ",".join("?" * len(batch))
            sql = f"SELECT * FROM snapshots WHERE id IN ({marks})"
            found += [SnapshotRow(*row) for row in self._c.query(sql, batch)]
        return sorted(found, key=lambda row: row.number)

    def select(self, **query: Unpack[SnapshotQuery]) -> list[SnapshotRow]:
        """Snapshot headers matching every filter of ``query``, in number order."""
        path, limit = query.get("path"), query.get("limit")
        filters: list[tuple[str, object]] = [
            ("number >= ?", query.get("first")),
            ("number <= ?", query.get("last")),
            ("tool = ?", query.get("tool")),
            ("session = ?", query.get("session")),
            ("time >= ?", query.get("since")),
            ("time <= ?", query.get("until")),
        ]
        where = [clause for clause, value in filters if value is not None]
        params = [value for _clause, value in filters if value is not None]
        if path is not None:
            where.append("number IN (SELECT snapshot FROM changes WHERE path = ? OR old_path = ?)")
            params.extend([encode_path(path), encode_path(path)])
        sql = "SELECT * FROM snapshots"
        if where:
            sql += " WHERE " + " AND ".join(where)
        sql += " ORDER BY number" + (" DESC" if query.get("descending") else "")
        if limit is not None:
            sql += " LIMIT ?"
            params.append(limit)
        return [SnapshotRow(*row) for row in self._c.query(sql, params)]

    def insert(
        self,
        row: SnapshotRow,
        changes: Sequence[ChangeRow],
        contents: Mapping[str, bytes] | None = None,
    ) -> None:
        """Insert one snapshot with its changes; call inside ``write()``.

        Args:
            row: The header.
            changes: Its file changes.
            contents: Not kept: the index holds the versions as its changes and blobs say.

        Raises:
            RuntimeError: Outside a transaction.
        """
        self._c.require_transaction()
        self._c.db.execute(
            "INSERT INTO snapshots VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
            (
                row.number,
                row.id,
                row.parent_id,
                row.time,
                row.tool,
                row.description,
                row.session,
                row.metadata,
                row.skipped,
                row.version,
                row.chain_hash,
                row.merges,
            ),
        )
        self._changes.insert(changes)

    def seal(self, number: int, skipped: str, chain_hash: str) -> None:
        """Set what a snapshot inserted in this transaction learnt last (the baseline's).

        Args:
            number: The snapshot number.
            skipped: Its skipped paths, a JSON list.
            chain_hash: Its chain hash.

        Raises:
            RuntimeError: Outside a transaction.
        """
        self._c.require_transaction()
        self._c.db.execute(
            "UPDATE snapshots SET skipped = ?, chain_hash = ? WHERE number = ?",
            (skipped, chain_hash, number),
        )
