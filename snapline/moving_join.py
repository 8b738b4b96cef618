"""Milestones a ledger held beside its main line's, joined when ``snapline upgrade`` moves it.

Two branches that closed milestones on the snapshots they share leave, after a git
merge, milestone files of the same numbers; the ledger lists the merged-in branch's as
closed beside the main line's, and says ``snapline merge`` joins them (docs/format.md,
"Milestones across lines"). git's refs hold one milestone of each number on a line, so
the upgrade carries them over by that join (:func:`snapline.milestones.join.join_carried`)
once the history is on the refs.

They are written to the local state directory (``upgrade-joins.json``) before
``.snapline/`` leaves the tree, and joined after; a kill in between leaves the file, and
the next ``snapline upgrade`` joins them. A merge that names their files already (a kill
after the join, before the file went) is never recorded again.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING

from snapline.atomic import write_file
from snapline.crashpoints import crash_point
from snapline.milestones.lines import OtherMilestone, Place, other_milestones
from snapline.store.joined import joined_by_merges
from snapline.store.rows import MilestoneRow

if TYPE_CHECKING:
    from snapline.store import StoreReader
    from snapline.store.refs.git import GitRepository

__all__ = ["JOINS_NAME", "beside_main", "described", "join_kept", "keep", "unjoined_on"]

JOINS_NAME = "upgrade-joins.json"
"""The milestones to join after the move, in the local state directory."""


def beside_main(store: StoreReader) -> list[OtherMilestone]:
    """The milestones ``merge`` has still to join that were closed beside the main line's."""
    return [m for m in other_milestones(store) if m.pending and m.place is Place.MAIN]


def described(milestone: OtherMilestone) -> str:
    """``1 'title' (snapshots 1..2, FILE)``: what the upgrade says of one it joins."""
    row = milestone.row
    return f"{row.number} {row.title!r} (snapshots {row.first}..{row.last}, {milestone.name})"


def unjoined_on(
    repo: GitRepository, line: str, beside: list[OtherMilestone]
) -> list[OtherMilestone]:
    """Those of ``beside`` closed on snapshots of the line ``line`` that no merge there names.

    The milestones a ledger closed beside its main line when that line is not the one
    the move writes: a branch git merged, or an old branch checked out, whose ledger
    shares the refs' main line (the same first snapshot). Those closed on its own
    snapshots go onto its own line with them; those closed on the refs' main line are
    joined there, unless a merge there joined them already (the upgrade of another
    ledger that held them too).
    """
    from snapline.store.refs.layout import line_ref
    from snapline.store.refs.reading import read_line

    if not beside or repo.ref(line_ref(line)) is None:
        return []
    rows = [snapshot.record.row for snapshot in read_line(repo, line)]
    on_line, joined = {row.id for row in rows}, joined_by_merges(rows)
    return [m for m in beside if m.last_id in on_line and m.name not in joined]


def keep(state: Path, carried: list[OtherMilestone]) -> None:
    """Add ``carried`` to those the state directory keeps for :func:`join_kept`.

    Each once, by its file's name: the ledgers of several merged commits may hold the
    same one, and a run killed before the join writes them again.
    """
    if not carried:
        return
    path = state / JOINS_NAME
    entries = json.loads(path.read_bytes()) if path.is_file() else []
    kept = {entry["name"] for entry in entries}
    for m in carried:
        if m.name not in kept:
            kept.add(m.name)
            entries.append({"name": m.name, "last_id": m.last_id, "row": m.row._asdict()})
    write_file(path, json.dumps(entries).encode(), 0o600)


def join_kept(root: Path, state: Path, timeout: float) -> list[str]:
    """Join the milestones :func:`keep` wrote, on the refs store of ``root``; each described.

    Raises:
        SnaplineError: If the workspace refuses to record (the file stays: the next
            ``snapline upgrade`` joins them).
    """
    path = state / JOINS_NAME
    if not path.is_file():
        return []
    carried = [
        OtherMilestone(
            name=entry["name"],
            row=MilestoneRow(**entry["row"]),
            last_id=entry["last_id"],
            place=Place.MAIN,
            line=None,
            joined_by=None,
        )
        for entry in json.loads(path.read_bytes())
    ]
    from snapline.milestones.join import join_carried
    from snapline.opening import open_store

    opened = open_store(root, timeout)
    try:
        joined = joined_by_merges(opened.store.snapshots.select())
        if not all(m.name in joined for m in carried):
            join_carried(opened.store, opened.recorder, carried)
            crash_point("upgrade-joined")
    finally:
        opened.close()
    os.unlink(path)
    return [described(m) for m in carried]
