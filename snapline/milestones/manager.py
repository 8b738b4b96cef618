"""The :class:`Milestones` object behind ``ws.milestones``."""

from __future__ import annotations

import builtins
import os
from collections.abc import Iterable

from snapline import atomic
from snapline.crashpoints import crash_point
from snapline.milestones.create import append_milestone
from snapline.milestones.export import render_patch
from snapline.milestones.lines import OtherLine, OtherMilestone
from snapline.milestones.milestone import Milestone, MilestoneStats, OpenRange
from snapline.milestones.read import find_milestone, open_range, to_milestone
from snapline.paths import output_path
from snapline.snapshots.info import SnapshotInfo
from snapline.snapshots.read.history import modified_files, unified_diff
from snapline.snapshots.read.reconstruct import Reconstructor
from snapline.snapshots.read.refs import LATEST
from snapline.snapshots.record.recorder import Recorder
from snapline.snapshots.restore.rollback import rollback as roll_back
from snapline.snapshots.results import ModifiedFile, RollbackResult
from snapline.store import Store

__all__ = ["Milestones"]

_FILE_MODE = 0o100644


class Milestones:
    """The milestones of one workspace: named, continuous, append-only snapshot ranges.

    Reached as ``ws.milestones``. Milestone 1 starts at snapshot 1 (0 is the baseline)
    and each next one starts one past the previous one's last snapshot, so together they
    cover the history without gaps or overlaps. Reading calls take no lock; ``create``
    and ``rollback`` take the workspace's writer lock.
    """

    def __init__(self, store: Store, recorder: Recorder, reconstructor: Reconstructor) -> None:
        self._store = store
        self._recorder = recorder
        self._reconstructor = reconstructor

    # -- creating -------------------------------------------------------------------------

    def create(
        self,
        title: str,
        description: str = "",
        to: int | str = LATEST,
        start: int | str | None = None,
        tags: Iterable[str] = (),
    ) -> Milestone:
        """Close the snapshots ``start..to`` as the next milestone.

        With the defaults this closes all the work since the last milestone.

        Args:
            title: One line naming the step, for example ``"parser done"``.
            description: Free text.
            to: The last snapshot: a number, ``"latest"`` or ``"latest~N"``.
            start: The first snapshot. It can only be one past the previous milestone's
                last snapshot (1 for the first milestone), which is the default; passing
                it states the expectation, and a mismatch is refused. A reference
                (``"latest~2"``) works too.
            tags: Short labels.

        Returns:
            The new milestone.

        Raises:
            MilestoneContinuityError: If ``start`` would leave a gap or overlap; its
                ``expected`` attribute is the start that fits.
            EmptyMilestoneError: If nothing was recorded since the last milestone.
            MilestoneRangeError: If ``to`` is past the latest snapshot or before ``start``.
            MilestoneArgumentError: If the title, tags or ``to`` cannot be used.
            StoreCorruptError: If the latest snapshot was edited after it was recorded.
        """
        with self._recorder.writing():
            # A milestone seals the chain hash of its last snapshot: never a damaged one.
            self._recorder.check_tip()
            with self._store.write():
                row = append_milestone(self._store, title, description, to, start, tags)
                crash_point("milestone-prepared")
            crash_point("milestone-committed")
        return to_milestone(row)

    # -- reading --------------------------------------------------------------------------

    def list(self) -> builtins.list[Milestone]:
        """Every milestone, in number order."""
        return [to_milestone(row) for row in self._store.milestones.all()]

    def others(self) -> builtins.list[OtherMilestone]:
        """Milestone files the main line does not hold: closed on other branches.

        Those on joined or unjoined lines, those closed beside the main line's (the same
        number, on snapshots both branches share) and orphaned ones, each with where it
        was closed and the snapshot that joined it (see docs/format.md, "Milestones
        across lines").
        """
        from snapline.milestones.lines import other_milestones

        with self._store.read():
            return other_milestones(self._store)

    def lines(self) -> builtins.list[OtherLine]:
        """The lines of history beside the main one, with their snapshots and milestones.

        Each branch merged in git that recorded its own snapshots is a line: where it
        left the main line, the merge snapshot that joined it (``None``: not joined
        yet), its snapshots (named by ``id:PREFIX``) and the milestones closed on it.
        By the merge that joined them, lines not joined yet last.
        """
        from snapline.milestones.lines import other_lines

        with self._store.read():
            return other_lines(self._store)

    def get(self, number: int) -> Milestone:
        """Milestone ``number``.

        Raises:
            MilestoneNotFoundError: If there is no such milestone.
        """
        return find_milestone(self._store, number)

    def current(self) -> OpenRange:
        """The open range: snapshots recorded since the last milestone, not yet in one."""
        with self._store.read():
            return open_range(self._store)

    def for_snapshot(self, number: int) -> Milestone | None:
        """The milestone containing snapshot ``number``.

        Returns:
            The milestone; ``None`` for the baseline, the open range, or a snapshot
            that does not exist.
        """
        row = self._store.milestones.containing(number)
        return None if row is None else to_milestone(row)

    # -- what a milestone changed ---------------------------------------------------------

    def diff(self, number: int) -> str:
        """The unified diff of the whole milestone: from snapshot ``first - 1`` to ``last``.

        Raises:
            MilestoneNotFoundError: If there is no such milestone.
        """
        with self._store.read():
            milestone = find_milestone(self._store, number)
            return unified_diff(
                self._store, self._reconstructor, milestone.first - 1, milestone.last, None
            )

    def files(self, number: int) -> builtins.list[ModifiedFile]:
        """The paths the milestone changed, each with its status, in path order.

        Raises:
            MilestoneNotFoundError: If there is no such milestone.
        """
        with self._store.read():
            milestone = find_milestone(self._store, number)
            return modified_files(self._store, milestone.first - 1, milestone.last)

    def stats(self, number: int) -> MilestoneStats:
        """How many snapshots the milestone covers, and the files and lines it changed.

        Lines are counted in the milestone's unified diff (binary files count 0 lines).

        Raises:
            MilestoneNotFoundError: If there is no such milestone.
        """
        with self._store.read():
            milestone = find_milestone(self._store, number)
            files = modified_files(self._store, milestone.first - 1, milestone.last)
            text = unified_diff(
                self._store, self._reconstructor, milestone.first - 1, milestone.last, None
            )
        added, removed = _count_lines(text)
        return MilestoneStats(
            milestone=milestone.number,
            snapshots=milestone.count,
            files=len(files),
            lines_added=added,
            lines_removed=removed,
        )

    # -- acting on a milestone ------------------------------------------------------------

    def rollback(
        self,
        number: int,
        dry_run: bool = False,
        force: bool = False,
        *,
        session: str | None = None,
    ) -> RollbackResult:
        """Roll the workspace back to just before the milestone (after snapshot ``first - 1``).

        Same guarantees as ``ws.rollback``: the rollback is itself a new snapshot (so it
        can be rolled back), it is journaled and hash-checked, and it refuses to
        overwrite changes made outside snapline unless ``force`` is given.

        Args:
            number: The milestone to undo (with everything after it).
            dry_run: Only report what would change.
            force: First record the files changed outside snapline as their own
                snapshot, then roll back over them.
            session: The session id to record the rollback's snapshot under.

        Returns:
            What was (or would be) restored, deleted and recreated, and the new snapshot.

        Raises:
            MilestoneNotFoundError: If there is no such milestone.
            RollbackConflictError: If files were changed outside snapline and ``force``
                is false; nothing is written.
        """
        milestone = self.get(number)
        info = SnapshotInfo(
            tool="rollback",
            description=f"roll back milestone {milestone.number}: {milestone.title}",
            session=session,
            metadata={"milestone": milestone.number},
        )
        # rollback() takes the writer lock itself and plans inside it.
        return roll_back(
            self._recorder,
            self._reconstructor,
            milestone.first - 1,
            None,
            dry_run=dry_run,
            force=force,
            info=info,
        )

    def export(self, number: int, path: str | os.PathLike[str] | None = None) -> str:
        """The milestone as a patch ``git apply`` accepts, headed by its title and description.

        Apply it to the state after snapshot ``first - 1`` to get the state after ``last``.

        Args:
            number: The milestone.
            path: When given, also write the patch there (atomically).

        Returns:
            The patch text.

        Raises:
            MilestoneNotFoundError: If there is no such milestone.
            OutputInStoreError: If ``path`` is inside ``.snapline/`` (nothing is written).
        """
        target = None if path is None else output_path(self._recorder.root, path, "the patch")
        text = render_patch(self.get(number), self.diff(number))
        if target is not None:
            atomic.write_file(target, text.encode(), _FILE_MODE)
        return text


def _count_lines(diff: str) -> tuple[int, int]:
    added = removed = 0
    in_hunk = False
    for line in diff.splitlines():
        if line.startswith("diff --git "):
            in_hunk = False
        elif line.startswith("@@"):
            in_hunk = True
        elif in_hunk and line.startswith("+"):
            added += 1
        elif in_hunk and line.startswith("-"):
            removed += 1
    return added, removed
