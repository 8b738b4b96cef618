"""The side lines a refs store's main line has joined: what its merge snapshots bring in.

A merge snapshot's commit has the heads it joins as its further parents; the snapshots
from each head back to the main line are the joined line's, and every reader shows them
as the ledger store does (``log``'s joins, ``id:`` of a joined snapshot, ``show``). Only
joined lines are listed: a line on the refs that no main-line snapshot merged is another
work tree's or clone's own line, not a second line of this history, so it never makes
the writers refuse (the ledger store's unmerged side lines do, until ``snapline merge``).

Merge snapshots are rare; they are found in the index by their tool (``merge``), and
the lines read from the refs on each call.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from snapline.store.refs.followed import read_followed
from snapline.store.refs.layout import line_ref
from snapline.store.refs.reading import LineSnapshot, read_snapshot
from snapline.store.rows import ChangeRow, LedgerEntry, SideRow, SnapshotRow

if TYPE_CHECKING:
    from snapline.store.refs.store import RefsStore

__all__ = ["joined_lines", "joined_milestones", "joined_side_line", "side_row"]

_MERGE_TOOL = "merge"
_SEEN: dict[tuple[str, str, int], dict[str, tuple[SideRow, LineSnapshot]]] = {}


def joined_lines(store: RefsStore) -> dict[str, tuple[SideRow, LineSnapshot]]:
    """Every snapshot of a joined side line, by id: its side row and its commit read.

    Raises:
        DamagedLineError: If a commit on the way is damaged or crafted.
    """
    merges = [
        row for row in store.index.snapshots.select(tool=_MERGE_TOOL) if json.loads(row.merges)
    ]
    if not merges:
        return {}  # the common case, asked by every write: no ref read
    # The merges are on the line this work tree follows (its own, or the main line).
    line = store.followed_line()
    tip = None if line is None else store.repo.ref(line_ref(line))
    latest = store.index.snapshots.latest_number()
    if not merges or tip is None or latest is None:
        return {}
    key = (str(store.repo.git_dir), tip, latest)
    if key in _SEEN:
        return _SEEN[key]
    ref = line_ref(line or "")
    found: dict[str, tuple[SideRow, LineSnapshot]] = {}
    commit, number = tip, latest
    for merge in sorted(merges, key=lambda row: -row.number):
        while number > merge.number:
            parents = store.repo.read_commit(commit).parents
            if not parents:
                return found
            commit, number = parents[0], number - 1
        joining = read_snapshot(store.repo, commit, ref=ref)
        if joining.record.row.id != merge.id:
            # The ref is not where the index is (a write caught up later): by id instead.
            joining = next(
                s for s in read_followed(store.repo, line or "") if s.record.row.id == merge.id
            )
        for head in joining.parents[1:]:
            _walk(store, ref, head, merge.number, found)
    # A command asks several times (log's joins, milestones, id:); the answer depends
    # only on the main line's tip, whose commits never change.
    _SEEN.clear()
    _SEEN[key] = found
    return found


def _walk(
    store: RefsStore,
    ref: str,
    head: str,
    merged_into: int,
    found: dict[str, tuple[SideRow, LineSnapshot]],
) -> None:
    """Add the snapshots from ``head`` back to the main line, joined by ``merged_into``."""
    commit: str | None = head
    while commit is not None:
        snapshot = read_snapshot(store.repo, commit, ref=ref)
        row = snapshot.record.row
        main = store.index.snapshots.get(row.number)
        if main is not None and main.id == row.id:
            return
        earlier = found.get(row.id)
        if (
            earlier is None
            or earlier[0].merged_into is None
            or merged_into < earlier[0].merged_into
        ):
            found[row.id] = (side_row(row, merged_into), snapshot)
        commit = snapshot.parents[0] if snapshot.parents else None


def side_row(row: SnapshotRow, merged_into: int | None) -> SideRow:
    """The side row of snapshot ``row``, joined by ``merged_into`` (``None``: not yet)."""
    return SideRow(
        id=row.id,
        number=row.number,
        parent_id=row.parent_id,
        time=row.time,
        tool=row.tool,
        description=row.description,
        session=row.session,
        merged_into=merged_into,
    )


def joined_side_line(
    store: RefsStore,
    id_: str,
    joined: dict[str, tuple[SideRow, LineSnapshot]] | None = None,
) -> list[tuple[SnapshotRow, list[ChangeRow]]]:
    """The joined snapshots from where ``id_``'s line left the main line to ``id_``.

    Oldest first, each with its changes; ``[]`` when ``id_`` is on no joined line.
    ``joined``: the side snapshots to look among (default: the joined lines').
    """
    joined = joined_lines(store) if joined is None else joined
    walked = []
    current = joined.get(id_)
    while current is not None:
        record = current[1].record
        walked.append((record.row, list(record.changes)))
        current = joined.get(record.row.parent_id or "")
    walked.reverse()
    return walked


def joined_milestones(
    store: RefsStore, joined: dict[str, tuple[SideRow, LineSnapshot]] | None = None
) -> list[LedgerEntry]:
    """The milestones closed on joined lines, as the ledger's files would list them.

    Each is named as its ledger file was (``milestone_name`` of its record), by
    number, time and name. ``joined``: the side snapshots whose milestones are
    listed (default: the joined lines').

    Raises:
        DamagedLineError: If a milestones ref is damaged or crafted.
    """
    from pathlib import Path

    from snapline.store.ledger.milestone_format import milestone_name, render_milestone
    from snapline.store.refs.layout import MILESTONES
    from snapline.store.refs.reading import read_milestones

    joined = joined_lines(store) if joined is None else joined
    main = store.followed_line()
    if not joined or main is None:
        return []
    found = []
    for name in store.repo.refs(MILESTONES):
        line = name.removeprefix(MILESTONES)
        if line == main:
            continue
        for record in read_milestones(store.repo, line):
            if record.last_id not in joined:
                continue
            row = record.row
            file = milestone_name(row.number, render_milestone(row, record.last_id))
            entry = LedgerEntry(Path(file), milestone=row, last_id=record.last_id)
            found.append(((row.number, row.time, file), entry))
    return [entry for _, entry in sorted(found, key=lambda pair: pair[0])]
