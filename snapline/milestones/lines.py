"""Milestones across lines: milestone files the main line does not hold, and joining them.

A milestone belongs to the line holding its last snapshot (its file's ``last-id``). The
main line's milestones are numbered 1, 2, 3… with continuous ranges, and the index holds
them. Every other milestone file stays as it was written and is one of:

- **on another line** (:attr:`Place.LINE`): closed on a branch that recorded its own
  snapshots, merged in git; its line is joined by ``snapline merge``;
- **beside the main line** (:attr:`Place.MAIN`): closed on another branch on snapshots
  both branches share, so its number is taken on the main line by the one the index
  holds;
- **orphaned** (:attr:`Place.ORPHAN`): its last snapshot is not in this checkout's
  ledger (a milestone file git left behind on a branch switch).

``snapline merge`` joins the first two kinds: its merge snapshot names their files in
its metadata (:data:`~snapline.snapshots.kinds.JOINED_MILESTONES`), and the main
line gains one milestone, numbered after its last, that closes the merge and carries
their titles. See docs/format.md, "Milestones across lines".
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING

from snapline.store import MilestoneRow, SideRow, StoreReader
from snapline.store.joined import joined_by_merges

if TYPE_CHECKING:
    from snapline.snapshots.snapshot import SideSnapshot

__all__ = [
    "OtherLine",
    "OtherMilestone",
    "Place",
    "other_lines",
    "other_milestones",
    "pending_message",
    "pending_milestones",
]


class Place(Enum):
    """Where a milestone file the main line does not hold was closed."""

    MAIN = "main"
    LINE = "line"
    ORPHAN = "orphan"


@dataclass(frozen=True)
class OtherMilestone:
    """A milestone file the main line does not hold.

    Attributes:
        name: Its file name under ``ledger/milestones/``.
        row: What it holds.
        last_id: The id of its last snapshot.
        place: Where it was closed.
        line: The head id of the line it is on (``Place.LINE``), else ``None``.
        joined_by: The number of the main-line snapshot that joined it, or ``None``.
    """

    name: str
    row: MilestoneRow
    last_id: str
    place: Place
    line: str | None
    joined_by: int | None

    @property
    def pending(self) -> bool:
        """Whether ``snapline merge`` has still to join it."""
        return self.joined_by is None and self.place is not Place.ORPHAN


def other_milestones(store: StoreReader) -> list[OtherMilestone]:
    """Every milestone file the main line does not hold, by number, time and name."""
    entries = store.other_milestones()
    if not entries:
        return []
    side = {row.id: row for row in store.side_snapshots()}
    children = {row.parent_id for row in side.values()}
    heads: dict[str, str] = {}
    for head in side.values():
        if head.id in children:
            continue
        current: SideRow | None = head
        while current is not None and current.id not in heads:
            heads[current.id] = head.id
            current = side.get(current.parent_id or "")
    # Merge snapshots name the milestone files they joined; this runs only when
    # milestone files are off the main line.
    joined = joined_by_merges(store.snapshots.select())
    found = []
    for entry in entries:
        row = entry.milestone
        assert row is not None and entry.last_id is not None
        name = entry.location.name
        anchor = store.snapshots.get(row.last)
        if anchor is not None and anchor.id == entry.last_id:
            found.append(
                OtherMilestone(name, row, entry.last_id, Place.MAIN, None, joined.get(name))
            )
        elif entry.last_id in side:
            by = joined.get(name, side[entry.last_id].merged_into)
            line = heads.get(entry.last_id)
            found.append(OtherMilestone(name, row, entry.last_id, Place.LINE, line, by))
        else:
            found.append(OtherMilestone(name, row, entry.last_id, Place.ORPHAN, None, None))
    return found


@dataclass(frozen=True)
class OtherLine:
    """A line of history beside the main one (a branch merged in git), with what it holds.

    Attributes:
        head: The id of its latest snapshot, which names the line.
        fork: The main-line snapshot it continues from.
        joined_by: The main-line merge snapshot that joined it, or ``None``.
        snapshots: Its snapshots, oldest first (each named by ``id:PREFIX``).
        milestones: The milestones closed on it.
    """

    head: str
    fork: int
    joined_by: int | None
    snapshots: tuple[SideSnapshot, ...]
    milestones: tuple[OtherMilestone, ...]


def other_lines(store: StoreReader) -> list[OtherLine]:
    """Every line beside the main one, by the merge that joined it (unjoined last), then head."""
    from snapline.snapshots.read.lines import side_snapshots

    side = side_snapshots(store)
    if not side:
        return []
    by_line: dict[str, list[SideSnapshot]] = {}
    for snapshot in side:  # by number (StoreReader.side_snapshots): each line oldest first
        by_line.setdefault(snapshot.line, []).append(snapshot)
    closed = [m for m in other_milestones(store) if m.place is Place.LINE]
    found = []
    for head, snapshots in by_line.items():
        joined = next((s.joined_by for s in snapshots if s.joined_by is not None), None)
        found.append(
            OtherLine(
                head=head,
                fork=snapshots[0].number - 1,
                joined_by=joined,
                snapshots=tuple(snapshots),
                milestones=tuple(m for m in closed if m.line == head),
            )
        )
    return sorted(found, key=lambda line: (line.joined_by is None, line.joined_by or 0, line.head))


def pending_milestones(store: StoreReader) -> list[OtherMilestone]:
    """The milestone files ``snapline merge`` has still to join (empty: none)."""
    return [other for other in other_milestones(store) if other.pending]


def pending_message(pending: list[OtherMilestone], store: StoreReader) -> str:
    """One line for ``verify``: which milestones were closed on two branches, what to do."""
    parts = []
    for other in pending:
        row = other.row
        held = store.milestones.get(row.number)
        beside = f" beside the main line's {held.title!r}" if held is not None else ""
        parts.append(
            f"milestone {row.number} {row.title!r} (snapshots {row.first}..{row.last}, "
            f"{other.name}) was closed on another branch{beside}"
        )
    return "; ".join(parts) + "; run `snapline merge` to join and number it"
