"""The SQLite store behind ``.snapline/store.db``."""

from snapline.store.database import (
    DB_NAME,
    ChangeRow,
    Fingerprint,
    JournalRow,
    MilestoneRow,
    SnapshotRow,
    StateRow,
    StatRow,
    Store,
    StoreBusyError,
    StoreCorruptError,
    StoreVersionError,
)
from snapline.store.schema import FORMAT_VERSION

SqliteStore = Store

__all__ = [
    "DB_NAME",
    "FORMAT_VERSION",
    "ChangeRow",
    "Fingerprint",
    "JournalRow",
    "MilestoneRow",
    "SnapshotRow",
    "SqliteStore",
    "StatRow",
    "StateRow",
    "Store",
    "StoreBusyError",
    "StoreCorruptError",
    "StoreVersionError",
]
