"""The index's database file seen as files: its format version read safely, its companions.

Kept apart from :mod:`snapline.store.connection`, which holds the open connection: these
look at the file (and the ``-wal``, ``-shm`` and ``-journal`` beside it) before or
around a connection.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from snapline.store.errors import AccessProblem, StoreAccessError, StoreCorruptError, translate

__all__ = [
    "LOG_SUFFIXES",
    "Opened",
    "companions",
    "connect",
    "identity",
    "memory_copy",
    "open_read_only",
    "probe_version",
    "refusal",
    "refused",
    "remove_stale_logs",
]

Opened = tuple[sqlite3.Connection, bool]
"""A connection to the store, and whether it only reads (this user cannot write)."""


def connect(path: Path, busy_timeout: float, *, synced: bool = True) -> Opened:
    """The store's connection: read-write in WAL mode, or read-only where that is refused.

    Args:
        path: The database file.
        busy_timeout: How long to wait for another process's lock, in seconds.
        synced: Each commit synced (``synchronous=FULL``); false (``OFF``) only for a
            file under a name no reader opens, which its builder syncs once before
            naming it (an index built from the refs: ``store/refs/opening.py``).

    Returns:
        The connection (autocommit, shared by threads: every use is serialised by
        :class:`~snapline.store.connection.Connection`), and whether it only reads.

    Raises:
        StoreAccessError: If the operating system refuses even reading it.
        StoreCorruptError: If SQLite finds the file damaged.
    """
    db = None
    try:
        db = sqlite3.connect(
            path, timeout=busy_timeout, isolation_level=None, check_same_thread=False
        )
        # Set first: a new file's switch to WAL is its first write.
        db.execute(f"PRAGMA synchronous={'FULL' if synced else 'OFF'}")
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA foreign_keys=ON")
    except sqlite3.DatabaseError as error:
        if db is not None:
            db.close()
        if not (path.is_file() and refused(error, path)):
            raise translate(error, path, busy_timeout) from None
        # A store this user cannot write (its directory, its file, a read-only mount):
        # read it, as git reads a read-only repository; a write then says why not.
        return open_read_only(path, busy_timeout), True
    return db, False


def memory_copy(db: sqlite3.Connection, path: Path, busy_timeout: float) -> sqlite3.Connection:
    """A copy of the database ``db`` in memory: writable, private, never saved.

    For a reader on a store this user cannot write whose index lags its ledger: the
    catch-up runs on the copy, so the files are left exactly as they were.

    Raises:
        StoreCorruptError: If SQLite cannot read the store.
    """
    memory = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
    try:
        db.backup(memory)
        memory.execute("PRAGMA foreign_keys=ON")
    except sqlite3.DatabaseError as error:
        memory.close()
        raise translate(error, path, busy_timeout) from None
    return memory


def refusal(path: Path) -> StoreAccessError:
    """The error of a write to a store opened for reading only (nothing was tried)."""
    return StoreAccessError(path, AccessProblem.PERMISSION, "this user cannot write the store")


LOG_SUFFIXES = ("-wal", "-shm", "-journal")
"""The files SQLite keeps beside a database, named after it: its log, the log's index, and
the rollback journal."""


def probe_version(path: Path, busy_timeout: float) -> int:
    """The format version a database file declares, read without changing the file.

    Read through a read-only connection: opening it for writing switches it to WAL
    mode, which writes to it, and a file that is not a snapline store (another
    database, an empty or damaged file) must be left as it is. A read-only connection
    cannot roll back a hot journal (a bulk load that died, see
    :meth:`~snapline.store.connection.Connection.bulk_write`), so when one is beside
    the file it is rolled back first, as any SQLite connection that may write would.

    Args:
        path: The database file.
        busy_timeout: How long to wait for another process's lock, in seconds.

    Returns:
        The version.

    Raises:
        StoreBusyError: If another process holds the file past the timeout.
        StoreCorruptError: If the file is not a snapline store.
    """
    if os.path.lexists(f"{path}-journal"):
        _roll_back(path, busy_timeout)
    db = open_read_only(path, busy_timeout)
    try:
        rows = db.execute("SELECT value FROM meta WHERE key = 'format_version'").fetchall()
        return int(rows[0][0])
    except sqlite3.DatabaseError as error:
        detail = f"no readable format version ({error})"
        raise translate(error, path, busy_timeout, detail) from None
    except (IndexError, TypeError, ValueError) as error:
        raise StoreCorruptError(path, f"no readable format version ({error})") from None
    finally:
        db.close()


def open_read_only(path: Path, busy_timeout: float) -> sqlite3.Connection:
    """A connection that only reads ``path``, also where this user cannot write.

    ``mode=ro`` first: it reads a WAL database under SQLite's locks. Where that is
    refused too (the WAL index ``-shm`` cannot be made: a read-only directory or file
    system, a store of another user), and no log lies beside the file (every committed
    transaction is then in the file itself), the file is read as immutable: no lock and
    no ``-shm``, as for a database on read-only media. With a log beside it the file
    alone is not the whole store, so the refusal stands.

    Args:
        path: The database file.
        busy_timeout: How long to wait for another process's lock, in seconds.

    Returns:
        The connection, in autocommit mode, shareable between threads.

    Raises:
        StoreAccessError: If the file cannot be read, or only its log could complete it.
        StoreCorruptError: If SQLite finds the file damaged.
    """
    uri = path.resolve().as_uri()
    try:
        return _check(_connect(f"{uri}?mode=ro", busy_timeout), path, busy_timeout)
    except StoreAccessError as error:
        refusal = error.problem in (AccessProblem.PERMISSION, AccessProblem.OPEN)
        if not refusal or not path.is_file() or _logged(path):
            raise
    return _check(_connect(f"{uri}?immutable=1", busy_timeout), path, busy_timeout)


def refused(error: sqlite3.Error, path: Path) -> bool:
    """Whether SQLite's ``error`` means the OS would not let this user write ``path``."""
    problem = translate(error, path, 0)
    return isinstance(problem, StoreAccessError) and problem.problem in (
        AccessProblem.PERMISSION,
        AccessProblem.OPEN,
    )


def _connect(uri: str, busy_timeout: float) -> sqlite3.Connection:
    try:
        return sqlite3.connect(
            uri, uri=True, timeout=busy_timeout, isolation_level=None, check_same_thread=False
        )
    except sqlite3.Error as error:
        raise translate(error, uri, busy_timeout) from None


def _check(db: sqlite3.Connection, path: Path, busy_timeout: float) -> sqlite3.Connection:
    # SQLite opens lazily: the first read is where a refusal shows.
    try:
        db.execute("SELECT count(*) FROM sqlite_master").fetchall()
    except sqlite3.DatabaseError as error:
        db.close()
        raise translate(error, path, busy_timeout) from None
    return db


def _logged(path: Path) -> bool:
    # A WAL with frames holds commits the file lacks; a journal, a load to roll back.
    try:
        return os.path.getsize(f"{path}-wal") > 0 or os.path.lexists(f"{path}-journal")
    except OSError:
        return os.path.lexists(f"{path}-journal")


def _roll_back(path: Path, busy_timeout: float) -> None:
    # A journal whose writer is alive is not hot: SQLite then only reads, under its lock.
    # A file that is not a database is left to the read-only probe to report.
    try:
        db = sqlite3.connect(path, timeout=busy_timeout, isolation_level=None)
    except sqlite3.Error as error:
        raise translate(error, path, busy_timeout) from None
    try:
        db.execute("SELECT count(*) FROM sqlite_master").fetchall()
    except sqlite3.DatabaseError as error:
        problem = translate(error, path, busy_timeout)
        if not isinstance(problem, StoreCorruptError):
            raise problem from None
    finally:
        db.close()


def companions(path: Path) -> tuple[tuple[int, int] | None, ...]:
    """The identity of the database's WAL and WAL index, where present."""
    return identity(f"{path}-wal"), identity(f"{path}-shm")


def identity(name: str | os.PathLike[str]) -> tuple[int, int] | None:
    """``(device, inode)`` of a file, or ``None`` when there is none."""
    try:
        info = os.stat(name)
    except OSError:
        return None
    return info.st_dev, info.st_ino


def remove_stale_logs(path: Path) -> list[str]:
    """Remove the ``-wal``, ``-shm`` and ``-journal`` a database gone from ``path`` left.

    SQLite pairs these files with a database by name alone. A WAL's frames are checked
    against the WAL's own header, never against the database file, so the log of a
    deleted database is replayed over whatever file next takes its name (SQLite drops
    it on its own only when that file is empty, and a new index never is); a hot
    journal is rolled back into it the same way. A ``-shm`` that a process still holds
    open would hand the new file that process's view of its own log.

    Call it only while no database is at ``path`` and no other process can create one
    there (under the lock that creates it): a log beside a database holds transactions
    committed but not yet copied into the file.

    Args:
        path: Where a database file is about to be created.

    Returns:
        The names removed.

    Raises:
        FileExistsError: If ``path`` is a file: its logs belong to it.
    """
    if os.path.isfile(path):
        raise FileExistsError(f"{path} exists: its logs are not stale")
    removed = []
    for suffix in LOG_SUFFIXES:
        name = f"{path}{suffix}"
        try:
            os.unlink(name)
        except FileNotFoundError:
            continue
        removed.append(name)
    return removed
