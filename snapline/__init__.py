"""snapline: a milestone-oriented snapshot manager with continuity validation.

The public API is re-exported here; everything else is internal.
"""

from snapline.errors import SnaplineError
from snapline.paths import UnsafePathError
from snapline.scanning import FileChangingError
from snapline.snapshots import (
    ChangeKind,
    ContentMismatchError,
    ContentUnavailableError,
    FileChange,
    NotInSnapshotError,
    Problem,
    Report,
    SkippedPath,
    Snapshot,
    StateMismatchError,
    Storage,
)
from snapline.snapshots.commit import MetadataError
from snapline.snapshots.recorder import CommandError, GcResult, NotTrackedError, RunResult
from snapline.store import StoreBusyError, StoreCorruptError, StoreVersionError
from snapline.workspace import (
    AlreadyInitializedError,
    NotInitializedError,
    SnapshotNotFoundError,
    Tracking,
    UnsafeRootError,
    Workspace,
)

__version__ = "0.1.0"

__all__ = [
    "AlreadyInitializedError",
    "ChangeKind",
    "CommandError",
    "ContentMismatchError",
    "ContentUnavailableError",
    "FileChange",
    "FileChangingError",
    "GcResult",
    "MetadataError",
    "NotInSnapshotError",
    "NotInitializedError",
    "NotTrackedError",
    "Problem",
    "Report",
    "RunResult",
    "SkippedPath",
    "SnaplineError",
    "Snapshot",
    "SnapshotNotFoundError",
    "StateMismatchError",
    "Storage",
    "StoreBusyError",
    "StoreCorruptError",
    "StoreVersionError",
    "Tracking",
    "UnsafePathError",
    "UnsafeRootError",
    "Workspace",
    "__version__",
]
