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
    from snapline.blame import (
        BinaryFileError,
        BlameLine,
        FileBlame,
        LineKind,
        NotAFileError,
        NotBlamableError,
        Origin,
    )
    from snapline.blame.commits import CommitRangeError
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
    from snapline.opening_errors import RootNotADirectoryError
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
    from snapline.snapshots.read.reconstruct import ContentElsewhereError, ForgottenVersionError
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
    from snapline.snapshots.restore.merge3 import MergeCheckError
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
        MergedLedgerError,
        StoreAccessError,
        StoreBusyError,
        StoreCorruptError,
        StoreUsageError,
        StoreVersionError,
    )
    from snapline.store.refs.edits import UnpublishableError
    from snapline.store.refs.git_errors import (
        DamagedRefError,
        GitWriteRefusedError,
        NotOwnedRepositoryError,
        RefConflictError,
    )
    from snapline.store.refs.otherlines import DamagedBlobError
    from snapline.store.refs.pinning import CheckoutBehindError
    from snapline.store.refs.publishing import PublishRefusedError
    from snapline.store.refs.reading import DamagedLineError
    from snapline.store.refs.store import LineMovedError
    from snapline.upgrade import OldStoreDamagedError, UnsettledOldStoreError
    from snapline.workspace import (
        AlreadyInitializedError,
        NotInitializedError,
        SnapshotNotFoundError,
        Tracking,
        UnknownPathError,
        UnsafeRootError,
        Workspace,
    )
    from snapline.workspace.blaming import BlameRangeError

__version__ = "0.2.0"

_EXPORTS: dict[str, str] = {
    "AlreadyInitializedError": "snapline.workspace",
    "BinaryFileError": "snapline.blame",
    "BlameLine": "snapline.blame",
    "BlameRangeError": "snapline.workspace.blaming",
    "BlameSummary": "snapline.blame.summary",
    "BranchError": "snapline.branching",
    "BranchResult": "snapline.branching",
    "ChangeKind": "snapline.snapshots",
    "CheckOutcome": "snapline.guard",
    "CheckOutput": "snapline.guard",
    "CheckoutBehindError": "snapline.store.refs.pinning",
    "CommandError": "snapline.snapshots.record.command",
    "CommitRangeError": "snapline.blame.commits",
    "ContentElsewhereError": "snapline.snapshots.read.reconstruct",
    "ContentMismatchError": "snapline.snapshots",
    "ContentUnavailableError": "snapline.snapshots",
    "DamagedBlobError": "snapline.store.refs.otherlines",
    "DamagedLineError": "snapline.store.refs.reading",
    "DamagedRefError": "snapline.store.refs.git_errors",
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
    "GitWriteRefusedError": "snapline.store.refs.git_errors",
    "GuardResult": "snapline.guard",
    "InTreeLedgerError": "snapline.store",
    "Limits": "snapline.snapshots.record.build",
    "Line": "snapline.snapshots.read.lines",
    "LineCounts": "snapline.blame.summary",
    "LineKind": "snapline.blame",
    "LineMovedError": "snapline.store.refs.store",
    "MergeCheckError": "snapline.snapshots.restore.merge3",
    "MergedLedgerError": "snapline.store",
    "NothingToForgetError": "snapline.snapshots.record.forget",
    "SharedContentError": "snapline.snapshots.record.forget",
    "MetadataError": "snapline.snapshots.info",
    "BaselineRevertError": "snapline.snapshots.restore.revert",
    "Conflict": "snapline.snapshots.results",
    "ModifiedFile": "snapline.snapshots.results",
    "Move": "snapline.snapshots.results",
    "RecoveryBlockedError": "snapline.snapshots.record.journal",
    "RefConflictError": "snapline.store.refs.git_errors",
    "RevertConflictError": "snapline.snapshots.restore.revert",
    "RevertResult": "snapline.snapshots.results",
    "RollbackConflictError": "snapline.snapshots.restore.rollback",
    "RollbackResult": "snapline.snapshots.results",
    "RootNotADirectoryError": "snapline.opening_errors",
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
    "PublishRefusedError": "snapline.store.refs.publishing",
    "NotAFileError": "snapline.blame",
    "NotBlamableError": "snapline.blame",
    "NotInSnapshotError": "snapline.snapshots",
    "NothingToRedoError": "snapline.snapshots.restore.undo",
    "NothingToUndoError": "snapline.snapshots.restore.undo",
    "NotInitializedError": "snapline.workspace",
    "NotOwnedRepositoryError": "snapline.store.refs.git_errors",
    "NotTrackedError": "snapline.snapshots.record.edits",
    "OldStoreDamagedError": "snapline.upgrade",
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
    "UnpublishableError": "snapline.store.refs.edits",
    "UnsafePathError": "snapline.paths",
    "UnsafeRecordError": "snapline.paths",
    "UnsafeRootError": "snapline.workspace",
    "UnsettledOldStoreError": "snapline.upgrade",
    "Who": "snapline.snapshots.info_fields",
    "Workspace": "snapline.workspace",
}

__all__ = [
    "AlreadyInitializedError",
    "BaselineRevertError",
    "BinaryFileError",
    "BlameLine",
    "BlameRangeError",
    "BlameSummary",
    "BranchError",
    "BranchResult",
    "ChangeKind",
    "CheckOutcome",
    "CheckOutput",
    "CheckoutBehindError",
    "CommandError",
    "CommitRangeError",
    "Conflict",
    "ContentElsewhereError",
    "ContentMismatchError",
    "ContentUnavailableError",
    "DamagedBlobError",
    "DamagedLineError",
    "DamagedRefError",
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
    "GitWriteRefusedError",
    "GuardResult",
    "InTreeLedgerError",
    "Limits",
    "Line",
    "LineCounts",
    "LineKind",
    "LineMovedError",
    "MergeCheckError",
    "MergedLedgerError",
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
    "NotAFileError",
    "NotBlamableError",
    "NotInSnapshotError",
    "NotInitializedError",
    "NotOwnedRepositoryError",
    "NotTrackedError",
    "NothingToForgetError",
    "NothingToRedoError",
    "NothingToUndoError",
    "OldStoreDamagedError",
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
    "PublishRefusedError",
    "RecoveryBlockedError",
    "RefConflictError",
    "Report",
    "ReportOutputError",
    "ReportScopeError",
    "RevertConflictError",
    "RevertResult",
    "RollbackConflictError",
    "RollbackResult",
    "RootNotADirectoryError",
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
    "UnpublishableError",
    "UnsafePathError",
    "UnsafeRecordError",
    "UnsafeRootError",
    "UnsettledOldStoreError",
    "Who",
    "Workspace",
    "__version__",
]


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
