"""``snapline merge`` with milestones: the merge snapshot, then one milestone that closes it.

Milestones closed on other branches (see :mod:`snapline.milestones.lines`) keep their
files. The merge snapshot names those files in its metadata, which settles them, and the
main line gains one milestone, numbered after its last one, from one past that
milestone's last snapshot to the merge snapshot, with their titles and tags: so the main
line's numbers stay 1, 2, 3… and its ranges continuous, and no two milestones the main
line holds share a number.
"""

from __future__ import annotations

import json

from snapline.milestones.create import append_milestone
from snapline.milestones.lines import OtherMilestone, pending_milestones
from snapline.snapshots.info import SnapshotInfo
from snapline.snapshots.kinds import JOINED_MILESTONES
from snapline.snapshots.record.merge import MERGE_TOOL, merge_lines
from snapline.snapshots.record.recorder import Recorder
from snapline.snapshots.snapshot import Snapshot
from snapline.store import Store

__all__ = ["join_carried", "merge_with_milestones"]


def merge_with_milestones(
    store: Store, recorder: Recorder, info: SnapshotInfo | None
) -> Snapshot | None:
    """Join every line and every milestone closed on another branch.

    Args:
        store: The open store.
        recorder: The open workspace's recorder.
        info: What the caller says about the merge snapshot (``None``: the default).

    Returns:
        The merge snapshot, or ``None`` when there was nothing to join.
    """
    # The lines to join are read caught up, under the lock (on git's refs: the lines
    # whose work git merged into the files, store.merging).
    with recorder.writing(joining=True), store.merging(recorder.root):
        pending = pending_milestones(store)
        # One transaction: the merge snapshot and the milestone that closes it are
        # published together (the snapshot file first), or neither is.
        with store.write():
            snapshot = merge_lines(recorder, info, [other.name for other in pending])
            if snapshot is not None and pending:
                title, description, tags = _carried(pending)
                append_milestone(store, title, description, snapshot.number, None, tags)
    return snapshot


def join_carried(store: Store, recorder: Recorder, carried: list[OtherMilestone]) -> Snapshot:
    """Join milestones the store cannot hold, as ``merge`` joins those it lists.

    ``snapline upgrade`` hands over the milestones an in-tree ledger held beside its
    main line's (closed on another branch on shared snapshots): git's refs keep one
    milestone of each number on a line, so they are joined as the ledger's advice said
    (``merge``), by a merge snapshot that names their files and records no file (the
    workspace's drift stays drift), and one milestone that closes it with their titles.

    Returns:
        The merge snapshot.
    """
    names = sorted(other.name for other in carried)
    info = SnapshotInfo(
        tool=MERGE_TOOL, description="merge milestones closed on another branch"
    ).with_metadata(**{JOINED_MILESTONES: names})
    with recorder.writing(joining=True), store.write():
        snapshot = recorder.record([], info, merges=[]).snapshot()
        assert snapshot is not None, "a merge is recorded even when nothing differs"
        title, description, tags = _carried(carried)
        append_milestone(store, title, description, snapshot.number, None, tags)
    return snapshot


def _carried(pending: list[OtherMilestone]) -> tuple[str, str, list[str]]:
    # One milestone closes the merge: the titles of those it joins, their tags, and a
    # description naming each one's file, so the originals can be found.
    title = " + ".join(dict.fromkeys(other.row.title for other in pending))
    lines = [
        f"joins milestone {other.row.number} {other.row.title!r} (snapshots "
        f"{other.row.first}..{other.row.last}, {other.name}), closed on another branch"
        for other in pending
    ]
    tags: list[str] = []
    for other in pending:
        for tag in json.loads(other.row.tags):
            if isinstance(tag, str) and tag not in tags:
                tags.append(tag)
    return title, "\n".join(lines), tags
