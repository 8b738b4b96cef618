"""The store: the seam between the domain and where the history is kept.

The domain is typed against the protocols (:class:`Store`, :class:`StoreReader` and one
reader and writer per table); :class:`SqliteStore` implements them over
``.snapline/store.db``. Rows cross the seam as the records of :mod:`snapline.store.rows`,
and failures as :class:`StoreBusyError` or :class:`StoreCorruptError`.
"""

from typing import TYPE_CHECKING

from snapline.lazy import lazy_exports
from snapline.store.errors import (
    AccessProblem,
    InTreeLedgerError,
    MergedLedgerError,
    StoreAccessError,
    StoreBusyError,
    StoreCorruptError,
    StoreUsageError,
    StoreVersionError,
    access_problem,
)
from snapline.store.rows import (
    ChangeRow,
    Checkpoint,
    FileStamp,
    Fingerprint,
    ForgottenRow,
    JournalRow,
    LedgerEntry,
    MilestoneRow,
    SideRow,
    SnapshotRow,
    StateRow,
    StatRow,
    shape_problem,
    state_moves,
)
from snapline.store.schema import FORMAT_VERSION
from snapline.store.sqlite import DB_NAME, SqliteStore

if TYPE_CHECKING:
    from snapline.store.protocol import (
        BlobReader,
        BlobWriter,
        ChangeReader,
        ChangeWriter,
        JournalReader,
        JournalWriter,
        KnownStateReader,
        KnownStateWriter,
        MilestoneReader,
        MilestoneWriter,
        SnapshotReader,
        SnapshotWriter,
        StatCacheReader,
        StatCacheWriter,
        Store,
        StoreReader,
    )

__all__ = [
    "DB_NAME",
    "FORMAT_VERSION",
    "AccessProblem",
    "BlobReader",
    "BlobWriter",
    "ChangeReader",
    "ChangeRow",
    "ChangeWriter",
    "Checkpoint",
    "FileStamp",
    "Fingerprint",
    "ForgottenRow",
    "InTreeLedgerError",
    "JournalReader",
    "JournalRow",
    "JournalWriter",
    "KnownStateReader",
    "KnownStateWriter",
    "LedgerEntry",
    "MergedLedgerError",
    "MilestoneReader",
    "MilestoneRow",
    "MilestoneWriter",
    "SideRow",
    "SnapshotReader",
    "SnapshotRow",
    "SnapshotWriter",
    "SqliteStore",
    "StatCacheReader",
    "StatCacheWriter",
    "StatRow",
    "StateRow",
    "Store",
    "StoreAccessError",
    "StoreBusyError",
    "StoreCorruptError",
    "StoreReader",
    "StoreUsageError",
    "StoreVersionError",
    "access_problem",
    "shape_problem",
    "state_moves",
]

# The protocols are types: a command that only records loads them only for a type
# checker, or when something asks for one by name (snapline/lazy.py).
__getattr__, __dir__ = lazy_exports(
    __name__,
    dict.fromkeys(
        (
            "BlobReader",
            "BlobWriter",
            "ChangeReader",
            "ChangeWriter",
            "JournalReader",
            "JournalWriter",
            "KnownStateReader",
            "KnownStateWriter",
            "MilestoneReader",
            "MilestoneWriter",
            "SnapshotReader",
            "SnapshotWriter",
            "StatCacheReader",
            "StatCacheWriter",
            "Store",
            "StoreReader",
        ),
        "snapline.store.protocol",
    ),
)
