"""Snapshots: the model, detecting and recording changes, rebuilding and validating them."""

from snapline.snapshots.read.reconstruct import ContentUnavailableError, NotInSnapshotError
from snapline.snapshots.record.detect import StateMismatchError
from snapline.snapshots.record.journal import ContentMismatchError
from snapline.snapshots.snapshot import (
    ChangeKind,
    FileChange,
    Problem,
    Report,
    SideSnapshot,
    SkippedPath,
    Snapshot,
    Storage,
)

__all__ = [
    "ChangeKind",
    "ContentMismatchError",
    "ContentUnavailableError",
    "FileChange",
    "NotInSnapshotError",
    "Problem",
    "Report",
    "SideSnapshot",
    "SkippedPath",
    "Snapshot",
    "StateMismatchError",
    "Storage",
]
