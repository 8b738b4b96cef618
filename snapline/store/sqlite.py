"""The SQLite store behind ``.snapline/store.db``: one object per table on one connection.

The only code that speaks SQL is in this package. :class:`SqliteStore` implements the
:class:`~snapline.store.protocol.Store` protocol; rows cross its boundary as the plain
records of :mod:`snapline.store.rows`.
"""

from __future__ import annotations

import json
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from snapline.store.changes import ChangeTable
from snapline.store.connection import DEFAULT_BUSY_TIMEOUT, Connection
from snapline.store.content import BlobTable
from snapline.store.errors import StoreCorruptError
from snapline.store.forgotten import ForgottenTable
from snapline.store.journal import JournalTable
from snapline.store.ledgerless import Ledgerless
from snapline.store.milestones import MilestoneTable
from snapline.store.rows import (
    ForgottenRow,
)
from snapline.store.snapshots import SnapshotTable
from snapline.store.state import KnownStateTable, StatCacheTable

if TYPE_CHECKING:
    from snapline.store.protocol import Store

__all__ = ["DB_NAME", "SqliteStore"]

DB_NAME = "store.db"


class SqliteStore(Ledgerless):
    """An open ``store.db``. Use :meth:`create` or :meth:`open`, then :meth:`close`.

    Attributes:
        path: The database file.
        snapshots: Snapshot headers.
        changes: File changes.
        blobs: Content-addressed blobs.
        state: The known state.
        stat_cache: The stat cache.
        milestones: Milestones.
        journal: The journal of workspace changes under way.
    """

    def __init__(self, connection: Connection) -> None:
        """Build the tables on an open connection; use :meth:`create` or :meth:`open`.

        Args:
            connection: The open connection, which the store now owns.
        """
        self._connection = connection
        self.path = connection.path
        self.changes = ChangeTable(connection)
        self.snapshots = SnapshotTable(connection, self.changes)
        self.blobs = BlobTable(connection)
        self.state = KnownStateTable(connection)
        self.stat_cache = StatCacheTable(connection)
        self.milestones = MilestoneTable(connection)
        self.journal = JournalTable(connection)
        self._forgotten = ForgottenTable(connection)

    @classmethod
    def create(
        cls,
        path: Path,
        config: dict[str, Any],
        busy_timeout: float = DEFAULT_BUSY_TIMEOUT,
        *,
        synced: bool = True,
    ) -> SqliteStore:
        """Create a new, empty store at ``path`` with the given configuration.

        Args:
            path: Where the database file goes; it must not exist yet.
            config: The workspace configuration to keep in the store.
            busy_timeout: How long to wait for another process's lock, in seconds.
            synced: Whether each commit is synced; false only for a file its builder
                syncs once before giving it the name readers open
                (:func:`~snapline.store.dbfile.connect`).

        Returns:
            The open store.

        Raises:
            StoreBusyError: If another process holds the file.
            StoreCorruptError: If SQLite cannot create it.
        """
        return cls(Connection.create(path, config, busy_timeout, synced=synced))

    @classmethod
    def open(cls, path: Path, busy_timeout: float = DEFAULT_BUSY_TIMEOUT) -> SqliteStore:
        """Open an existing store, refusing one that is corrupt or too new.

        Args:
            path: The database file.
            busy_timeout: How long to wait for another process's lock, in seconds.

        Returns:
            The open store.

        Raises:
            StoreBusyError: If another process holds the file past the timeout.
            StoreCorruptError: If the file is not a snapline store; it is left untouched.
            StoreVersionError: If its format is newer than this version reads.
        """
        return cls(Connection.open(path, busy_timeout))

    @property
    def connection(self) -> Connection:
        """The connection the tables share (for stores built on this one)."""
        return self._connection

    def close(self) -> None:
        """Close the connection; the store cannot be used afterwards."""
        self._connection.close()

    def write(self) -> AbstractContextManager[None]:
        """A block run as one ``BEGIN IMMEDIATE`` transaction; nests.

        Returns:
            The context manager; an exception leaving it rolls everything back.

        Raises:
            StoreBusyError: If another writer holds the store past the busy timeout.
            StoreCorruptError: If SQLite reports the database as damaged.
        """
        return self._connection.write()

    def read(self) -> AbstractContextManager[None]:
        """A block that sees one consistent view of the store; inside ``write()`` it joins.

        Returns:
            The context manager.

        Raises:
            StoreBusyError: If the store stays locked past the busy timeout.
            StoreCorruptError: If SQLite reports the database as damaged.
        """
        return self._connection.read()

    def config(self) -> dict[str, Any]:
        """The workspace configuration kept in the store.

        Raises:
            StoreCorruptError: If it is missing or not a JSON object.
        """
        try:
            value = json.loads(self._meta("config"))
        except ValueError:
            raise StoreCorruptError(self.path, "the configuration is not JSON") from None
        if not isinstance(value, dict):
            raise StoreCorruptError(self.path, "the configuration is not an object")
        return value

    def format_version(self) -> int:
        """The format version the store declares."""
        return int(self._meta("format_version"))

    def generation(self) -> tuple[int, int]:
        """A value that differs whenever anything may have been committed in between.

        ``PRAGMA data_version`` changes when another connection commits, and
        ``total_changes`` counts this connection's own row changes; equal values mean
        the store holds what it held. Read inside :meth:`read` or :meth:`write`, to
        describe the view that the next queries see.
        """
        rows = self._connection.query("PRAGMA data_version")
        return int(rows[0][0]), self._connection.db.total_changes

    def refresh(self) -> bool:
        """Nothing to catch up with: this store is its own source. Returns ``False``."""
        return False

    def stale(self) -> bool:
        """Never stale: returns ``False``."""
        return False

    def forgotten_hashes(self) -> set[str]:
        """The hashes recorded in the ``forgotten`` table."""
        return self._forgotten.hashes()

    def forgotten_version(self, path: str, hash_: str) -> ForgottenRow | None:
        """The version ``hash_`` of ``path`` in the ``forgotten`` table, or ``None``."""
        return self._forgotten.get(path, hash_)

    def integrity_problems(self) -> list[str]:
        """SQLite's own ``quick_check``: an empty list when the file is sound."""
        rows = self._connection.query("PRAGMA quick_check")
        return [str(row[0]) for row in rows if row[0] != "ok"]

    def vacuum(self) -> None:
        """Rebuild the file without the space of deleted rows; call outside ``write()``.

        Raises:
            StoreBusyError: If another process holds the store past the busy timeout.
            StoreCorruptError: If SQLite fails otherwise.
        """
        self._connection.run("VACUUM")

    def _meta(self, key: str) -> str:
        rows = self._connection.query("SELECT value FROM meta WHERE key = ?", (key,))
        if not rows:
            raise StoreCorruptError(self.path, f"meta key {key!r} is missing")
        return str(rows[0][0])


if TYPE_CHECKING:

    def _is_a_store(store: SqliteStore) -> Store:
        # mypy proves here that SqliteStore has everything the Store protocol names.
        return store
