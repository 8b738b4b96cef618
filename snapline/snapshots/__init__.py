"""Snapshots: the model, detecting and recording changes, rebuilding and validating them."""

from snapline.snapshots.detect import StateMismatchError
from snapline.snapshots.journal import ContentMismatchError
from snapline.snapshots.model import (
    ChangeKind,
    FileChange,
    Problem,
    Report,
    SkippedPath,
    Snapshot,
    Storage,
)
from snapline.snapshots.reconstruct import ContentUnavailableError, NotInSnapshotError

__all__ = [
    "ChangeKind",
    "ContentMismatchError",
    "ContentUnavailableError",
    "FileChange",
    "NotInSnapshotError",
    "Problem",
    "Report",
    "SkippedPath",
    "Snapshot",
    "StateMismatchError",
    "Storage",
]
