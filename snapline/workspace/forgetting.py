"""Forgetting: the workspace method that removes stored content recorded by mistake."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from snapline.workspace.base import PathArg, WorkspaceBase

if TYPE_CHECKING:
    from snapline.snapshots.read.refs import SnapshotRef
    from snapline.snapshots.record.forget import ForgetResult

__all__ = ["Forgetting"]


class Forgetting(WorkspaceBase):
    """The ``forget`` method of :class:`~snapline.workspace.Workspace`."""

    def forget(
        self,
        path: Iterable[PathArg] | PathArg,
        *,
        snapshot: SnapshotRef | None = None,
        reason: str = "",
    ) -> ForgetResult:
        """Remove the stored content of a file recorded by mistake (a secret) from the history.

        Every stored version of ``path`` (or only the content it had after
        ``snapshot``) leaves the history and the local index: the lines on
        ``refs/snapline/`` are rewritten with tombstones that keep the digests, so the
        chain still verifies, and the act is kept on ``refs/snapline/forgets/<id>``.
        Later versions stay rebuildable; rebuilding a forgotten one raises
        :class:`~snapline.snapshots.read.reconstruct.ForgottenVersionError`. The user's
        commits are not touched: ``snapline forget --publish REMOTE`` publishes the
        rewrite, and git history that already holds the content must be cleaned with
        git's own tools (``git filter-repo``).

        As ``git filter-repo`` does, forget leaves the workspace alone: forgetting
        the content a file still has on disk is allowed, the file stays, and the
        result lists it in ``still_on_disk``.

        Args:
            path: The file (or files, when the same content was recorded under each).
            snapshot: Only the content the file had after this snapshot (a number,
                ``"latest"`` or ``"latest~N"``).
            reason: Why, recorded with the act.

        Returns:
            What was forgotten, what was stored whole to keep later versions, and the
            record's name.

        Raises:
            NothingToForgetError: If the history stores no content of a path.
            NotInSnapshotError: If a path did not exist after ``snapshot``.
            SharedContentError: If the same content is recorded under another path.
        """
        from snapline.snapshots.read.refs import number_of
        from snapline.snapshots.record.forget import forget

        rels = self._relpaths(path)
        with self._recorder.writing():
            number = None if snapshot is None else number_of(self._store, snapshot)
            return forget(self._recorder, self._reconstructor, rels, snapshot=number, reason=reason)

    def publish_forgets(self, remote: str) -> list[str]:
        """Push the forgets and the lines they rewrote to ``remote`` (a history on git's refs).

        Each rewritten line is force-pushed with a lease on the remote's ref being a
        commit of that line before the rewrite; anything else is refused and nothing
        is pushed (:mod:`snapline.store.refs.publishing`).

        Args:
            remote: A remote's name or URL.

        Returns:
            The refs updated on the remote.

        Raises:
            PublishRefusedError: If the remote cannot take the rewrite as it is, or
                the history is in the tree (it travels with its commits).
        """
        from snapline.snapshots.record.forget import publish

        return publish(self._store, self.root, remote)
