"""The index's database file seen as files: its format version read safely, its companions.

Kept apart from :mod:`snapline.store.connection`, which holds the open connection: these
look at the file (and the ``-wal``, ``-shm`` and ``-journal`` beside it) before or
around a connection.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from snapline.store.errors import StoreCorruptError, translate

__all__ = ["LOG_SUFFIXES", "companions", "identity", "probe_version", "remove_stale_logs"]

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
    try:
        db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=busy_timeout)
    except sqlite3.Error as error:
        raise translate(error, path, busy_timeout) from None
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
