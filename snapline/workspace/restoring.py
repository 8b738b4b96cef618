"""Restoring: the workspace methods that roll back, revert, undo and redo, as new snapshots."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Unpack

from snapline.snapshots.info_fields import Who, info_of
from snapline.workspace.base import PathArg, WorkspaceBase

if TYPE_CHECKING:
    from snapline.snapshots.read.line_view import LineView
    from snapline.snapshots.read.refs import SnapshotRef
    from snapline.snapshots.record.monitored import Changes
    from snapline.snapshots.results import RevertResult, RollbackResult

__all__ = ["Restoring", "rollback_watched"]


class Restoring(WorkspaceBase):
    """Rollback and revert methods of :class:`~snapline.workspace.Workspace`."""

    def rollback(
        self,
        to: SnapshotRef,
        paths: Iterable[PathArg] | PathArg | None = None,
        *,
        dry_run: bool = False,
        force: bool = False,
        **who: Unpack[Who],
    ) -> RollbackResult:
        """Make every tracked file (or only ``paths``) what it was after snapshot ``to``.

        Modified files are rewritten, files added since are deleted and files deleted
        since are recreated, with their mode; files already right are not touched.
        Untracked and ignored files are left alone, and nothing under ``.git/`` is ever
        written. The rollback is recorded as a new snapshot, so it can be rolled back in
        turn. Writes are journaled: on failure every file is put back.

        Args:
            to: The snapshot to go back to (0 is the baseline): a number, ``"latest"``,
                ``"latest~N"``, ``"before-prompt:N@SESSION"`` or ``"id:PREFIX"``, which
                may name a snapshot of another line (a branch merged in git and joined
                by ``snapline merge``); resolved under the writer lock.
            paths: Only these files or directories (default: the whole workspace).
            dry_run: Only report what would change, and the conflicts; write nothing.
            force: Overwrite files changed outside snapline: their content is first
                recorded as a snapshot of its own (tool ``external``), so it is not lost.
            **who: Who made the change and why (tool, default ``rollback``; description,
                default ``roll back to snapshot N``; session; metadata; or them all as ``info``).

        Returns:
            A :class:`RollbackResult`: the paths restored, deleted and recreated, any
            conflicts, and the new snapshot (``None`` if nothing changed or dry run).

        Raises:
            SnapshotNotFoundError: If there is no snapshot ``to``.
            SnapshotRefError: If ``to`` is not a number or reference.
            SnapshotIdError: If an id reference names no snapshot, or several.
            RollbackConflictError: If files were changed outside snapline (and ``force``
                is false) or a path is in the way; nothing is written.
            OSError: If writing fails; the workspace and the store are left as they were.
        """
        return self._rollback(to, paths, dry_run=dry_run, force=force, changes=None, who=who)

    def _rollback(
        self,
        to: SnapshotRef,
        paths: Iterable[PathArg] | PathArg | None,
        *,
        dry_run: bool,
        force: bool,
        changes: Changes | None,
        who: Who,
    ) -> RollbackResult:
        rels = self._scope(paths)
        from snapline.snapshots.read.ids import id_ref
        from snapline.snapshots.restore.rollback import rollback

        # The lock is re-entrant: holding it here makes "latest" mean the latest
        # snapshot when the rollback runs, not one another thread adds meanwhile.
        with self._recorder.writing():
            number, line = self._target(to)
            what = f"snapshot {number}"
            if line is not None:
                what += f" of another line ({id_ref(line.head.id)})"
            info = info_of(who, "rollback", f"roll back to {what}")
            return rollback(
                self._recorder,
                self._reconstructor,
                number,
                rels,
                dry_run=dry_run,
                force=force,
                info=info,
                line=line,
                changes=changes,
            )

    def _target(self, ref: SnapshotRef, *, whole_line: bool = False) -> tuple[int, LineView | None]:
        """The snapshot ``ref`` names, on any line, with the view along its line.

        The view ends at that snapshot, or with ``whole_line`` at its line's head (a
        revert follows its files through the line's later snapshots).
        """
        from snapline.snapshots.read.line_view import LineView
        from snapline.snapshots.read.lines import side_snapshot
        from snapline.snapshots.read.refs import locate

        with self._store.read():
            found = locate(self._store, ref)
            if isinstance(found, int):
                return found, None
            end = found.id
            if whole_line:
                end = side_snapshot(self._store, found.id).line
            return found.number, LineView(self._store, self._store.side_line(end))

    def revert(
        self,
        number: SnapshotRef,
        *,
        dry_run: bool = False,
        **who: Unpack[Who],
    ) -> RevertResult:
        """Undo the changes of snapshot ``number`` only, keeping later ones (like ``git revert``).

        Text files edited since get the snapshot's change taken out of today's content by
        a three-way line merge, as ``git revert`` does (an edit since in the same lines is
        a conflict, never a guess); a file the snapshot added is deleted if unchanged
        since, one it deleted is recreated if the path is free, and a rename is moved
        back. Recorded as a new snapshot.

        Args:
            number: The snapshot to undo (1 or later): a number, ``"latest"``,
                ``"latest~N"`` or ``"id:PREFIX"``, resolved under the writer lock. A
                snapshot of another line (a branch merged in git) has its change taken
                out of today's files as well: its versions are read along its line.
            dry_run: Only report what would change, and the conflicts; write nothing.
            **who: Who made the change and why (tool, default ``revert``; description,
                default ``revert snapshot N``; session; metadata; or them all as ``info``).

        Returns:
            A :class:`RevertResult`: the paths restored, deleted, recreated and moved
            back, conflicts (dry run only), and the new snapshot.

        Raises:
            SnapshotNotFoundError: If there is no snapshot ``number``.
            SnapshotRefError: If ``number`` is not a number or reference.
            SnapshotIdError: If an id reference names no snapshot, or several.
            BaselineRevertError: If ``number`` is 0.
            RevertConflictError: If some change cannot be undone cleanly (per file:
                hunks that no longer apply, binary files changed since, outside changes,
                paths in the way); nothing is written.
        """
        from snapline.snapshots.read.ids import id_ref
        from snapline.snapshots.restore.revert import revert

        with self._recorder.writing():
            target, line = self._target(number, whole_line=True)
            what = f"snapshot {target}"
            if line is not None:
                row = line.snapshots.get(target)
                assert row is not None
                what += f" of another line ({id_ref(row.id)})"
            info = info_of(who, "revert", f"revert {what}")
            return revert(
                self._recorder, self._reconstructor, target, dry_run=dry_run, info=info, line=line
            )

    def undo(
        self,
        *,
        dry_run: bool = False,
        force: bool = False,
        **who: Unpack[Who],
    ) -> RollbackResult:
        """Roll back what the latest change did, as a new snapshot; several levels, like an editor.

        The files the change touched go back to their state before it. Undoing again
        goes one change further back; :meth:`redo` puts an undone change back, until a
        new change clears what was undone. The stacks are read from the history
        (``undo_of`` / ``redo_of`` in the snapshots' metadata), so they work across
        processes.

        Args:
            dry_run: Only report what would change, and the conflicts; write nothing.
            force: Overwrite files changed outside snapline (recorded first, as rollback).
            **who: Who made the change and why (tool, default ``undo``; description,
                default ``undo snapshot N``; session; metadata; or them all as ``info``).

        Returns:
            The :class:`RollbackResult`; ``target`` is the state restored.

        Raises:
            NothingToUndoError: If everything down to the baseline is undone.
            RollbackConflictError: If the files were changed outside snapline (and
                ``force`` is false); nothing is written.
        """
        from snapline.snapshots.restore.undo import undo_or_redo

        info = info_of(who, "undo")
        return undo_or_redo(
            self._recorder, self._reconstructor, "undo", dry_run=dry_run, force=force, info=info
        )

    def redo(
        self,
        *,
        dry_run: bool = False,
        force: bool = False,
        **who: Unpack[Who],
    ) -> RollbackResult:
        """Roll back the last :meth:`undo`, as a new snapshot.

        Takes what :meth:`undo` takes (the tool ``redo``, the description ``redo
        snapshot N``) and returns its :class:`RollbackResult`.

        Raises:
            NothingToRedoError: If no undo waits to be redone (none yet, or a new
                change came after it).
            RollbackConflictError: As :meth:`undo` does.
        """
        from snapline.snapshots.restore.undo import undo_or_redo

        info = info_of(who, "redo")
        return undo_or_redo(
            self._recorder, self._reconstructor, "redo", dry_run=dry_run, force=force, info=info
        )


def rollback_watched(
    ws: Restoring,
    changes: Changes | None,
    to: SnapshotRef,
    paths: Iterable[PathArg] | PathArg | None = None,
    *,
    dry_run: bool = False,
    force: bool = False,
    **who: Unpack[Who],
) -> RollbackResult:
    """``ws.rollback``, told what a file-system monitor saw change (the warm server's).

    A rollback of the whole workspace then checks the disk only where the monitor, the
    last check and the snapshots since say it may differ, and stats every other tracked
    file (``snapshots/record/monitored.py``): the same answer as the whole walk, as a
    warm ``status`` gives. ``changes`` ``None`` is ``ws.rollback`` itself.

    Raises:
        As ``Workspace.rollback``.
    """
    return ws._rollback(to, paths, dry_run=dry_run, force=force, changes=changes, who=who)
