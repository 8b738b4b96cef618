"""Lines of history: what a git merge of two branches that both recorded leaves behind.

Each branch appends to the history on its own, so after git merges them the ledger holds
two lines from the snapshot where they parted. The index keeps one as the main line (its
numbers are the ones every command uses) and the others as side snapshots, until a merge
snapshot (``snapline merge``) joins them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from snapline.errors import SnaplineError
from snapline.store import SideRow, SnapshotRow

if TYPE_CHECKING:
    from snapline.snapshots.snapshot import SideSnapshot
    from snapline.store import StoreReader

__all__ = ["DivergedHistoryError", "Line", "side_snapshot", "side_snapshots", "unmerged_lines"]


class Line(NamedTuple):
    """A line of snapshots not joined to the main one.

    Attributes:
        head: Its latest snapshot.
        fork: The number of the main-line snapshot it continues from.
        snapshots: Its snapshots, oldest first.
    """

    head: SideRow
    fork: int
    snapshots: tuple[SideRow, ...]


def unmerged_lines(store: StoreReader) -> list[Line]:
    """The lines not yet joined to the main one, by head number then id."""
    side = [row for row in store.side_snapshots() if row.merged_into is None]
    by_id = {row.id: row for row in side}
    parents = {row.parent_id for row in side}
    lines = []
    for head in sorted((r for r in side if r.id not in parents), key=lambda r: (-r.number, r.id)):
        walked = [head]
        while walked[-1].parent_id in by_id:
            walked.append(by_id[walked[-1].parent_id or ""])
        lines.append(Line(head=head, fork=walked[-1].number - 1, snapshots=tuple(reversed(walked))))
    return lines


def side_snapshots(store: StoreReader) -> list[SideSnapshot]:
    """Every snapshot off the main line, each with the line it is on, by number."""
    return _models(store.side_snapshots())


def side_snapshot(store: StoreReader, id_: str) -> SideSnapshot:
    """Snapshot ``id_`` off the main line: on a line of the history, else another writer's.

    Another writer's line (git's refs: another clone's or work tree's, neither held nor
    joined) is read only when the id is on no line of the history.

    Raises:
        StopIteration: If no line holds ``id_`` (a caller that located it first never).
    """
    found = next((s for s in side_snapshots(store) if s.id == id_), None)
    if found is not None:
        return found
    return next(s for s in _models(store.snapshots_elsewhere("")) if s.id == id_)


def _models(rows: list[SideRow]) -> list[SideSnapshot]:
    if not rows:
        return []  # the common case: one line, and no models to load
    from snapline.snapshots.snapshot import SideSnapshot  # writers check lines, build none

    has_child = {row.parent_id for row in rows}
    by_id = {row.id: row for row in rows}
    line_of: dict[str, str] = {}
    for head in (row for row in rows if row.id not in has_child):
        current: SideRow | None = head
        while current is not None and current.id not in line_of:
            line_of[current.id] = head.id
            current = by_id.get(current.parent_id or "")
    return [
        SideSnapshot(
            number=row.number, id=row.id, parent_id=row.parent_id,
            time=row.time,  # type: ignore[arg-type]  # pydantic parses the ISO string
            tool=row.tool, description=row.description, session=row.session,
            line=line_of.get(row.id, row.id), joined_by=row.merged_into,
        )
        for row in rows
    ]  # fmt: skip


class DivergedHistoryError(SnaplineError):
    """The history has more than one line (branches that both recorded were merged in git).

    Attributes:
        lines: The lines not joined to the main one.
        latest: The main line's latest snapshot.
    """

    exit_code = 1
    lines: list[Line]
    latest: SnapshotRow

    def _message(self) -> str:
        fork = min(line.fork for line in self.lines)
        others = "; ".join(
            "another ends at "
            + _describe(line.head.number, line.head.id, line.head.tool, line.head.description)
            for line in self.lines
        )
        latest = self.latest
        main = _describe(latest.number, latest.id, latest.tool, latest.description)
        return (
            f"the history has {len(self.lines) + 1} lines from snapshot {fork}: the main line "
            f"ends at {main}; {others}; run `snapline merge` to join them"
        )


def _describe(number: int, id_: str, tool: str, description: str) -> str:
    return f"snapshot {number} ({id_[:12]}, {tool}: {description!r:.60})"
