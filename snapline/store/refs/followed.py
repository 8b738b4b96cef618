"""The history a work tree follows: its own line, and the lines it forked from up to each fork.

Every writer appends to a line of its own (docs/format.md, "The refs layout"): the work
tree that ran ``init`` owns the baseline's line; any other (a clone after ``snapline
fetch``, a linked work tree) starts its own line at its first write, forking from the
tip of the line its index followed. Its index then holds one sequence of snapshots,
numbered from the baseline: the lines it forked from, each up to its fork, then its own.
Others' lines stay readable (by id, by ``explain``) but are not joined here.

The local state remembers the line (:data:`LINE_FILE`, beside the index).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from snapline.store.ledger.fields import is_id
from snapline.store.ledger.milestone_format import MilestoneRecord
from snapline.store.refs.git import GitRepository, MissingObjectError
from snapline.store.refs.reading import (
    DamagedLineError,
    LineSnapshot,
    list_lines,
    read_line,
    read_milestones,
    read_snapshot,
)

__all__ = [
    "LINE_FILE",
    "Segment",
    "followed_milestones",
    "followed_segments",
    "read_followed",
    "read_own_line",
    "write_own_line",
]

LINE_FILE = "line"
"""In the local state: the id of this work tree's own line, once it wrote one."""


class Segment(NamedTuple):
    """One line of a followed history and how much of it is followed.

    Attributes:
        line: The line's id.
        snapshots: Its snapshots that are followed (all of them for the last segment,
            up to the fork for the lines before).
    """

    line: str
    snapshots: list[LineSnapshot]


def read_own_line(state: Path) -> str | None:
    """The line named in the local state ``state``, or ``None`` (none, or not an id)."""
    try:
        text = (state / LINE_FILE).read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return text if is_id(text) else None


def write_own_line(state: Path, line: str) -> None:
    """Name ``line`` as this work tree's own in its local state (written whole, then renamed)."""
    temporary = state / (LINE_FILE + ".tmp")
    with open(temporary, "w", encoding="ascii") as out:
        out.write(line + "\n")
        out.flush()
        os.fsync(out.fileno())
    os.replace(temporary, state / LINE_FILE)


def followed_segments(repo: GitRepository, line: str) -> list[Segment]:
    """The lines followed to reach ``line``'s tip from the baseline, oldest first.

    A line whose first snapshot forks (its parent commit on another line) is preceded by
    the line holding that commit, cut at it, and so on down to the baseline's line. A
    fork no line holds any more, whose snapshot a line holds rewritten (the same id,
    number and chain hash: a forget made elsewhere rewrote the line it forked from, and
    its record is not here yet to rewrite this line in step), is read on that line.

    Raises:
        DamagedLineError: If a line is damaged, or a fork's commit is on no line.
    """
    segments = [Segment(line, read_line(repo, line))]
    seen = {line}
    while segments[0].snapshots and segments[0].snapshots[0].record.row.number > 0:
        first = segments[0].snapshots[0]
        fork = first.parents[0]
        found = _line_holding(repo, fork, seen)
        if found is None:
            ref = f"refs/snapline/lines/{segments[0].line}"
            raise DamagedLineError(ref, first.commit, "forks from a commit on no line")
        seen.add(found.line)
        segments.insert(0, found)
    return segments


def read_followed(repo: GitRepository, line: str) -> list[LineSnapshot]:
    """Every snapshot followed to reach ``line``'s tip, numbered from the baseline (0)."""
    return [snapshot for segment in followed_segments(repo, line) for snapshot in segment.snapshots]


def followed_milestones(repo: GitRepository, line: str) -> list[MilestoneRecord]:
    """The milestones of the followed history: each forked-from line's up to its fork.

    A line's milestones continue the numbering of the line it forked from at the fork (as
    the in-tree ledger numbers a branch's), so an earlier line's milestones are taken
    while they end at or before the fork and come before the next line's first.
    """
    segments = followed_segments(repo, line)
    found: list[MilestoneRecord] = []
    for at, segment in enumerate(segments):
        milestones = read_milestones(repo, segment.line)
        if at + 1 < len(segments):
            last = segment.snapshots[-1].record.row.number if segment.snapshots else -1
            later = read_milestones(repo, segments[at + 1].line)
            bound = later[0].row.number if later else None
            milestones = [
                m
                for m in milestones
                if m.row.last <= last and (bound is None or m.row.number < bound)
            ]
        found.extend(m for m in milestones if not found or m.row.number > found[-1].row.number)
    return found


def _line_holding(repo: GitRepository, commit: str, seen: set[str]) -> Segment | None:
    """The line holding ``commit`` (else its snapshot rewritten), cut there; or ``None``."""
    # Each line is read whole: only an index built afresh (or a line rewritten) gets here.
    others = [other for other in sorted(list_lines(repo)) if other not in seen]
    found = _first_holding(repo, others, lambda snapshot: snapshot.commit == commit)
    if found is not None:
        return found
    try:
        row = read_snapshot(repo, commit).record.row
    except (DamagedLineError, MissingObjectError):
        return None  # named by the caller: a fork on no line
    same = (row.id, row.number, row.chain_hash)
    return _first_holding(
        repo,
        others,
        lambda s: (s.record.row.id, s.record.row.number, s.record.row.chain_hash) == same,
    )


def _first_holding(
    repo: GitRepository, lines: list[str], wanted: Callable[[LineSnapshot], bool]
) -> Segment | None:
    """The first of ``lines`` holding a snapshot ``wanted``, cut at it; or ``None``."""
    for other in lines:
        snapshots = read_line(repo, other)
        for at, snapshot in enumerate(snapshots):
            if wanted(snapshot):
                return Segment(other, snapshots[: at + 1])
    return None
