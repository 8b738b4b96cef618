"""The ``state`` and ``stat_cache`` tables: what tracked files hold, and their stats.

The stat cache lets a check trust a file unread when its ``lstat`` is unchanged since
it was hashed, as git's index does.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from snapline.store.connection import decode_path, encode_path
from snapline.store.rows import Fingerprint, StateRow, StatRow
from snapline.store.table import Table

__all__ = ["KnownStateTable", "StatCacheTable"]

_STATE = "SELECT path, hash, mode, size, snapshot FROM state"
_FINGERPRINTS = (
    "SELECT s.path, s.mode, c.size, c.mtime_ns, c.ino, c.ctime_ns "
    "FROM state AS s LEFT JOIN stat_cache AS c ON c.path = s.path "
    "AND c.hash = s.hash AND c.mode = s.mode "
    "AND max(c.mtime_ns, c.ctime_ns) < c.checked_ns - ?"
)
_STAMPS = (
    "SELECT s.path, c.ino, c.ctime_ns "
    "FROM state AS s LEFT JOIN stat_cache AS c ON c.path = s.path "
    "AND c.hash = s.hash AND c.mode = s.mode "
    "AND max(c.mtime_ns, c.ctime_ns) < c.checked_ns - ?"
)


class KnownStateTable(Table):
    """The known state: for every tracked path, its content after the latest snapshot."""

    def get(self, paths: Iterable[str] | None = None) -> dict[str, StateRow]:
        """The known state of the given paths (all tracked paths when ``None``).

        Args:
            paths: The paths to look up; untracked ones are left out of the result.

        Returns:
            The state of each tracked path, by path.
        """
        if paths is None:
            rows = self._c.query(_STATE)
        else:
            rows = self._c.query_paths(_STATE + " WHERE path IN ({marks})", paths)
        result = {}
        for row in rows:
            entry = StateRow(decode_path(row[0]), row[1], row[2], row[3], row[4])
            result[entry.path] = entry
        return result

    def iter(self) -> Iterator[StateRow]:
        """The known state of every tracked path, streamed (none held), in no set order."""
        for row in self._c.stream(_STATE):
            yield StateRow(decode_path(row[0]), row[1], row[2], row[3], row[4])

    def under(self, prefix: str) -> dict[str, StateRow]:
        """The known state of every tracked path inside directory ``prefix``.

        Args:
            prefix: A directory path, without a trailing slash.

        Returns:
            The state of each tracked path below it, by path.
        """
        low = prefix + "/"
        high = prefix + "0"  # '0' sorts right after '/'
        # A path that is not UTF-8 is a BLOB (see encode_path), and SQLite sorts every
        # BLOB after every TEXT: such paths need the same range as bytes.
        raw = (low.encode("utf-8", "surrogateescape"), high.encode("utf-8", "surrogateescape"))
        rows = self._c.query(
            f"{_STATE} WHERE (path >= ? AND path < ?) OR (path >= ? AND path < ?)",
            (encode_path(low), encode_path(high), *raw),
        )
        return {
            decode_path(r[0]): StateRow(decode_path(r[0]), r[1], r[2], r[3], r[4]) for r in rows
        }

    def set(self, upserts: Iterable[StateRow], deletes: Iterable[str]) -> None:
        """Change the known state; call inside ``write()``.

        Args:
            upserts: Rows to insert or replace.
            deletes: Paths that are no longer tracked.

        Raises:
            RuntimeError: Outside a transaction.
        """
        self._c.require_transaction()
        db = self._c.db
        db.executemany("DELETE FROM state WHERE path = ?", [(encode_path(p),) for p in deletes])
        db.executemany(
            "INSERT OR REPLACE INTO state(path, hash, mode, size, snapshot) VALUES (?,?,?,?,?)",
            [(encode_path(s.path), s.hash, s.mode, s.size, s.snapshot) for s in upserts],
        )


class StatCacheTable(Table):
    """The stat cache: what ``lstat`` said of a file when it was last hashed."""

    def fingerprints(
        self, racy_window_ns: int, paths: Iterable[str] | None = None
    ) -> list[tuple[str, int, Fingerprint | None]]:
        """Each tracked path's known mode and the stat fingerprint to trust, if any.

        The fingerprint ``(size, mtime_ns, ino, ctime_ns)`` comes from the stat cache,
        and only when that entry describes the known content and was hashed safely after
        the file's last change (older than ``racy_window_ns``): a file whose stat still
        equals it need not be read. One query and plain tuples, because a whole-workspace
        check runs this over every tracked file.

        Args:
            racy_window_ns: How much older than its hashing a file must be.
            paths: Only these paths (those that are tracked); ``None``: every one.

        Returns:
            ``(path, mode, fingerprint or None)`` for each tracked path.
        """
        if paths is None:
            rows = self._c.query(_FINGERPRINTS, (racy_window_ns,))
        else:
            rows = self._c.query_paths(
                _FINGERPRINTS + " WHERE s.path IN ({marks})", paths, (racy_window_ns,)
            )
        return [
            (
                path if path.__class__ is str else decode_path(path),
                mode,
                None if size is None else (size, mtime_ns, ino, ctime_ns),
            )
            for path, mode, size, mtime_ns, ino, ctime_ns in rows
        ]

    def stamps(self, racy_window_ns: int) -> list[tuple[str, int | None, int | None]]:
        """Each tracked path's trusted ``(ino, ctime_ns)``, or ``(None, None)``.

        What a warm check compares every tracked file's ``lstat`` with: a file keeps its
        inode and ctime only while nothing writes it, changes its mode or its links (the
        kernel moves the ctime for each), so two numbers vouch for it as the whole
        fingerprint does, for a third of the rows' cost. Trusted as in
        :meth:`fingerprints`.

        Args:
            racy_window_ns: How much older than its hashing a file must be.

        Returns:
            ``(path, ino, ctime_ns)`` for every tracked path; ``None`` twice when no
            entry vouches for it.
        """
        # The rows as SQLite gives them, but for a path kept as bytes (not UTF-8): a new
        # tuple for each of 10,000 rows was a sixth of a warm rollback's stamps (row R5).
        return [
            row if row[0].__class__ is str else (decode_path(row[0]), row[1], row[2])
            for row in self._c.query(_STAMPS, (racy_window_ns,))
        ]

    def get(self, paths: Iterable[str] | None = None) -> dict[str, StatRow]:
        """The stat cache entries of the given paths (every entry when ``None``).

        Args:
            paths: The paths to look up; those without an entry are left out.

        Returns:
            The entry of each path, by path.
        """
        if paths is None:
            rows = self._c.query("SELECT * FROM stat_cache")
        else:
            rows = self._c.query_paths("SELECT * FROM stat_cache WHERE path IN ({marks})", paths)
        return {decode_path(r[0]): StatRow(decode_path(r[0]), *r[1:]) for r in rows}

    def put(self, entries: Iterable[StatRow], deletes: Iterable[str] = ()) -> None:
        """Insert or replace entries and drop others; call inside ``write()``.

        Args:
            entries: Entries to insert or replace.
            deletes: Paths whose entries go.

        Raises:
            RuntimeError: Outside a transaction.
        """
        self._c.require_transaction()
        db = self._c.db
        db.executemany(
            "DELETE FROM stat_cache WHERE path = ?", [(encode_path(p),) for p in deletes]
        )
        db.executemany(
            "INSERT OR REPLACE INTO stat_cache VALUES (?,?,?,?,?,?,?,?)",
            [
                (
                    encode_path(e.path),
                    e.size,
                    e.mtime_ns,
                    e.ino,
                    e.ctime_ns,
                    e.mode,
                    e.hash,
                    e.checked_ns,
                )
                for e in entries
            ],
        )
