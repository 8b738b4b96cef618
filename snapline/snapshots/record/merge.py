"""Joining lines of history: the merge snapshot recorded after git merged two branches.

Both branches recorded from the same snapshot, so after the git merge the history has
two lines. The merge snapshot continues the main line (its number follows the main
line's latest, with no gap), names the heads of the lines it joins, and records the
merged workspace: its changes are what the workspace holds beyond the main line's
latest state, that is the other lines' work and how the merge combined it. The joined
snapshots stay in the ledger as they were recorded.
"""

from __future__ import annotations

from collections.abc import Sequence

from snapline.snapshots.info import SnapshotInfo
from snapline.snapshots.kinds import JOINED_MILESTONES
from snapline.snapshots.read.lines import unmerged_lines
from snapline.snapshots.record.recorder import Recorder
from snapline.snapshots.snapshot import Snapshot

__all__ = ["JOINED_MILESTONES", "MERGE_TOOL", "merge_lines"]

MERGE_TOOL = "merge"
"""The tool a merge snapshot is recorded by, unless the caller names another."""


def merge_lines(
    recorder: Recorder, info: SnapshotInfo | None, milestones: Sequence[str] = ()
) -> Snapshot | None:
    """Record the merge snapshot that joins every line not joined to the main one.

    Args:
        recorder: The open workspace's recorder.
        info: What the caller says about it; by default tool ``merge`` and a
            description naming the lines joined.
        milestones: The names of milestone files closed on other branches that this
            merge joins (see :mod:`snapline.milestones.lines`); recorded in its
            metadata. A merge is recorded for them even when the history has one line.

    Returns:
        The merge snapshot, or ``None`` when there is nothing to join.
    """
    with recorder.writing(joining=True):
        lines = unmerged_lines(recorder.store)
        if not lines and not milestones:
            return None
        if info is None:
            joined = ", ".join(
                f"{line.head.id[:12]} (snapshots {line.fork + 1}..{line.head.number})"
                for line in lines
            )
            what = f"merge line {joined}" if lines else "merge milestones closed on another branch"
            info = SnapshotInfo(tool=MERGE_TOOL, description=what)
        if milestones:
            info = info.with_metadata(**{JOINED_MILESTONES: sorted(milestones)})
        snapshot = recorder.record(None, info, merges=[line.head.id for line in lines]).snapshot()
        assert snapshot is not None, "a merge is recorded even when nothing differs"
        return snapshot
