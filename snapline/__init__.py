"""snapline: a milestone-oriented snapshot manager with continuity validation.

The public API is re-exported here; everything else is internal.

The names are loaded on first use (PEP 562): ``snapline --help`` imports this package on
its way to ``snapline.cli``, and must not pay for pydantic, sqlite3 and the diff engine
it never touches. Add a new public name to ``_EXPORTS`` (and the ``TYPE_CHECKING``
block, for type checkers), not as an import at the top.
"""

from __future__ import annotations

from snapline.lazy import lazy_exports

TYPE_CHECKING = False  # not `typing`'s: see snapline/lazy.py
if TYPE_CHECKING:
    from snapline.blame import BlameLine, FileBlame, LineKind, Origin
    from snapline.blame.summary import BlameSummary, LineCounts
    from snapline.branching import BranchError, BranchResult
    from snapline.errors import SnaplineError
    from snapline.guard import CheckOutcome, CheckOutput, ForeignSnapshot, GuardResult, Outcome
    from snapline.milestones import (
        EmptyMilestoneError,
        Milestone,
        MilestoneArgumentError,
        MilestoneContinuityError,
        MilestoneNotFoundError,
        MilestoneRangeError,
        MilestoneRecordError,
        Milestones,
        MilestoneStats,
        OpenRange,
    )
    from snapline.milestones.lines import OtherLine, OtherMilestone, Place
    from snapline.paths import (
        OutputInStoreError,
        ProtectedPathError,
        UnsafePathError,
        UnsafeRecordError,
    )
    from snapline.report import ReportOutputError, ReportScopeError
    from snapline.scanning import FileChangingError
    from snapline.snapshots import (
        ChangeKind,
        ContentMismatchError,
        ContentUnavailableError,
        FileChange,
        NotInSnapshotError,
        Problem,
        Report,
        SideSnapshot,
        SkippedPath,
        Snapshot,
        StateMismatchError,
        Storage,
    )
    from snapline.snapshots.info import MetadataError, SnapshotInfo
    from snapline.snapshots.info_fields import Who
    from snapline.snapshots.read.diffstat import FileStat
    from snapline.snapshots.read.history import SnapshotRangeError
    from snapline.snapshots.read.ids import SnapshotIdError
    from snapline.snapshots.read.lines import DivergedHistoryError, Line
    from snapline.snapshots.read.prompts import PromptNotFoundError
    from snapline.snapshots.read.reconstruct import ForgottenVersionError
    from snapline.snapshots.read.refs import SideSnapshotError, SnapshotRefError
    from snapline.snapshots.record.build import Limits
    from snapline.snapshots.record.command import CommandError, RunResult
    from snapline.snapshots.record.edits import EditMatchError, NotTrackedError
    from snapline.snapshots.record.forget import (
        ForgetResult,
        ForgottenVersionRecord,
        NothingToForgetError,
        SharedContentError,
    )
    from snapline.snapshots.record.gc import GcResult
    from snapline.snapshots.record.journal import RecoveryBlockedError
    from snapline.snapshots.record.presence import StoreVanishedError
    from snapline.snapshots.restore.revert import BaselineRevertError, RevertConflictError
    from snapline.snapshots.restore.rollback import RollbackConflictError
    from snapline.snapshots.restore.undo import NothingToRedoError, NothingToUndoError
    from snapline.snapshots.results import (
        Conflict,
        ModifiedFile,
        Move,
        RevertResult,
        RollbackResult,
    )
    from snapline.snapshots.snapshot import Explained, ExplainingSnapshot
    from snapline.store import (
        InTreeLedgerError,
        StoreAccessError,
        StoreBusyError,
        StoreCorruptError,
        StoreUsageError,
        StoreVersionError,
    )
    from snapline.workspace import (
        AlreadyInitializedError,
        NotInitializedError,
        SnapshotNotFoundError,
        Tracking,
        UnknownPathError,
        UnsafeRootError,
        Workspace,
    )

__version__ = "0.2.0"

_EXPORTS: dict[str, str] = {
    "AlreadyInitializedError": "snapline.workspace",
    "BlameLine": "snapline.blame",
    "BlameSummary": "snapline.blame.summary",
    "BranchError": "snapline.branching",
    "BranchResult": "snapline.branching",
    "ChangeKind": "snapline.snapshots",
    "CheckOutcome": "snapline.guard",
    "CheckOutput": "snapline.guard",
    "CommandError": "snapline.snapshots.record.command",
    "ContentMismatchError": "snapline.snapshots",
    "ContentUnavailableError": "snapline.snapshots",
    "Explained": "snapline.snapshots.snapshot",
    "ExplainingSnapshot": "snapline.snapshots.snapshot",
    "FileBlame": "snapline.blame",
    "FileChange": "snapline.snapshots",
    "FileChangingError": "snapline.scanning",
    "FileStat": "snapline.snapshots.read.diffstat",
    "ForeignSnapshot": "snapline.guard",
    "ForgetResult": "snapline.snapshots.record.forget",
    "ForgottenVersionError": "snapline.snapshots.read.reconstruct",
    "ForgottenVersionRecord": "snapline.snapshots.record.forget",
    "GcResult": "snapline.snapshots.record.gc",
    "GuardResult": "snapline.guard",
    "InTreeLedgerError": "snapline.store",
    "Limits": "snapline.snapshots.record.build",
    "Line": "snapline.snapshots.read.lines",
    "LineCounts": "snapline.blame.summary",
    "LineKind": "snapline.blame",
    "NothingToForgetError": "snapline.snapshots.record.forget",
    "SharedContentError": "snapline.snapshots.record.forget",
    "MetadataError": "snapline.snapshots.info",
    "BaselineRevertError": "snapline.snapshots.restore.revert",
    "Conflict": "snapline.snapshots.results",
    "ModifiedFile": "snapline.snapshots.results",
    "Move": "snapline.snapshots.results",
    "RecoveryBlockedError": "snapline.snapshots.record.journal",
    "RevertConflictError": "snapline.snapshots.restore.revert",
    "RevertResult": "snapline.snapshots.results",
    "RollbackConflictError": "snapline.snapshots.restore.rollback",
    "RollbackResult": "snapline.snapshots.results",
    "SnapshotRangeError": "snapline.snapshots.read.history",
    "SnapshotRefError": "snapline.snapshots.read.refs",
    "SideSnapshotError": "snapline.snapshots.read.refs",
    "SnapshotIdError": "snapline.snapshots.read.ids",
    "EditMatchError": "snapline.snapshots.record.edits",
    "EmptyMilestoneError": "snapline.milestones",
    "Milestone": "snapline.milestones",
    "MilestoneArgumentError": "snapline.milestones",
    "MilestoneContinuityError": "snapline.milestones",
    "MilestoneNotFoundError": "snapline.milestones",
    "MilestoneRangeError": "snapline.milestones",
    "MilestoneRecordError": "snapline.milestones",
    "MilestoneStats": "snapline.milestones",
    "Milestones": "snapline.milestones",
    "OpenRange": "snapline.milestones",
    "Origin": "snapline.blame",
    "OtherLine": "snapline.milestones.lines",
    "OtherMilestone": "snapline.milestones.lines",
    "Outcome": "snapline.guard",
    "OutputInStoreError": "snapline.paths",
    "Place": "snapline.milestones.lines",
    "ProtectedPathError": "snapline.paths",
    "PromptNotFoundError": "snapline.snapshots.read.prompts",
    "NotInSnapshotError": "snapline.snapshots",
    "NothingToRedoError": "snapline.snapshots.restore.undo",
    "NothingToUndoError": "snapline.snapshots.restore.undo",
    "NotInitializedError": "snapline.workspace",
    "NotTrackedError": "snapline.snapshots.record.edits",
    "Problem": "snapline.snapshots",
    "Report": "snapline.snapshots",
    "ReportOutputError": "snapline.report",
    "ReportScopeError": "snapline.report",
    "RunResult": "snapline.snapshots.record.command",
    "SkippedPath": "snapline.snapshots",
    "SideSnapshot": "snapline.snapshots",
    "DivergedHistoryError": "snapline.snapshots.read.lines",
    "SnaplineError": "snapline.errors",
    "Snapshot": "snapline.snapshots",
    "SnapshotInfo": "snapline.snapshots.info",
    "SnapshotNotFoundError": "snapline.snapshots.read.history",
    "StateMismatchError": "snapline.snapshots",
    "Storage": "snapline.snapshots",
    "StoreAccessError": "snapline.store",
    "StoreBusyError": "snapline.store",
    "StoreCorruptError": "snapline.store",
    "StoreVanishedError": "snapline.snapshots.record.presence",
    "StoreUsageError": "snapline.store",
    "StoreVersionError": "snapline.store",
    "Tracking": "snapline.workspace",
    "UnknownPathError": "snapline.workspace",
    "UnsafePathError": "snapline.paths",
    "UnsafeRecordError": "snapline.paths",
    "UnsafeRootError": "snapline.workspace",
    "Who": "snapline.snapshots.info_fields",
    "Workspace": "snapline.workspace",
}

__all__ = [
    "AlreadyInitializedError",
    "BaselineRevertError",
    "BlameLine",
    "BlameSummary",
    "BranchError",
    "BranchResult",
    "ChangeKind",
    "CheckOutcome",
    "CheckOutput",
    "CommandError",
    "Conflict",
    "ContentMismatchError",
    "ContentUnavailableError",
    "DivergedHistoryError",
    "EditMatchError",
    "EmptyMilestoneError",
    "Explained",
    "ExplainingSnapshot",
    "FileBlame",
    "FileChange",
    "FileChangingError",
    "FileStat",
    "ForeignSnapshot",
    "ForgetResult",
    "ForgottenVersionError",
    "ForgottenVersionRecord",
    "GcResult",
    "GuardResult",
    "InTreeLedgerError",
    "Limits",
    "Line",
    "LineCounts",
    "LineKind",
    "MetadataError",
    "Milestone",
    "MilestoneArgumentError",
    "MilestoneContinuityError",
    "MilestoneNotFoundError",
    "MilestoneRangeError",
    "MilestoneRecordError",
    "MilestoneStats",
    "Milestones",
    "ModifiedFile",
    "Move",
    "NotInSnapshotError",
    "NotInitializedError",
    "NotTrackedError",
    "NothingToForgetError",
    "NothingToRedoError",
    "NothingToUndoError",
    "OpenRange",
    "Origin",
    "OtherLine",
    "OtherMilestone",
    "Outcome",
    "OutputInStoreError",
    "Place",
    "Problem",
    "PromptNotFoundError",
    "ProtectedPathError",
    "RecoveryBlockedError",
    "Report",
    "ReportOutputError",
    "ReportScopeError",
    "RevertConflictError",
    "RevertResult",
    "RollbackConflictError",
    "RollbackResult",
    "RunResult",
    "SharedContentError",
    "SideSnapshot",
    "SideSnapshotError",
    "SkippedPath",
    "SnaplineError",
    "Snapshot",
    "SnapshotIdError",
    "SnapshotInfo",
    "SnapshotNotFoundError",
    "SnapshotRangeError",
    "SnapshotRefError",
    "StateMismatchError",
    "Storage",
    "StoreAccessError",
    "StoreBusyError",
    "StoreCorruptError",
    "StoreUsageError",
    "StoreVanishedError",
    "StoreVersionError",
    "Tracking",
    "UnknownPathError",
    "UnsafePathError",
    "UnsafeRecordError",
    "UnsafeRootError",
    "Who",
    "Workspace",
    "__version__",
]


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
