"""Diffing: the workspace methods that show what changed, as ``git diff`` does.

Between two snapshots (either order: a reversed pair is the reverse diff), or from a
snapshot (the latest by default) to the files on disk now; as a unified diff or as a
diffstat (``git diff --stat``'s lines).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from snapline.workspace.base import PathArg, WorkspaceBase

if TYPE_CHECKING:
    from snapline.snapshots.read.diffstat import FileStat
    from snapline.snapshots.read.refs import SnapshotRef
    from snapline.snapshots.read.unidiff import Side

__all__ = ["Diffing"]

_Pairs = list[tuple["Side | None", "Side | None"]]


class Diffing(WorkspaceBase):
    """Diffing methods of :class:`~snapline.workspace.Workspace`."""

    def diff(
        self,
        from_n: SnapshotRef,
        to_n: SnapshotRef | None = None,
        paths: Iterable[PathArg] | PathArg | None = None,
    ) -> str:
        r"""A git-style unified diff from snapshot ``from_n`` to ``to_n`` (default: latest).

        ``git apply`` accepts it on a tree in the state after ``from_n``: it has
        ``diff --git`` headers, new/deleted file and mode-change lines, renames, full
        ``index`` lines, and ``\ No newline at end of file``. Binary files are named,
        not dumped. Either end may be a snapshot of another line (``"id:PREFIX"``):
        between two lines the files are compared as two trees (no renames). When
        ``from_n`` comes after ``to_n`` the diff is the reverse one, as ``git diff B A``.

        Raises:
            SnapshotNotFoundError: If either number does not exist.
            SnapshotRefError: If either is not a number or reference.
            SnapshotIdError: If an id reference names no snapshot, or several.
        """
        return _render(self._snapshot_pairs(from_n, to_n, paths))

    def diff_disk(
        self,
        from_n: SnapshotRef | None = None,
        paths: Iterable[PathArg] | PathArg | None = None,
    ) -> str:
        """A git-style unified diff from snapshot ``from_n`` (default: latest) to the disk.

        As ``git diff`` (against the latest) and ``git diff A``: every tracked file that
        differs, and every new file that is not ignored (what ``snapline resync`` would
        record), as an addition. Renames on disk show as a deletion and an addition.

        Raises:
            SnapshotNotFoundError: If ``from_n`` does not exist.
            SnapshotRefError: If it is not a number or main-line reference.
            UnsafePathError: If a path is outside the root or inside ``.snapline/``.
        """
        return _render(self._disk_pairs(from_n, paths))

    def diff_stat(
        self,
        from_n: SnapshotRef,
        to_n: SnapshotRef | None = None,
        paths: Iterable[PathArg] | PathArg | None = None,
    ) -> list[FileStat]:
        """What :meth:`diff` shows, one :class:`FileStat` per file (``git diff --stat``)."""
        return _stats(self._snapshot_pairs(from_n, to_n, paths))

    def diff_stat_disk(
        self,
        from_n: SnapshotRef | None = None,
        paths: Iterable[PathArg] | PathArg | None = None,
    ) -> list[FileStat]:
        """What :meth:`diff_disk` shows, one :class:`FileStat` per file."""
        return _stats(self._disk_pairs(from_n, paths))

    def _snapshot_pairs(
        self,
        from_n: SnapshotRef,
        to_n: SnapshotRef | None,
        paths: Iterable[PathArg] | PathArg | None,
    ) -> _Pairs:
        from snapline.snapshots.read.ids import is_id_ref
        from snapline.snapshots.read.refs import number_of

        rels = self._scope(paths)
        if not (is_id_ref(from_n) or is_id_ref(to_n)):
            from snapline.snapshots.read.history import diff_pairs

            with self._store.read():
                first = number_of(self._store, from_n)
                last = None if to_n is None else number_of(self._store, to_n)
                return diff_pairs(self._store, self._reconstructor, first, last, rels)
        from snapline.snapshots.read.points import pairs_between, point_at

        return pairs_between(
            point_at(self._store, self._reconstructor, from_n),
            point_at(self._store, self._reconstructor, "latest" if to_n is None else to_n),
            rels,
        )

    def _disk_pairs(
        self, from_n: SnapshotRef | None, paths: Iterable[PathArg] | PathArg | None
    ) -> _Pairs:
        from snapline.snapshots.read.history import diff_side, in_scope, touched_since, version_at
        from snapline.snapshots.read.refs import number_of
        from snapline.snapshots.read.unidiff import Side

        rels = self._scope(paths)
        store, reconstructor = self._store, self._reconstructor
        pairs: _Pairs = []
        with store.read():
            latest = number_of(store, "latest")
            start = latest if from_n is None else number_of(store, from_n)
            detection = self._recorder.detect(rels, want_content=True)
            drifts = {drift.path: drift for drift in detection.drifts}
            candidates = set(drifts)
            if start < latest:
                candidates |= {p for p in touched_since(store, start) if in_scope(p, rels)}
            for path in sorted(candidates):
                old = diff_side(reconstructor, path, version_at(store, path, start), start)
                drift = drifts.get(path)
                if drift is None:
                    now = version_at(store, path, latest)
                    new = diff_side(reconstructor, path, now, latest)
                elif drift.disk is None:
                    new = None
                else:
                    new = Side(path=path, mode=drift.disk.mode, content=drift.disk.content)
                if old != new:
                    pairs.append((old, new))
        self._recorder.save_stat_cache(detection)
        return pairs


def _render(pairs: _Pairs) -> str:
    from snapline.snapshots.read.unidiff import render_file_diff

    return "".join(render_file_diff(old, new) for old, new in pairs)


def _stats(pairs: _Pairs) -> list[FileStat]:
    from snapline.snapshots.read.diffstat import file_stat

    found = (file_stat(old, new) for old, new in pairs)
    return [stat for stat in found if stat is not None]
