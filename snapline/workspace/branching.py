"""Branching: the workspace method that makes a git branch from a snapshot."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from snapline.workspace.base import PathArg, WorkspaceBase

if TYPE_CHECKING:
    from snapline.branching import BranchResult
    from snapline.snapshots.read.refs import SnapshotRef

__all__ = ["Branching"]


class Branching(WorkspaceBase):
    """The ``branch`` method of :class:`~snapline.workspace.Workspace`."""

    def branch(
        self,
        number: SnapshotRef,
        name: str | None = None,
        *,
        worktree: PathArg | None = None,
    ) -> BranchResult:
        """Make a git branch whose files are the workspace's after snapshot ``number``.

        The checkout, HEAD and git's index are left alone: the branch's one commit is
        made with git's plumbing, on top of HEAD, from HEAD's tree with every path the
        history ever recorded as it was after the snapshot: present with its content and
        mode, or absent when the snapshot did not have it (deleted before it, or added
        after). Paths the history never recorded (files snapline ignores, the ledger)
        stay as HEAD has them. Every file is rebuilt from the store and checked against
        its recorded hash first.

        Args:
            number: A number, ``"latest"``, ``"latest~N"``, or ``"id:PREFIX"`` (on any
                line: a joined branch's snapshot gives that branch's files then).
            name: The branch (default ``snapline/N``; ``snapline/N-ID8`` for a
                snapshot of another line).
            worktree: Also check the branch out in a new git work tree there.

        Returns:
            The branch, its commit and parent.

        Raises:
            BranchError: If the workspace is not in a git work tree, the name is bad or
                taken, ``worktree`` exists, or git fails.
            ContentUnavailableError: If a file of the snapshot was tracked by hash only.
            SnapshotNotFoundError: If there is no such snapshot.
        """
        from snapline.branching import ever_recorded, make_branch
        from snapline.snapshots.read.history import state_at
        from snapline.snapshots.read.points import point_at
        from snapline.snapshots.read.snapshots import load_snapshot

        with self._store.read():
            # On any line: a joined branch's snapshot (id:PREFIX) is read along its line.
            point = point_at(self._store, self._reconstructor, number)
            at = point.number
            snapshot = load_snapshot(point.store, at)
            state = state_at(point.store, at)
            title = snapshot.description or f"{snapshot.tool} snapshot"
            default = f"snapline/{at}" if point.side is None else f"snapline/{at}-{snapshot.id[:8]}"
            rebuild = point.reconstructor
            # Every file is rebuilt (and hash-checked) before git is asked to write
            # anything, so a version that cannot be rebuilt makes no branch at all.
            return make_branch(
                self.root,
                name=name or default,
                number=at,
                files={path: version.mode for path, version in state.items()},
                removed=ever_recorded(self._store, point.store) - set(state),
                read=lambda path: rebuild.content_at(path, at),
                message=f"snapline: snapshot {at}: {title}\n\nsnapline-snapshot: {snapshot.id}",
                worktree=None if worktree is None else Path(os.path.abspath(worktree)),
            )
