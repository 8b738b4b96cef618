"""The plan a rollback or a revert makes before it writes anything, and its last checks.

Both build the same plan (steps, paths by what happens to them, conflicts), order it and
check it the same way, so a dry run of either promises what its real run does.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from snapline.snapshots.record.plan import ConflictsError, Step, deletions_first, obstacles
from snapline.snapshots.record.recorder import Recorder
from snapline.snapshots.results import Conflict

__all__ = ["RestorePlan"]


@dataclass
class RestorePlan:
    """What a rollback or a revert will write, and the paths by what happens to them."""

    steps: list[Step] = field(default_factory=list)
    restored: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    recreated: list[str] = field(default_factory=list)
    conflicts: list[Conflict] = field(default_factory=list)

    def order(self, root: Path) -> None:
        """Put the steps in the order the real run writes them, and name what stands in the way.

        The dry run checks the same order, so it promises what the real run does.

        Args:
            root: The workspace root.
        """
        self.steps = deletions_first(self.steps)
        conflicting = {c.path for c in self.conflicts}
        self.conflicts.extend(c for c in obstacles(root, self.steps) if c.path not in conflicting)

    def writes(
        self, recorder: Recorder, *, dry_run: bool, refusal: Callable[[], ConflictsError]
    ) -> bool:
        """Whether the real run goes on to write the steps (a dry run never does).

        Args:
            recorder: The workspace's recorder, inside ``writing()``.
            dry_run: Whether this is a dry run.
            refusal: Builds the error that refuses the conflicts.

        Raises:
            ConflictsError: The refusal, if the real run finds conflicts.
            SnaplineError: If the latest snapshot cannot be built on (``check_tip``).
        """
        if self.steps:
            # Before the dry run returns too: a latest snapshot the real run would
            # refuse to build on must not get a promise.
            recorder.check_tip()
        if dry_run:
            return False
        if self.conflicts:
            raise refusal()
        return bool(self.steps)
