"""The shared SQLite connection of a store: opening, transactions and query helpers.

Every change to the store happens inside :meth:`Connection.write`, one
``BEGIN IMMEDIATE`` transaction: a snapshot, its content and its sequence number commit
or vanish together, and SQLite serialises concurrent writers. WAL mode lets readers go on
meanwhile and always see whole snapshots. The table objects of this package hold one
:class:`Connection` between them and speak SQL through it.

One connection serves every thread of a process: a re-entrant lock is held for the whole
of each transaction (and each query outside one), so a thread never runs a statement
inside another thread's transaction and every read view is whole.

SQLite's locks are POSIX locks, which the operating system drops as soon as the process
closes *any* descriptor of the file: a ``shutil.copytree``, tar or zip of the workspace
made by the process that holds the store open is enough ("How To Corrupt An SQLite
Database File", 2.2). Another process then believes it is alone and, closing, deletes
the WAL and its index; this process would go on writing into a deleted file. Before each
transaction the connection checks that the WAL and its index are still the files it
opened, and reconnects when they are not, so what it writes lands where every reader
looks and its numbers follow the latest snapshot.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import threading
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from snapline.store.dbfile import (
    Opened,
    companions,
    connect,
    identity,
    memory_copy,
    probe_version,
    refusal,
)
from snapline.store.encoding import bounded, decode_path, encode_path
from snapline.store.errors import (
    StoreBusyError,
    StoreVersionError,
    translate,
)
from snapline.store.schema import FORMAT_VERSION, SCHEMA

__all__ = ["DEFAULT_BUSY_TIMEOUT", "Connection", "decode_path", "encode_path"]

DEFAULT_BUSY_TIMEOUT = 30.0
_CHUNK = 500  # parameters per IN (...) list, well under SQLite's limit


class Connection:
    """One open ``store.db``: the SQLite connection and its transaction depth.

    Use :meth:`create` or :meth:`open`, then :meth:`close`.

    Attributes:
        path: The database file.
        db: The SQLite connection, in autocommit mode: transactions are explicit.
        busy_timeout: How long to wait for another process's lock, in seconds.
        read_only: Whether it only reads (the OS would not let this user write).
        in_memory: Whether it is a private copy in memory, never saved.
    """

    def __init__(self, path: Path, db: Opened, busy_timeout: float) -> None:
        """Wrap an SQLite connection; use :meth:`create` or :meth:`open` instead.

        Args:
            path: The database file.
            db: A connection, and whether it only reads (:func:`~.dbfile.connect`).
            busy_timeout: How long to wait for another process's lock, in seconds.
        """
        self.path = path
        self.db, self.read_only = db
        self.busy_timeout = busy_timeout
        self._depth = 0
        # Held by the thread whose transaction is open; _depth belongs to that thread.
        self._mutex = threading.RLock()
        self._companions = companions(path)
        self._identity = identity(str(path))
        self._closed = False
        self.in_memory = str(path) == ":memory:"

    @classmethod
    def create(
        cls, path: Path, config: dict[str, Any], busy_timeout: float, *, synced: bool = True
    ) -> Connection:
        """Create a new store at ``path``: the schema, its format version and ``config``.

        Args:
            path: Where the database file goes; it must not exist yet.
            config: The workspace configuration to keep in the store.
            busy_timeout: How long to wait for another process's lock, in seconds.
            synced: Whether each commit is synced (:func:`~.dbfile.connect`).

        Returns:
            The open connection.

        Raises:
            StoreBusyError: If another process holds the file.
            StoreCorruptError: If SQLite cannot create it.
        """
        connection = cls(path, connect(path, busy_timeout, synced=synced), busy_timeout)
        with connection.write():
            for statement in SCHEMA.split(";"):
                if statement.strip():
                    connection.db.execute(statement)
            connection.db.executemany(
                "INSERT INTO meta(key, value) VALUES (?, ?)",
                [("format_version", str(FORMAT_VERSION)), ("config", json.dumps(config))],
            )
        return connection

    @classmethod
    def open(cls, path: Path, busy_timeout: float) -> Connection:
        """Open an existing store, refusing one that is corrupt or too new.

        Args:
            path: The database file.
            busy_timeout: How long to wait for another process's lock, in seconds.

        Returns:
            The open connection.

        Raises:
            StoreBusyError: If another process holds the file past the timeout.
            StoreCorruptError: If the file is not a snapline store; it is left untouched.
            StoreVersionError: If its format is newer than this version reads.
        """
        version = probe_version(path, busy_timeout)
        if version > FORMAT_VERSION:
            raise StoreVersionError(path, version)
        return cls(path, connect(path, busy_timeout), busy_timeout)

    def copy_in_memory(self) -> Connection:
        """A private, writable copy of the store in memory, never saved (``memory_copy``)."""
        with self._hold():
            memory = memory_copy(self.db, self.path, self.busy_timeout)
        copy = Connection(self.path, (memory, False), self.busy_timeout)
        copy.in_memory = True
        return copy

    def close(self) -> None:
        """Close the SQLite connection, once no other thread is inside a transaction."""
        with self._hold(fresh=False):
            self._closed = True
            self.db.close()

    @contextlib.contextmanager
    def _hold(self, *, fresh: bool = True) -> Iterator[None]:
        """Hold the connection for this thread, waiting at most the busy timeout.

        Outside a transaction, first make sure the connection's locks still stand (see
        the module doc), reconnecting when another process has reset the WAL; ``fresh``
        false skips that, for the statement that ends a transaction.

        Raises:
            StoreBusyError: If another thread of this process held it past the timeout.
        """
        if not self._mutex.acquire(timeout=self.busy_timeout):
            raise StoreBusyError(self.path, self.busy_timeout)
        try:
            if fresh and not self._depth:
                self._reconnect_if_reset()
            yield
        finally:
            self._mutex.release()

    @contextlib.contextmanager
    def _sqlite(self, *, fresh: bool = True) -> Iterator[None]:
        """:meth:`_hold` for one statement, a SQLite error raised as :func:`translate` names it."""
        try:
            with self._hold(fresh=fresh):
                yield
        except sqlite3.DatabaseError as error:
            raise translate(error, self.path, self.busy_timeout) from None

    def _reconnect_if_reset(self) -> None:
        # While this connection is open the WAL and its index exist and are never
        # replaced, unless another process believed it was alone: only then did it
        # delete them. The connection's view (and the file it appends to) is stale.
        now = companions(self.path)
        if all(old is None or old == new for old, new in zip(self._companions, now, strict=True)):
            # Unchanged, or created since (a new store's first transaction makes them).
            self._companions = now
            return
        if self._closed or self.in_memory or identity(str(self.path)) != self._identity:
            # Closed on purpose, or the store itself was deleted or replaced: never
            # open another file in its place (the writers' check says what happened).
            return
        with contextlib.suppress(sqlite3.Error):
            self.db.close()
        self.db, self.read_only = connect(self.path, self.busy_timeout)
        self._companions = companions(self.path)

    # -- transactions --------------------------------------------------------------

    @contextlib.contextmanager
    def write(self) -> Iterator[None]:
        """Run the block in one write transaction (``BEGIN IMMEDIATE``); nests.

        An exception leaving the outermost block rolls everything back.

        Raises:
            StoreBusyError: If another writer holds the store past the busy timeout.
            StoreCorruptError: If SQLite reports the database as damaged.
        """
        with self._hold():
            yield from self._write()

    @contextlib.contextmanager
    def bulk_write(self) -> Iterator[None]:
        """:meth:`write` for filling an empty index: a rollback journal instead of the WAL.

        Through the WAL a whole index (a rebuild: every baseline file's content) is
        written twice, into the log and again into the file, each synced; with a
        rollback journal its pages go straight to the file and the journal keeps only
        the few that existed. Atomic the same way: a crash leaves a hot journal that the
        next connection rolls back. Leaving WAL mode needs every other connection
        closed; with one open, or when the file no longer has its name, the block runs
        as :meth:`write`. WAL mode is restored.

        Raises:
            StoreBusyError: If another writer holds the store past the busy timeout.
            StoreCorruptError: If SQLite reports the database as damaged.
        """
        with self._hold():
            # Leaving WAL mode deletes the log and makes a journal by name: once the file
            # has lost its name (deleted, another index built in its place), those names
            # belong to the other index, whose log holds what it committed.
            switched = (
                not self._depth
                and identity(str(self.path)) == self._identity
                and self._journal("DELETE", wait=False)
            )
            try:
                yield from self._write()
            finally:
                if switched:
                    self._journal("WAL", wait=True)

    def _journal(self, mode: str, *, wait: bool) -> bool:
        timeout = int(self.busy_timeout * 1000)
        # Not waiting to leave WAL mode: another connection may stay open for minutes.
        self.db.execute(f"PRAGMA busy_timeout={timeout if wait else 0}")
        try:
            done = str(self.db.execute(f"PRAGMA journal_mode={mode}").fetchone()[0]) == mode.lower()
        except sqlite3.Error:
            done = False  # busy, or the disk refused: the mode stays as it was
        finally:
            self.db.execute(f"PRAGMA busy_timeout={timeout}")
        # The switch deleted or created the WAL and its index: not another process's reset.
        self._companions = companions(self.path)
        return done

    def _write(self) -> Iterator[None]:
        if self.read_only:
            raise refusal(self.path)  # opened for reading only: no write is tried
        if self._depth:
            self._depth += 1
            try:
                yield
            finally:
                self._depth -= 1
            return
        self.run("BEGIN IMMEDIATE")
        self._depth = 1
        try:
            yield
        except BaseException as error:
            self._depth = 0
            with contextlib.suppress(sqlite3.Error):
                self.db.execute("ROLLBACK")
            if isinstance(error, sqlite3.Error):
                # An insert the disk refused (full, a file-size limit) or a damaged
                # page met mid-transaction: rolled back, and said as what it is.
                raise translate(error, self.path, self.busy_timeout) from None
            raise
        self._depth = 0
        try:
            self.run("COMMIT", fresh=False)
        except BaseException:
            with contextlib.suppress(sqlite3.Error):
                self.db.execute("ROLLBACK")
            raise

    @contextlib.contextmanager
    def read(self) -> Iterator[None]:
        """Run the block against one consistent view of the store (a read transaction).

        Inside :meth:`write` (or another :meth:`read`) it joins the open transaction.

        Raises:
            StoreBusyError: If the store stays locked past the busy timeout.
            StoreCorruptError: If SQLite reports the database as damaged.
        """
        with self._hold():
            yield from self._read()

    def _read(self) -> Iterator[None]:
        if self._depth:
            yield
            return
        self.run("BEGIN")
        self._depth = 1
        try:
            yield
        finally:
            self._depth = 0
            with contextlib.suppress(sqlite3.Error):
                self.db.execute("COMMIT")

    def require_transaction(self) -> None:
        """Refuse a change made outside :meth:`write`.

        Raises:
            RuntimeError: If no transaction is open.
        """
        if not self._depth:
            raise RuntimeError("store writes must happen inside Store.write()")

    # -- queries -------------------------------------------------------------------

    def run(self, statement: str, *, fresh: bool = True) -> None:
        """Execute a statement that returns nothing (``BEGIN``, ``VACUUM``, ...).

        Args:
            statement: The SQL statement.
            fresh: Check the connection's locks first (not when ending a transaction).

        Raises:
            StoreBusyError: If the store stays locked past the busy timeout.
            StoreCorruptError: If SQLite fails otherwise.
        """
        with self._sqlite(fresh=fresh):
            self.db.execute(statement)

    def query(self, sql: str, params: Iterable[Any] = ()) -> list[Any]:
        """Every row of one query.

        Args:
            sql: The query.
            params: Its parameters.

        Returns:
            The rows, as tuples.

        Raises:
            StoreBusyError: If the store stays locked past the busy timeout.
            StoreCorruptError: If SQLite fails otherwise.
        """
        with self._sqlite():
            return self.db.execute(sql, bounded(params)).fetchall()

    def query_paths(
        self, sql: str, paths: Iterable[str], params: tuple[Any, ...] = ()
    ) -> list[Any]:
        """The rows of a query over a list of paths, run in chunks of bound parameters.

        Args:
            sql: The query, with ``{marks}`` where the ``IN`` list of paths goes.
            paths: The paths, encoded here with :func:`encode_path`.
            params: Parameters that come before the paths.

        Returns:
            The rows of every chunk, as tuples.

        Raises:
            StoreBusyError: If the store stays locked past the busy timeout.
            StoreCorruptError: If SQLite fails otherwise.
        """
        keys = [encode_path(path) for path in paths]
        rows: list[Any] = []
        for start in range(0, len(keys), _CHUNK):
            chunk = keys[start : start + _CHUNK]
            rows += self.query(sql.format(marks=",".join("?" * len(chunk))), (*params, *chunk))
        return rows

    def stream(self, sql: str, params: Iterable[Any] = ()) -> Iterator[Any]:
        """The rows of one query, fetched as they are consumed.

        Args:
            sql: The query.
            params: Its parameters.

        Yields:
            The rows, as tuples.

        Raises:
            StoreBusyError: If the store stays locked past the busy timeout.
            StoreCorruptError: If SQLite fails otherwise.
        """
        # Held until the rows are consumed (or the generator is closed): the cursor
        # belongs to this thread's view meanwhile.
        with self._sqlite():
            yield from self.db.execute(sql, bounded(params))
