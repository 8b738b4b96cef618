"""The store: one SQLite database, and the only module that speaks SQL.

Every change to the store happens inside :meth:`Store.write`, one ``BEGIN IMMEDIATE``
transaction: a snapshot, its content and its sequence number commit or vanish together,
and SQLite serialises concurrent writers. WAL mode lets readers go on meanwhile and always
see whole snapshots. Rows cross this boundary as the plain records defined below; the
layers above turn them into the public models.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from snapline.errors import SnaplineError
from snapline.store.schema import FORMAT_VERSION, SCHEMA

__all__ = [
    "DB_NAME",
    "ChangeRow",
    "JournalRow",
    "MilestoneRow",
    "SnapshotRow",
    "StatRow",
    "StateRow",
    "Store",
    "StoreBusyError",
    "StoreCorruptError",
    "StoreVersionError",
]

DB_NAME = "store.db"
DEFAULT_BUSY_TIMEOUT = 30.0


class StoreCorruptError(SnaplineError):
    """The store cannot be read: not a database, truncated, or inconsistent."""

    exit_code = 3

    def __init__(self, path: Path | str, detail: str) -> None:
        self.path = str(path)
        self.detail = detail
        super().__init__(
            f"the store at {path} is corrupt or unreadable: {detail}; nothing was written. "
            "Restore .snapline/ from a backup, or move it aside and run `snapline init` "
            "to start a new history"
        )


class StoreVersionError(StoreCorruptError):
    """The store was written by a newer snapline whose format this one does not know."""

    def __init__(self, path: Path | str, found: int) -> None:
        self.found = found
        SnaplineError.__init__(
            self,
            f"the store at {path} has format version {found}, newer than the {FORMAT_VERSION} "
            "this snapline reads; upgrade snapline",
        )
        self.path = str(path)
        self.detail = f"format version {found}"


class StoreBusyError(SnaplineError):
    """Another process held the store for longer than the busy timeout."""

    exit_code = 4

    def __init__(self, path: Path | str, timeout: float) -> None:
        self.path = str(path)
        self.timeout = timeout
        super().__init__(
            f"the store at {path} is busy: another snapline process held it for "
            f"{timeout:g}s; try again when it has finished"
        )


@dataclass(frozen=True, slots=True)
class SnapshotRow:
    number: int
    id: str
    parent_id: str | None
    time: str
    tool: str
    description: str
    session: str | None
    metadata: str
    skipped: str
    version: int
    chain_hash: str


@dataclass(frozen=True, slots=True)
class ChangeRow:
    snapshot: int
    path: str
    kind: str
    old_path: str | None
    base_hash: str | None
    result_hash: str | None
    base_mode: int | None
    result_mode: int | None
    size: int | None
    storage: str
    forward: bytes | None
    reverse: bytes | None
    content: str | None
    chain: int
    chain_bytes: int


@dataclass(frozen=True, slots=True)
class StateRow:
    path: str
    hash: str
    mode: int
    size: int
    snapshot: int


@dataclass(frozen=True, slots=True)
class StatRow:
    path: str
    size: int
    mtime_ns: int
    ino: int
    ctime_ns: int
    mode: int
    hash: str
    checked_ns: int


@dataclass(frozen=True, slots=True)
class MilestoneRow:
    number: int
    title: str
    description: str
    tags: str
    time: str
    first: int
    last: int
    version: int
    chain_hash: str


@dataclass(frozen=True, slots=True)
class JournalRow:
    id: int
    op: str
    created: str
    payload: str


Fingerprint = tuple[int, int, int, int]
"""``(size, mtime_ns, ino, ctime_ns)`` of a file, as ``lstat`` reports it."""

_CHANGE_COLUMNS = (
    "snapshot, path, kind, old_path, base_hash, result_hash, base_mode, result_mode, size, "
    "storage, forward, reverse, content, chain, chain_bytes"
)
_CHANGE_NO_DELTAS = (
    "snapshot, path, kind, old_path, base_hash, result_hash, base_mode, result_mode, size, "
    "storage, NULL, NULL, content, chain, chain_bytes"
)


def _enc(path: str) -> str | bytes:
    # A file name that is not valid UTF-8 reaches us with surrogate escapes, which
    # SQLite cannot store as TEXT; such paths are stored as their raw bytes instead.
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return path.encode("utf-8", "surrogateescape")
    return path


def _dec(value: str | bytes | None) -> Any:
    if isinstance(value, bytes):
        return value.decode("utf-8", "surrogateescape")
    return value


def _change(row: Sequence[Any]) -> ChangeRow:
    values = list(row)
    values[1] = _dec(values[1])
    values[3] = _dec(values[3])
    return ChangeRow(*values)


class Store:
    """An open ``store.db``. Use :meth:`create` or :meth:`open`, then :meth:`close`."""

    def __init__(self, path: Path, connection: sqlite3.Connection, busy_timeout: float) -> None:
        self.path = path
        self._db = connection
        self._busy_timeout = busy_timeout
        self._depth = 0

    # -- opening -----------------------------------------------------------------

    @classmethod
    def create(
        cls, path: Path, config: dict[str, Any], busy_timeout: float = DEFAULT_BUSY_TIMEOUT
    ) -> Store:
        """Create a new, empty store at ``path`` with the given configuration."""
        store = cls(path, cls._connect(path, busy_timeout), busy_timeout)
        with store.write():
            for statement in SCHEMA.split(";"):
                if statement.strip():
                    store._db.execute(statement)
            store._db.executemany(
                "INSERT INTO meta(key, value) VALUES (?, ?)",
                [("format_version", str(FORMAT_VERSION)), ("config", json.dumps(config))],
            )
        return store

    @classmethod
    def open(cls, path: Path, busy_timeout: float = DEFAULT_BUSY_TIMEOUT) -> Store:
        """Open an existing store, refusing one that is corrupt or too new.

        Raises:
            StoreCorruptError: If the file is not a snapline store.
            StoreVersionError: If its format is newer than this version reads.
        """
        version = cls._probe_version(path, busy_timeout)
        if version > FORMAT_VERSION:
            raise StoreVersionError(path, version)
        return cls(path, cls._connect(path, busy_timeout), busy_timeout)

    @staticmethod
    def _probe_version(path: Path, busy_timeout: float) -> int:
        # Read the format version through a read-only connection first: _connect switches
        # the file to WAL mode, which writes to it, and a file that is not a snapline
        # store (another database, an empty or damaged file) must be left as it is.
        try:
            db = sqlite3.connect(
                f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=busy_timeout
            )
        except sqlite3.Error as error:
            raise StoreCorruptError(path, str(error)) from None
        try:
            rows = db.execute("SELECT value FROM meta WHERE key = 'format_version'").fetchall()
            return int(rows[0][0])
        except sqlite3.OperationalError as error:
            if "locked" in str(error) or "busy" in str(error):
                raise StoreBusyError(path, busy_timeout) from None
            raise StoreCorruptError(path, f"no readable format version ({error})") from None
        except (sqlite3.DatabaseError, IndexError, TypeError, ValueError) as error:
            raise StoreCorruptError(path, f"no readable format version ({error})") from None
        finally:
            db.close()

    @staticmethod
    def _connect(path: Path, busy_timeout: float) -> sqlite3.Connection:
        try:
            db = sqlite3.connect(path, timeout=busy_timeout, isolation_level=None)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=FULL")
            db.execute("PRAGMA foreign_keys=ON")
        except sqlite3.OperationalError as error:
            if "locked" in str(error) or "busy" in str(error):
                raise StoreBusyError(path, busy_timeout) from None
            raise StoreCorruptError(path, str(error)) from None
        except sqlite3.DatabaseError as error:
            raise StoreCorruptError(path, str(error)) from None
        return db

    def close(self) -> None:
        self._db.close()

    # -- transactions --------------------------------------------------------------

    @contextlib.contextmanager
    def write(self) -> Iterator[Store]:
        """Run the block in one write transaction (``BEGIN IMMEDIATE``); nests.

        Raises:
            StoreBusyError: If another writer holds the store past the busy timeout.
            StoreCorruptError: If SQLite reports the database as damaged.
        """
        if self._depth:
            self._depth += 1
            try:
                yield self
            finally:
                self._depth -= 1
            return
        self._execute_tx("BEGIN IMMEDIATE")
        self._depth = 1
        try:
            yield self
        except BaseException:
            self._depth = 0
            with contextlib.suppress(sqlite3.Error):
                self._db.execute("ROLLBACK")
            raise
        self._depth = 0
        try:
            self._execute_tx("COMMIT")
        except BaseException:
            with contextlib.suppress(sqlite3.Error):
                self._db.execute("ROLLBACK")
            raise

    @contextlib.contextmanager
    def read(self) -> Iterator[Store]:
        """Run the block against one consistent view of the store (a read transaction)."""
        if self._depth:
            yield self
            return
        self._execute_tx("BEGIN")
        self._depth = 1
        try:
            yield self
        finally:
            self._depth = 0
            with contextlib.suppress(sqlite3.Error):
                self._db.execute("COMMIT")

    def _execute_tx(self, statement: str) -> None:
        try:
            self._db.execute(statement)
        except sqlite3.OperationalError as error:
            if "locked" in str(error) or "busy" in str(error):
                raise StoreBusyError(self.path, self._busy_timeout) from None
            raise StoreCorruptError(self.path, str(error)) from None
        except sqlite3.DatabaseError as error:
            raise StoreCorruptError(self.path, str(error)) from None

    def _query(self, sql: str, params: Iterable[Any] = ()) -> list[Any]:
        try:
            return self._db.execute(sql, tuple(params)).fetchall()
        except sqlite3.OperationalError as error:
            if "locked" in str(error) or "busy" in str(error):
                raise StoreBusyError(self.path, self._busy_timeout) from None
            raise StoreCorruptError(self.path, str(error)) from None
        except sqlite3.DatabaseError as error:
            raise StoreCorruptError(self.path, str(error)) from None

    # -- meta ------------------------------------------------------------------------

    def _meta(self, key: str) -> str:
        rows = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchall()
        if not rows:
            raise StoreCorruptError(self.path, f"meta key {key!r} is missing")
        return str(rows[0][0])

    def config(self) -> dict[str, Any]:
        value = json.loads(self._meta("config"))
        if not isinstance(value, dict):
            raise StoreCorruptError(self.path, "the configuration is not an object")
        return value

    def format_version(self) -> int:
        return int(self._meta("format_version"))

    # -- snapshots -----------------------------------------------------------------

    def latest_number(self) -> int | None:
        rows = self._query("SELECT MAX(number) FROM snapshots")
        value = rows[0][0] if rows else None
        return None if value is None else int(value)

    def snapshot_row(self, number: int) -> SnapshotRow | None:
        rows = self._query("SELECT * FROM snapshots WHERE number = ?", (number,))
        return SnapshotRow(*rows[0]) if rows else None

    def snapshot_rows(
        self,
        *,
        first: int | None = None,
        last: int | None = None,
        tool: str | None = None,
        session: str | None = None,
        path: str | None = None,
        since: str | None = None,
        until: str | None = None,
        descending: bool = False,
        limit: int | None = None,
    ) -> list[SnapshotRow]:
        """Snapshot headers matching every given filter, in number order."""
        filters: list[tuple[str, object]] = [
            ("number >= ?", first),
            ("number <= ?", last),
            ("tool = ?", tool),
            ("session = ?", session),
            ("time >= ?", since),
            ("time <= ?", until),
        ]
        where = [clause for clause, value in filters if value is not None]
        params = [value for _clause, value in filters if value is not None]
        if path is not None:
            where.append("number IN (SELECT snapshot FROM changes WHERE path = ? OR old_path = ?)")
            params.extend([_enc(path), _enc(path)])
        sql = "SELECT * FROM snapshots"
        if where:
            sql += " WHERE " + " AND ".join(where)
        sql += " ORDER BY number" + (" DESC" if descending else "")
        if limit is not None:
            sql += " LIMIT ?"
            params.append(limit)
        return [SnapshotRow(*row) for row in self._query(sql, params)]

    def insert_snapshot(self, row: SnapshotRow, changes: Sequence[ChangeRow]) -> None:
        """Insert one snapshot with its changes; call inside :meth:`write`."""
        self._require_tx()
        self._db.execute(
            "INSERT INTO snapshots VALUES (?,?,?,?,?,?,?,?,?,?,?)",
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
            ),
        )
        self.insert_changes(changes)

    def insert_changes(self, changes: Iterable[ChangeRow]) -> None:
        """Insert change rows of a snapshot already inserted; call inside :meth:`write`."""
        self._require_tx()
        self._db.executemany(
            f"INSERT INTO changes ({_CHANGE_COLUMNS}) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (
                (
                    c.snapshot,
                    _enc(c.path),
                    c.kind,
                    None if c.old_path is None else _enc(c.old_path),
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

    def seal_snapshot(self, number: int, skipped: str, chain_hash: str) -> None:
        """Set what a snapshot inserted in this transaction learnt last (the baseline's)."""
        self._require_tx()
        self._db.execute(
            "UPDATE snapshots SET skipped = ?, chain_hash = ? WHERE number = ?",
            (skipped, chain_hash, number),
        )

    def changes(self, snapshot: int, *, deltas: bool = True) -> list[ChangeRow]:
        """The file changes of one snapshot, ordered by path."""
        columns = _CHANGE_COLUMNS if deltas else _CHANGE_NO_DELTAS
        rows = self._query(
            f"SELECT {columns} FROM changes WHERE snapshot = ? ORDER BY path", (snapshot,)
        )
        return [_change(row) for row in rows]

    def changes_in_range(self, first: int, last: int, *, deltas: bool = False) -> list[ChangeRow]:
        """Every file change of snapshots ``first..last``, in (snapshot, path) order."""
        columns = _CHANGE_COLUMNS if deltas else _CHANGE_NO_DELTAS
        rows = self._query(
            f"SELECT {columns} FROM changes WHERE snapshot BETWEEN ? AND ? ORDER BY snapshot, path",
            (first, last),
        )
        return [_change(row) for row in rows]

    def iter_changes(self, *, deltas: bool = True) -> Iterator[ChangeRow]:
        """Every change row of the store in (snapshot, path) order, streamed."""
        columns = _CHANGE_COLUMNS if deltas else _CHANGE_NO_DELTAS
        try:
            cursor = self._db.execute(f"SELECT {columns} FROM changes ORDER BY snapshot, path")
            for row in cursor:
                yield _change(row)
        except sqlite3.DatabaseError as error:
            raise StoreCorruptError(self.path, str(error)) from None

    def version_at(self, path: str, at: int) -> ChangeRow | None:
        """The last change that touched ``path`` (as its path or old path) at or before ``at``."""
        key = _enc(path)
        rows = self._query(
            f"SELECT {_CHANGE_COLUMNS} FROM changes WHERE path = ? AND snapshot <= ? "
            "ORDER BY snapshot DESC LIMIT 1",
            (key, at),
        )
        moved = self._query(
            f"SELECT {_CHANGE_COLUMNS} FROM changes WHERE old_path = ? AND snapshot <= ? "
            "ORDER BY snapshot DESC LIMIT 1",
            (key, at),
        )
        candidates = [_change(row) for row in rows + moved]
        if not candidates:
            return None
        return max(candidates, key=lambda c: (c.snapshot, c.path == path))

    def path_history(self, path: str, *, last: int, count: int) -> list[ChangeRow]:
        """Up to ``count`` changes of ``path`` at or before ``last``, newest first."""
        rows = self._query(
            f"SELECT {_CHANGE_COLUMNS} FROM changes WHERE path = ? AND snapshot <= ? "
            "ORDER BY snapshot DESC LIMIT ?",
            (_enc(path), last, count),
        )
        return [_change(row) for row in rows]

    # -- blobs -----------------------------------------------------------------------

    def put_blob(self, hash_: str, size: int, packed: bytes) -> bool:
        """Store packed content under its hash unless present; returns whether it was new."""
        self._require_tx()
        cursor = self._db.execute(
            "INSERT OR IGNORE INTO blobs(hash, size, data) VALUES (?, ?, ?)",
            (hash_, size, packed),
        )
        return cursor.rowcount == 1

    def put_blobs(self, blobs: Sequence[tuple[str, int, bytes]]) -> None:
        """Store many ``(hash, size, packed)`` blobs at once, skipping those present."""
        self._require_tx()
        self._db.executemany(
            "INSERT OR IGNORE INTO blobs(hash, size, data) VALUES (?, ?, ?)", blobs
        )

    def has_blob(self, hash_: str) -> bool:
        return bool(self._query("SELECT 1 FROM blobs WHERE hash = ?", (hash_,)))

    def blob(self, hash_: str) -> bytes | None:
        rows = self._query("SELECT data FROM blobs WHERE hash = ?", (hash_,))
        return bytes(rows[0][0]) if rows else None

    def blob_hashes(self) -> list[str]:
        return [row[0] for row in self._query("SELECT hash FROM blobs")]

    def iter_blobs(self) -> Iterator[tuple[str, int, bytes]]:
        try:
            for hash_, size, data in self._db.execute("SELECT hash, size, data FROM blobs"):
                yield hash_, size, bytes(data)
        except sqlite3.DatabaseError as error:
            raise StoreCorruptError(self.path, str(error)) from None

    def referenced_blobs(self) -> set[str]:
        rows = self._query("SELECT DISTINCT content FROM changes WHERE content IS NOT NULL")
        return {row[0] for row in rows}

    def delete_blobs(self, hashes: Iterable[str]) -> int:
        """Delete unreferenced blobs; returns the packed bytes freed."""
        self._require_tx()
        freed = 0
        for hash_ in hashes:
            rows = self._db.execute(
                "SELECT length(data) FROM blobs WHERE hash = ?", (hash_,)
            ).fetchall()
            if rows:
                freed += int(rows[0][0])
                self._db.execute("DELETE FROM blobs WHERE hash = ?", (hash_,))
        return freed

    # -- known state -------------------------------------------------------------------

    def state(self, paths: Iterable[str] | None = None) -> dict[str, StateRow]:
        """The known state of the given paths (all tracked paths when ``None``)."""
        if paths is None:
            rows = self._query("SELECT path, hash, mode, size, snapshot FROM state")
        else:
            rows = []
            for chunk in _chunks([_enc(p) for p in paths], 500):
                marks = ",".join("?" * len(chunk))
                rows += self._query(
                    f"SELECT path, hash, mode, size, snapshot FROM state WHERE path IN ({marks})",
                    chunk,
                )
        result = {}
        for row in rows:
            entry = StateRow(_dec(row[0]), row[1], row[2], row[3], row[4])
            result[entry.path] = entry
        return result

    def state_under(self, prefix: str) -> dict[str, StateRow]:
        """The known state of every tracked path inside directory ``prefix``."""
        low = prefix + "/"
        high = prefix + "0"  # '0' sorts right after '/'
        # A path that is not UTF-8 is a BLOB (see _enc), and SQLite sorts every BLOB
        # after every TEXT: such paths need the same range as bytes.
        raw = (low.encode("utf-8", "surrogateescape"), high.encode("utf-8", "surrogateescape"))
        rows = self._query(
            "SELECT path, hash, mode, size, snapshot FROM state "
            "WHERE (path >= ? AND path < ?) OR (path >= ? AND path < ?)",
            (_enc(low), _enc(high), *raw),
        )
        return {_dec(r[0]): StateRow(_dec(r[0]), r[1], r[2], r[3], r[4]) for r in rows}

    def set_state(self, upserts: Iterable[StateRow], deletes: Iterable[str]) -> None:
        self._require_tx()
        self._db.executemany("DELETE FROM state WHERE path = ?", [(_enc(p),) for p in deletes])
        self._db.executemany(
            "INSERT OR REPLACE INTO state(path, hash, mode, size, snapshot) VALUES (?,?,?,?,?)",
            [(_enc(s.path), s.hash, s.mode, s.size, s.snapshot) for s in upserts],
        )

    # -- stat cache ----------------------------------------------------------------------

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
        """
        sql = (
            "SELECT s.path, s.mode, c.size, c.mtime_ns, c.ino, c.ctime_ns "
            "FROM state AS s LEFT JOIN stat_cache AS c ON c.path = s.path "
            "AND c.hash = s.hash AND c.mode = s.mode "
            "AND max(c.mtime_ns, c.ctime_ns) < c.checked_ns - ?"
        )
        if paths is None:
            rows = self._query(sql, (racy_window_ns,))
        else:
            rows = []
            for chunk in _chunks([_enc(p) for p in paths], 500):
                marks = ",".join("?" * len(chunk))
                rows += self._query(f"{sql} WHERE s.path IN ({marks})", (racy_window_ns, *chunk))
        return [
            (
                path if path.__class__ is str else _dec(path),
                mode,
                None if size is None else (size, mtime_ns, ino, ctime_ns),
            )
            for path, mode, size, mtime_ns, ino, ctime_ns in rows
        ]

    def generation(self) -> tuple[int, int]:
        """A value that differs whenever anything may have been committed in between.

        ``PRAGMA data_version`` changes when another connection commits, and
        ``total_changes`` counts this connection's own row changes; equal values mean
        the store holds what it held. Read inside :meth:`read` or :meth:`write`, to
        describe the view that the next queries see.
        """
        rows = self._query("PRAGMA data_version")
        return int(rows[0][0]), self._db.total_changes

    def stat_cache(self, paths: Iterable[str] | None = None) -> dict[str, StatRow]:
        if paths is None:
            rows = self._query("SELECT * FROM stat_cache")
        else:
            rows = []
            for chunk in _chunks([_enc(p) for p in paths], 500):
                marks = ",".join("?" * len(chunk))
                rows += self._query(f"SELECT * FROM stat_cache WHERE path IN ({marks})", chunk)
        return {_dec(r[0]): StatRow(_dec(r[0]), *r[1:]) for r in rows}

    def put_stat_cache(self, entries: Iterable[StatRow], deletes: Iterable[str] = ()) -> None:
        self._require_tx()
        self._db.executemany("DELETE FROM stat_cache WHERE path = ?", [(_enc(p),) for p in deletes])
        self._db.executemany(
            "INSERT OR REPLACE INTO stat_cache VALUES (?,?,?,?,?,?,?,?)",
            [
                (_enc(e.path), e.size, e.mtime_ns, e.ino, e.ctime_ns, e.mode, e.hash, e.checked_ns)
                for e in entries
            ],
        )

    # -- milestones -----------------------------------------------------------------------

    def milestone_rows(self) -> list[MilestoneRow]:
        return [
            MilestoneRow(*row) for row in self._query("SELECT * FROM milestones ORDER BY number")
        ]

    def milestone_row(self, number: int) -> MilestoneRow | None:
        rows = self._query("SELECT * FROM milestones WHERE number = ?", (number,))
        return MilestoneRow(*rows[0]) if rows else None

    def insert_milestone(self, row: MilestoneRow) -> None:
        self._require_tx()
        self._db.execute(
            "INSERT INTO milestones VALUES (?,?,?,?,?,?,?,?,?)",
            (
                row.number,
                row.title,
                row.description,
                row.tags,
                row.time,
                row.first,
                row.last,
                row.version,
                row.chain_hash,
            ),
        )

    # -- journal ----------------------------------------------------------------------------

    def journal(self) -> list[JournalRow]:
        return [JournalRow(*row) for row in self._query("SELECT * FROM journal ORDER BY id")]

    def add_journal(self, op: str, created: str, payload: str) -> int:
        self._require_tx()
        cursor = self._db.execute(
            "INSERT INTO journal(op, created, payload) VALUES (?, ?, ?)", (op, created, payload)
        )
        return int(cursor.lastrowid or 0)

    def delete_journal(self, entry_id: int) -> None:
        self._require_tx()
        self._db.execute("DELETE FROM journal WHERE id = ?", (entry_id,))

    # -- maintenance ------------------------------------------------------------------------

    def integrity_problems(self) -> list[str]:
        """SQLite's own ``quick_check``: an empty list when the file is sound."""
        rows = self._query("PRAGMA quick_check")
        return [str(row[0]) for row in rows if row[0] != "ok"]

    def vacuum(self) -> None:
        self._execute_tx("VACUUM")

    # -- milestones: ranges and lookups (issue 4) -------------------------------------------

    def latest_milestone_row(self) -> MilestoneRow | None:
        """The milestone with the highest number, or ``None`` when there is none."""
        rows = self._query("SELECT * FROM milestones ORDER BY number DESC LIMIT 1")
        return MilestoneRow(*rows[0]) if rows else None

    def milestone_containing(self, snapshot: int) -> MilestoneRow | None:
        """The (lowest-numbered) milestone whose range includes snapshot ``snapshot``."""
        rows = self._query(
            "SELECT * FROM milestones WHERE first <= ? AND last >= ? ORDER BY number LIMIT 1",
            (snapshot, snapshot),
        )
        return MilestoneRow(*rows[0]) if rows else None

    def _require_tx(self) -> None:
        if not self._depth:
            raise RuntimeError("store writes must happen inside Store.write()")


def _chunks(items: list[Any], size: int) -> Iterator[list[Any]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]
