"""Reading milestones: store rows to public models, lookups and the open range."""

from __future__ import annotations

from snapline.errors import SnaplineError
from snapline.milestones.create import expected_start
from snapline.milestones.fields import MILESTONE_VERSION, parse_tags
from snapline.milestones.milestone import Milestone, OpenRange
from snapline.store import MilestoneRow, Store, shape_problem

__all__ = [
    "MilestoneNotFoundError",
    "MilestoneRecordError",
    "find_milestone",
    "open_range",
    "to_milestone",
]


class MilestoneNotFoundError(SnaplineError):
    """A milestone number that does not exist.

    Attributes:
        number: The number asked for.
        count: How many milestones there are (they are numbered ``1..count``).
    """

    exit_code = 1
    number: int
    count: int

    def _message(self) -> str:
        if self.count == 0:
            known = "there are no milestones yet; create one with `snapline milestone create`"
        else:
            known = f"milestones run from 1 to {self.count}; see `snapline milestone list`"
        return f"there is no milestone {self.number}: {known}"


class MilestoneRecordError(SnaplineError):
    """A stored milestone this snapline cannot read (newer format, unreadable tags)."""

    exit_code = 3

    def __init__(self, number: int, detail: str, remedy: str) -> None:
        self.number = number
        self.detail = detail
        super().__init__(f"milestone {number} cannot be read: {detail}; {remedy}")


def to_milestone(row: MilestoneRow) -> Milestone:
    """The public :class:`Milestone` for a row.

    Raises:
        MilestoneRecordError: If the row has a newer format version or unreadable tags.
    """
    damage = shape_problem(row)
    if damage is not None:
        raise MilestoneRecordError(row.number, damage, "run `snapline verify`")
    if row.version > MILESTONE_VERSION:
        raise MilestoneRecordError(
            row.number,
            f"it has format version {row.version}, newer than the {MILESTONE_VERSION} "
            "this snapline reads",
            "upgrade snapline",
        )
    tags = parse_tags(row.tags)
    if tags is None:
        raise MilestoneRecordError(
            row.number, "its tags are not a JSON list of strings", "run `snapline verify`"
        )
    return Milestone(
        number=row.number,
        title=row.title,
        description=row.description,
        tags=tags,
        time=row.time,  # type: ignore[arg-type]  # pydantic parses the ISO string
        first=row.first,
        last=row.last,
        version=row.version,
        chain_hash=row.chain_hash,
    )


def find_milestone(store: Store, number: int) -> Milestone:
    """Milestone ``number``.

    Raises:
        MilestoneNotFoundError: If there is no such milestone.
    """
    row = store.milestones.get(number)
    if row is None:
        last = store.milestones.latest()
        raise MilestoneNotFoundError(number, last.number if last else 0)
    return to_milestone(row)


def open_range(store: Store) -> OpenRange:
    """The snapshots recorded since the last milestone (what ``create()`` would close)."""
    number, start = expected_start(store)
    latest = store.snapshots.latest_number() or 0
    if latest < start:
        return OpenRange(milestone=number, start=start, count=0)  # no end
    return OpenRange(milestone=number, start=start, end=latest, count=latest - start + 1)
