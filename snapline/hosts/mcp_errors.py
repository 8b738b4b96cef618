"""A snapline error as a model calling the MCP tools should read it: the way out is a tool.

The library's messages end with the command a person runs (`snapline resync`, or
`snapline merge` for another line's work that git merged in); a model
connected over MCP has tools, not a shell, so the errors whose way out is another call
are told again from their data (never by rewriting the message text), naming the tool
and its arguments. Every other error keeps its own message, which names no command, but
for files that pulled commits brought before their history: no tool fetches it, so the
model is told to ask the person to run `snapline fetch REMOTE`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from snapline.errors import SnaplineError
from snapline.snapshots.check.merged import UNMERGED, merge_advice

if TYPE_CHECKING:
    from snapline.snapshots.record.plan import ConflictsError

__all__ = ["DRIFT_KINDS", "tool_message"]

DRIFT_KINDS = ("modified", "deleted", "untracked")
"""Conflict kinds that are outside changes: recorded by `resync`, or forced over."""

_MAX_NAMED = 3
_MERGE_TOOL = "the `merge` tool"


def tool_message(error: SnaplineError) -> str:
    """The one-line message an MCP tool error carries for ``error``.

    Args:
        error: What the library raised.

    Returns:
        A message whose advice names the MCP tool that settles the error (``resync``,
        ``merge``, ``status``, ``list_files``, ``read_file``, ``log``), or the error's own
        message when its way out is not another call.
    """
    from snapline.snapshots.read.ids import SnapshotIdError
    from snapline.snapshots.read.lines import DivergedHistoryError
    from snapline.snapshots.record.edits import EditMatchError, NotTrackedError
    from snapline.snapshots.record.mismatch import StateMismatchError
    from snapline.snapshots.record.plan import ConflictsError
    from snapline.snapshots.restore.undo import NothingToUndoError
    from snapline.workspace import UnknownPathError

    if isinstance(error, StateMismatchError):
        came = error.came
        pulled = [path for path in error.unfetched if path not in error.unmerged]
        outside = [path for path in error.paths if path not in error.unmerged + pulled]
        parts = []
        if came is not None and pulled:
            # No tool fetches the history (the user's network and credentials): the
            # person runs it. `resync` would refuse these files until then.
            parts.append(
                f"{_named(pulled)} came with commits git fetched {came.whence} before "
                "their history (recorded elsewhere, not an outside change): ask the user "
                f"to run {came.fetch}"
            )
        if outside:
            # The hashes are the first drifted path's: said when it is one of these.
            known = (
                f" (known state {error.expected or 'untracked'}, disk {error.actual or 'missing'})"
                if error.path == outside[0]
                else ""
            )
            parts.append(
                f"{_named(outside)} changed outside snapline{known}; call the "
                f"`resync` tool with paths={outside[:_MAX_NAMED]!r} to record that change "
                "as its own snapshot (or `rollback` with force=true to drop it)"
            )
        if error.unmerged:
            parts.append(merge_advice(error.unmerged, merge=_MERGE_TOOL))
        return "; ".join(parts) + ", then retry"
    if isinstance(error, ConflictsError):
        return _conflicts(error)
    if isinstance(error, DivergedHistoryError):
        return (
            f"the history has {len(error.lines) + 1} lines (a git merge of branches that "
            "both recorded); call the `merge` tool to join them, then retry"
        )
    if isinstance(error, NotTrackedError):
        return (
            f"{error.path} {error.detail}; call `list_files` (or `status`) to see the tracked files"
        )
    if isinstance(error, UnknownPathError):
        return (
            f"{error.path} is neither on disk nor tracked, so there is nothing to record "
            "there; call `status` to see what changed"
        )
    if isinstance(error, EditMatchError):
        return f"{error}; call `read_file` for the file's exact current text"
    if isinstance(error, SnapshotIdError) and not error.candidates:
        return (
            f"{error.ref.strip()!r} names no snapshot; call `log`: each snapshot's id is "
            "in `snapshots`, a merged branch's in `side_snapshots`"
        )
    if isinstance(error, NothingToUndoError):
        return (
            f"nothing to undo: snapshot {error.latest} stands for the baseline; call `log` "
            "to see the history"
        )
    return str(error)


def _conflicts(error: ConflictsError) -> str:
    from snapline.snapshots.restore.revert import RevertConflictError
    from snapline.snapshots.restore.rollback import RollbackConflictError

    drifted = [c.path for c in error.conflicts if c.kind in DRIFT_KINDS]
    unmerged = [c.path for c in error.conflicts if c.kind == UNMERGED]
    others = [c for c in error.conflicts if c.kind not in (*DRIFT_KINDS, UNMERGED)]
    what, force = "the change", ""
    if isinstance(error, RollbackConflictError):
        what = f"rollback to snapshot {error.target}"
        if not unmerged:
            # Only a rollback can be forced: it records the outside change first (never
            # another line's merged work, which a forced rollback refuses too).
            force = ", or retry with force=true"
    elif isinstance(error, RevertConflictError):
        what = f"revert of snapshot {error.number}"
    parts = [conflict.message for conflict in others[:1]]
    if drifted:
        parts.append(
            f"{_named(drifted)} changed outside snapline; call `resync` with "
            f"paths={drifted[:_MAX_NAMED]!r} to record that first{force}"
        )
    if unmerged:
        parts.append(merge_advice(unmerged, merge=_MERGE_TOOL))
    return f"{what} refused, nothing was written: " + "; ".join(parts)


def _named(paths: list[str]) -> str:
    shown = ", ".join(paths[:_MAX_NAMED])
    more = f" and {len(paths) - _MAX_NAMED} more" if len(paths) > _MAX_NAMED else ""
    return shown + more
