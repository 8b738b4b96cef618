"""What the review page reads of a history, and nothing more.

The page is drawn from what its caller hands it: a :class:`PageReader` names each read
(snapshots, their diffs, milestones, the lines beside the main one, check outcomes, the
verification result, who wrote the lines of the files on disk). The
:class:`~snapline.Workspace` facade is one, and passes itself down; the page never
imports the facade, so data flows down and nothing calls back up.
"""

from __future__ import annotations

import builtins
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from snapline.blame.summary import BlameSummary
    from snapline.guard.outcome import CheckOutcome
    from snapline.milestones.lines import OtherLine
    from snapline.milestones.milestone import Milestone
    from snapline.snapshots.read.refs import SnapshotRef
    from snapline.snapshots.snapshot import Report, SideSnapshot, Snapshot

__all__ = ["MilestoneReader", "PageReader"]


class MilestoneReader(Protocol):
    """The milestones a page shows, and the lines beside the main one."""

    def list(self) -> builtins.list[Milestone]:
        """Every milestone, in number order."""
        ...

    def get(self, number: int) -> Milestone:
        """Milestone ``number``.

        Raises:
            MilestoneNotFoundError: If there is no such milestone.
        """
        ...

    def lines(self) -> builtins.list[OtherLine]:
        """The lines of history beside the main one, with their snapshots and milestones."""
        ...


class PageReader(Protocol):
    """Everything the review page reads of one workspace's history."""

    @property
    def root(self) -> Path:
        """The workspace root (the page is titled by its name)."""
        ...

    @property
    def latest(self) -> int:
        """The number of the latest main-line snapshot."""
        ...

    @property
    def milestones(self) -> MilestoneReader:
        """The workspace's milestones and other lines."""
        ...

    def snapshots(
        self, *, since: int | None = None, until: int | None = None, session: str | None = None
    ) -> Iterator[Snapshot]:
        """Main-line snapshots from ``since`` to ``until``, of ``session`` if given."""
        ...

    def snapshot(self, number: SnapshotRef) -> Snapshot:
        """One snapshot, by number or reference (``"id:PREFIX"`` on any line)."""
        ...

    def diff(self, from_n: SnapshotRef, to_n: SnapshotRef | None = None) -> str:
        """The git-style unified diff from snapshot ``from_n`` to ``to_n``."""
        ...

    def side_snapshots(self) -> builtins.list[SideSnapshot]:
        """Snapshots recorded on other lines (branches merged in git)."""
        ...

    def check_outcomes(self) -> dict[int, CheckOutcome]:
        """The latest check of every main-line snapshot that was checked, by number."""
        ...

    def verify(self) -> Report:
        """The history's problems and the disk's drift from it."""
        ...

    def blame_summary(self, paths: Iterable[str] | None = None) -> BlameSummary:
        """How many lines of the tracked files at or under ``paths`` each author wrote.

        As ``snapline blame --summary PATHS``: the files as they are on disk now; one
        that cannot be blamed (binary, deleted on disk, tracked by hash only) is listed
        in ``skipped`` with why, and an untracked one is left out.
        """
        ...
