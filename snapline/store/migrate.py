"""The SQL of upgrading a 0.1 store (format 1) into a local index (format 2).

Used only by :mod:`snapline.upgrade`, which owns the procedure; this module holds the
statements because only the store speaks SQL. The 0.1 store is read through a read-only
connection and copied with SQLite's backup API; everything after that changes the copy.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from snapline.store.errors import StoreCorruptError, translate
from snapline.store.schema import FORMAT_VERSION, SCHEMA
from snapline.store.sqlite import SqliteStore

__all__ = ["copy_store", "delete_milestones", "delete_snapshot", "upgrade_schema"]


def copy_store(source: Path, target: Path, busy_timeout: float) -> int:
    """Copy the database ``source`` to the new file ``target``, leaving ``source`` as it is.

    The copy goes through a read-only connection and SQLite's backup API, so it is one
    consistent view even if another process reads (and checkpoints) meanwhile. A store
    closed cleanly has no write-ahead log; it is then opened as immutable, which creates
    no ``-wal`` or ``-shm`` file beside it. A log left by a process that died is read
    with the rest.

    Args:
        source: The 0.1 store.
        target: Where the copy goes; it must not exist.
        busy_timeout: How long to wait for another process's lock, in seconds.

    Returns:
        The format version ``source`` declares.

    Raises:
        StoreCorruptError: If ``source`` is not a readable snapline store.
        StoreBusyError: If another process holds it past the timeout.
    """
    immutable = "" if os.path.lexists(f"{source}-wal") else "&immutable=1"
    try:
        reader = sqlite3.connect(
            f"{source.resolve().as_uri()}?mode=ro{immutable}", uri=True, timeout=busy_timeout
        )
    except sqlite3.Error as error:
        raise translate(error, source, busy_timeout) from None
    try:
        writer = sqlite3.connect(target, timeout=busy_timeout)
        try:
            reader.backup(writer)
            rows = writer.execute("SELECT value FROM meta WHERE key = 'format_version'").fetchall()
        finally:
            writer.close()
        return int(rows[0][0])
    except sqlite3.DatabaseError as error:
        raise translate(error, source, busy_timeout, f"cannot be copied ({error})") from None
    except (IndexError, TypeError, ValueError) as error:
        raise StoreCorruptError(source, f"no readable format version ({error})") from None
    finally:
        reader.close()


def upgrade_schema(store: SqliteStore) -> None:
    """Bring a format 1 store to the current format: new column, new tables, new version.

    Snapshots gain ``merges`` (``'[]'``: 0.1 had one line); the tables format 1 lacks
    are created as :data:`~snapline.store.schema.SCHEMA` declares them. Runs in one
    transaction.

    Args:
        store: The open copy of a 0.1 store.
    """
    connection = store.connection
    with connection.write():
        db = connection.db
        columns = {str(row[1]) for row in db.execute("PRAGMA table_info(snapshots)")}
        if "merges" not in columns:
            db.execute("ALTER TABLE snapshots ADD COLUMN merges TEXT NOT NULL DEFAULT '[]'")
        existing = {str(row[0]) for row in db.execute("SELECT name FROM sqlite_master")}
        for statement in SCHEMA.split(";"):
            words = statement.split()
            # CREATE TABLE name / CREATE INDEX name ON ...: the name is the third word.
            if len(words) > 2 and words[0] == "CREATE" and words[2] not in existing:
                db.execute(statement)
        db.execute("UPDATE meta SET value = ? WHERE key = 'format_version'", (str(FORMAT_VERSION),))


def delete_snapshot(store: SqliteStore, number: int) -> None:
    """Remove snapshot ``number`` and its changes, to insert it again; call in ``write()``."""
    connection = store.connection
    connection.require_transaction()
    connection.db.execute("DELETE FROM changes WHERE snapshot = ?", (number,))
    connection.db.execute("DELETE FROM snapshots WHERE number = ?", (number,))


def delete_milestones(store: SqliteStore) -> None:
    """Remove every milestone, to insert them again; call inside ``write()``."""
    connection = store.connection
    connection.require_transaction()
    connection.db.execute("DELETE FROM milestones")
