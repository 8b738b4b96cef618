"""Snapshots: the model, detecting and recording changes, rebuilding and validating them.

The names are loaded on first use (PEP 562), as in ``snapline/__init__.py``: importing
``snapline.snapshots.snapshot`` runs this file first, and must not load detection,
the journal and the reconstructor with it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from snapline.lazy import lazy_exports

if TYPE_CHECKING:
    from snapline.snapshots.kinds import ChangeKind, Storage
    from snapline.snapshots.read.reconstruct import ContentUnavailableError, NotInSnapshotError
    from snapline.snapshots.record.journal import ContentMismatchError
    from snapline.snapshots.record.mismatch import StateMismatchError
    from snapline.snapshots.snapshot import (
        FileChange,
        Problem,
        Report,
        SideSnapshot,
        SkippedPath,
        Snapshot,
    )

_EXPORTS: dict[str, str] = {
    "ChangeKind": "snapline.snapshots.kinds",
    "ContentMismatchError": "snapline.snapshots.record.journal",
    "ContentUnavailableError": "snapline.snapshots.read.reconstruct",
    "FileChange": "snapline.snapshots.snapshot",
    "NotInSnapshotError": "snapline.snapshots.read.reconstruct",
    "Problem": "snapline.snapshots.snapshot",
    "Report": "snapline.snapshots.snapshot",
    "SideSnapshot": "snapline.snapshots.snapshot",
    "SkippedPath": "snapline.snapshots.snapshot",
    "Snapshot": "snapline.snapshots.snapshot",
    "StateMismatchError": "snapline.snapshots.record.mismatch",
    "Storage": "snapline.snapshots.kinds",
}

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


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
