"""The ``changes`` table: one row per file a snapshot changed, with its deltas."""

from __future__ import annotations

import heapq
from collections.abc import Generator, Iterable, Iterator, Sequence
from operator import attrgetter
from typing import Any

from snapline.store.connection import decode_path, encode_path
from snapline.store.rows import ChangeRow
from snapline.store.table import Table

__all__ = ["ChangeTable"]

_COLUMNS = (
    "snapshot, path, kind, old_path, base_hash, result_hash, base_mode, result_mode, size, "
    "storage, forward, reverse, content, chain, chain_bytes"
)
# The same row without its deltas, which are most of its bytes.
_NO_DELTAS = (
    "snapshot, path, kind, old_path, base_hash, result_hash, base_mode, result_mode, size, "
    "storage, NULL, NULL, content, chain, chain_bytes"
)

_PATH = attrgetter("path")
_FEW_SNAPSHOTS = 64
"""Below this many snapshots ``touched`` reads their rows, else the index of paths."""


def _row(values: Sequence[Any]) -> ChangeRow:
    row = list(values)
    row[1] = decode_path(row[1])
    row[3] = decode_path(row[3])
    return ChangeRow(*row)


class ChangeTable(Table):
    """File changes: read by snapshot, range or path, inserted with their snapshot."""

    def of(self, snapshot: int, *, deltas: bool = True) -> list[ChangeRow]:
        """The file changes of one snapshot, ordered by path.

        Args:
            snapshot: The snapshot number.
            deltas: Load the forward and reverse deltas too (else they are ``None``).
        """
        columns = _COLUMNS if deltas else _NO_DELTAS
        rows = self._c.query(
            f"SELECT {columns} FROM changes WHERE snapshot = ? ORDER BY path", (snapshot,)
        )
        return [_row(row) for row in rows]

    def stream_of(self, snapshot: int) -> Generator[ChangeRow, None, None]:
        """The file changes of one snapshot with their deltas, streamed in path order.

        The order is Python's order of the paths, the ledger's. SQLite's differs only
        for a path that is not UTF-8, kept as bytes, which it sorts after every text:
        those few are read first, sorted, and merged into the stream of the others.

        Args:
            snapshot: The snapshot number.

        Yields:
            The change rows, as they are fetched (close the generator when stopping early).
        """
        # X'' is the least BLOB and above every TEXT: both halves are ranges of the
        # primary key.
        query = f"SELECT {_COLUMNS} FROM changes WHERE snapshot = ? AND path {{}} X'' ORDER BY path"
        others = sorted(map(_row, self._c.query(query.format(">="), (snapshot,))), key=_PATH)
        texts = map(_row, self._c.stream(query.format("<"), (snapshot,)))
        yield from heapq.merge(texts, others, key=_PATH)

    def totals(self, snapshot: int) -> tuple[int, int]:
        """How many files one snapshot changed, and the sum of their recorded sizes.

        Counted by SQLite: what ``init`` reports of a baseline of 100,000 files, without
        a row of it in memory.
        """
        rows = self._c.query(
            "SELECT COUNT(*), COALESCE(SUM(size), 0) FROM changes WHERE snapshot = ?",
            (snapshot,),
        )
        return int(rows[0][0]), int(rows[0][1])

    def paths(self, first: int, last: int) -> list[tuple[int, str, str | None]]:
        """``(snapshot, path, old path)`` of every change of snapshots ``first..last``.

        What a listing needs to count each snapshot's files and check the paths it
        records, without the rest of the rows. In (snapshot, path) order.

        Args:
            first: The first snapshot number.
            last: The last snapshot number (included).
        """
        rows = self._c.query(
            "SELECT snapshot, path, old_path FROM changes WHERE snapshot BETWEEN ? AND ? "
            "ORDER BY snapshot, path",
            (first, last),
        )
        return [(number, decode_path(path), decode_path(old)) for number, path, old in rows]

    def touched(self, first: int, last: int) -> set[str]:
        """Every path a change of snapshots ``first..last`` made, changed or moved away.

        Each path once, as SQLite finds them: what ``paths`` gives, without a row per
        change (a rollback across 1,000 snapshots read every change since its target,
        and each rollback since added 100 more: row R5).

        Args:
            first: The first snapshot number.
            last: The last snapshot number (included).
        """
        if last - first < _FEW_SNAPSHOTS:
            # Few snapshots: their rows by the primary key, fewer than the index holds.
            query = "SELECT path FROM changes WHERE snapshot BETWEEN ?1 AND ?2"
        else:
            # The rows hold the deltas: reading each since ``first`` read them all. The
            # index of paths holds (path, snapshot) only, in path order, so each path
            # comes once, whatever the changes since. ``+snapshot`` keeps SQLite off
            # the primary key's range, so it takes that index (no INDEXED BY, which
            # would fail where an index went missing).
            query = "SELECT DISTINCT path FROM changes WHERE +snapshot BETWEEN ?1 AND ?2"
        moved = (
            "SELECT old_path FROM changes WHERE old_path IS NOT NULL "
            "AND +snapshot BETWEEN ?1 AND ?2"
        )
        rows = self._c.query(f"{query} UNION {moved}", (first, last))
        return {decode_path(path) for (path,) in rows}

    def in_range(self, first: int, last: int, *, deltas: bool = False) -> list[ChangeRow]:
        """Every file change of snapshots ``first..last``, in (snapshot, path) order.

        Args:
            first: The first snapshot number.
            last: The last snapshot number (included).
            deltas: Load the forward and reverse deltas too (else they are ``None``).
        """
        columns = _COLUMNS if deltas else _NO_DELTAS
        rows = self._c.query(
            f"SELECT {columns} FROM changes WHERE snapshot BETWEEN ? AND ? ORDER BY snapshot, path",
            (first, last),
        )
        return [_row(row) for row in rows]

    def iter(self, *, deltas: bool = True) -> Iterator[ChangeRow]:
        """Every change row of the store in (snapshot, path) order, streamed.

        Args:
            deltas: Load the forward and reverse deltas too (else they are ``None``).

        Yields:
            The change rows.
        """
        columns = _COLUMNS if deltas else _NO_DELTAS
        for row in self._c.stream(f"SELECT {columns} FROM changes ORDER BY snapshot, path"):
            yield _row(row)

    def version_at(self, path: str, at: int) -> ChangeRow | None:
        """The last change that touched ``path`` (as its path or old path) at or before ``at``.

        Args:
            path: The file's path.
            at: The snapshot number to look back from.

        Returns:
            That change (the one that made ``path`` when a snapshot both renamed it away
            and made it anew), or ``None`` when no change touched it.
        """
        key = encode_path(path)
        rows = self._c.query(
            f"SELECT {_COLUMNS} FROM changes WHERE path = ? AND snapshot <= ? "
            "ORDER BY snapshot DESC LIMIT 1",
            (key, at),
        )
        moved = self._c.query(
            f"SELECT {_COLUMNS} FROM changes WHERE old_path = ? AND snapshot <= ? "
            "ORDER BY snapshot DESC LIMIT 1",
            (key, at),
        )
        candidates = [_row(row) for row in rows + moved]
        if not candidates:
            return None
        return max(candidates, key=lambda c: (c.snapshot, c.path == path))

    def versions_at(self, paths: Iterable[str], at: int) -> dict[str, ChangeRow]:
        """The change that made each path's version at ``at``, where one did.

        ``version_at`` for many paths in two queries (a rollback asks for each of its
        paths: two queries each, row R5), keeping a path's own change only: one that
        moved the path away later (or in the same snapshot, as ``version_at`` prefers
        the change that made it) leaves it out.

        Args:
            paths: The files' paths.
            at: The snapshot number to look back from.
        """
        wanted = list(paths)
        rows = self._c.query_paths(
            f"SELECT {_COLUMNS} FROM changes AS c JOIN (SELECT path AS p, max(snapshot) AS s "
            "FROM changes WHERE snapshot <= ? AND path IN ({marks}) GROUP BY path) "
            "ON c.path = p AND c.snapshot = s",
            wanted,
            (at,),
        )
        moved = self._c.query_paths(
            "SELECT old_path, max(snapshot) FROM changes WHERE snapshot <= ? "
            "AND old_path IN ({marks}) GROUP BY old_path",
            wanted,
            (at,),
        )
        away = {decode_path(path): number for path, number in moved}
        found = {}
        for row in map(_row, rows):
            if away.get(row.path, -1) <= row.snapshot:
                found[row.path] = row
        return found

    def path_history(self, path: str, *, last: int, count: int) -> list[ChangeRow]:
        """Up to ``count`` changes of ``path`` at or before ``last``, newest first.

        Args:
            path: The file's path (changes that renamed it away are not included).
            last: The snapshot number to look back from.
            count: At most this many.
        """
        rows = self._c.query(
            f"SELECT {_COLUMNS} FROM changes WHERE path = ? AND snapshot <= ? "
            "ORDER BY snapshot DESC LIMIT ?",
            (encode_path(path), last, count),
        )
        return [_row(row) for row in rows]

    def insert(self, changes: Iterable[ChangeRow]) -> None:
        """Insert change rows of a snapshot already inserted; call inside ``write()``.

        Args:
            changes: The rows.

        Raises:
            RuntimeError: Outside a transaction.
        """
        self._c.require_transaction()
        self._c.db.executemany(
            f"INSERT INTO changes ({_COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (
                (
                    c.snapshot,
                    encode_path(c.path),
                    c.kind,
                    None if c.old_path is None else encode_path(c.old_path),
                    c.base_hash,
                    c.result_hash,
                    c.base_mode,
                    c.result_mode,
                    c.size,
                    c.storage,
                    c.forward,
                    c.reverse,
                    c.content,
                    c.chain,
                    c.chain_bytes,
                )
                for c in changes
            ),
        )
