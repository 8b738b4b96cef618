"""Snapshots on any line as points of the history: diffs and changed files between two.

A reference resolves to a main-line number or to a snapshot of another line (``id:``,
:mod:`snapline.snapshots.read.ids`). A :class:`Point` carries what reads the history
as it was there: the store itself on the main line, a
:class:`~snapline.snapshots.read.line_view.LineView` on another. Two points on one line
(one is in the other's history) are compared as the main line's snapshots are, renames
and all; two on different lines (a joined branch's snapshot and the merge after it, say)
are compared file by file, as two trees: only the paths changed since the snapshot
they share can differ.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from snapline.paths import check_recorded
from snapline.snapshots.kinds import ChangeKind
from snapline.snapshots.read.history import (
    Version,
    diff_pairs,
    diff_side,
    in_scope,
    modified_files,
    version_at,
)
from snapline.snapshots.read.line_view import LineView
from snapline.snapshots.read.reconstruct import Reconstructor
from snapline.snapshots.read.refs import SnapshotRef, locate
from snapline.store import SideRow, StoreReader

if TYPE_CHECKING:
    from snapline.snapshots.read.unidiff import Side
    from snapline.snapshots.results import ModifiedFile

__all__ = ["Point", "changed_between", "diff_between", "pairs_between", "point_at"]


@dataclass(frozen=True)
class Point:
    """One snapshot, on whichever line, with what reads the history up to it.

    Attributes:
        store: The store on the main line; a line view on another line.
        reconstructor: Rebuilds versions through ``store``.
        number: The snapshot's number (on its own line).
        fork: The last main-line snapshot its state builds on (``number`` itself on
            the main line).
        side: Its row when it is on another line, else ``None``.
        line_ids: The ids of its line's own snapshots up to it (empty on the main line).
    """

    store: StoreReader
    reconstructor: Reconstructor
    number: int
    fork: int
    side: SideRow | None = None
    line_ids: frozenset[str] = frozenset()

    def holds(self, other: Point) -> bool:
        """Whether ``other`` is in this point's history (itself included)."""
        if other.side is None:
            return other.number <= self.fork
        return other.side.id in self.line_ids

    @property
    def main(self) -> StoreReader:
        """The store the main line is read from."""
        return self.store.main if isinstance(self.store, LineView) else self.store


def point_at(store: StoreReader, reconstructor: Reconstructor, ref: SnapshotRef) -> Point:
    """The snapshot ``ref`` names, on any line.

    Raises:
        SnapshotRefError: If ``ref`` is malformed.
        SnapshotNotFoundError: If it names a snapshot outside the history.
        SnapshotIdError: If an id reference names no snapshot, or several.
        StoreCorruptError: If a file of the other line is damaged.
    """
    with store.read():
        found = locate(store, ref)
        if isinstance(found, int):
            return Point(store, reconstructor, found, found)
        records = store.side_line(found.id)
    view = LineView(store, records)
    return Point(
        view,
        Reconstructor(view, reconstructor.cache),
        found.number,
        view.fork,
        found,
        frozenset(row.id for row, _ in records),
    )


def diff_between(old: Point, new: Point, paths: list[str] | None) -> str:
    """A git-style unified diff from the state at ``old`` to the state at ``new``.

    On one line a reversed pair gives the reverse diff, as ``git diff B A`` does.

    Raises:
        StoreCorruptError: If a version cannot be rebuilt from the store.
    """
    from snapline.snapshots.read.unidiff import render_file_diff

    return "".join(render_file_diff(a, b) for a, b in pairs_between(old, new, paths))


def pairs_between(
    old: Point, new: Point, paths: list[str] | None
) -> list[tuple[Side | None, Side | None]]:
    """Each differing file's sides at ``old`` and at ``new``: what a diff renders."""
    reader = _common(old, new)
    if reader is not None:
        return diff_pairs(reader.store, reader.reconstructor, old.number, new.number, paths)
    pairs = []
    with old.store.read():
        for path, before, after in _differing(old, new):
            if in_scope(path, paths):
                pairs.append(
                    (
                        diff_side(old.reconstructor, path, before, old.number),
                        diff_side(new.reconstructor, path, after, new.number),
                    )
                )
    return pairs


def changed_between(old: Point, new: Point) -> list[ModifiedFile]:
    """Each path that differs between the states at ``old`` and ``new``, by path.

    On one line, as :func:`~snapline.snapshots.read.history.modified_files` (renames
    followed, the snapshots that touched each file); across lines, ``added``,
    ``deleted`` or ``modified`` relative to ``old``, with no snapshots listed.

    Raises:
        SnapshotRangeError: If both are on one line and ``old`` comes after ``new``.
    """
    reader = _common(old, new)
    if reader is not None:
        return modified_files(reader.store, old.number, new.number)
    from snapline.snapshots.results import ModifiedFile

    found = []
    with old.store.read():
        for path, before, after in _differing(old, new):
            status = (
                ChangeKind.ADDED
                if before is None
                else ChangeKind.DELETED
                if after is None
                else ChangeKind.MODIFIED
            )
            found.append(ModifiedFile(path=path, status=status, old_path=None, snapshots=()))
    return found


def _common(a: Point, b: Point) -> Point | None:
    """The point whose history holds both (the reader of a diff on one line), or ``None``."""
    if b.holds(a):
        return b
    if a.holds(b):
        return a
    return None


def _differing(old: Point, new: Point) -> list[tuple[str, Version | None, Version | None]]:
    """``(path, version at old, version at new)`` of each path whose versions differ."""
    low, high = sorted((old.fork, new.fork))
    candidates: set[str] = set()
    # The main line's changes between the two forks, then each line's own: any other
    # path has the version it had at the lower fork on both sides.
    for change in old.main.changes.in_range(low + 1, high) if low < high else []:
        candidates.add(change.path)
        if change.old_path is not None:
            candidates.add(change.old_path)
    for point in (old, new):
        if isinstance(point.store, LineView):
            candidates |= point.store.touched()
    found = []
    for path in sorted(candidates):
        check_recorded(path)  # a diff naming a path outside the root is never rendered
        before = version_at(old.store, path, old.number)
        after = version_at(new.store, path, new.number)
        if before != after:
            found.append((path, before, after))
    return found
