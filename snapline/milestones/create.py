"""Creating a milestone: the next continuous range, checked and appended in one transaction."""

from __future__ import annotations

import json
from collections.abc import Iterable

from snapline.errors import SnaplineError
from snapline.milestones.fields import MILESTONE_VERSION
from snapline.milestones.seal import GENESIS, milestone_chain_hash
from snapline.snapshots.info import storable_text
from snapline.snapshots.read.ids import is_id_ref
from snapline.snapshots.read.prompts import before_prompt, is_prompt_ref
from snapline.snapshots.read.refs import SnapshotRefError, number_of, offset
from snapline.snapshots.record.commit import now_iso
from snapline.store import MilestoneRow, Store, StoreReader

__all__ = [
    "EmptyMilestoneError",
    "MilestoneArgumentError",
    "MilestoneContinuityError",
    "MilestoneRangeError",
    "append_milestone",
    "expected_start",
]


class MilestoneArgumentError(SnaplineError):
    """A milestone title, tag or ``to`` value that cannot be used."""

    exit_code = 2


class MilestoneRangeError(SnaplineError):
    """The requested range cannot become the next milestone.

    Attributes:
        number: The number the milestone would have had.
        start: The first snapshot of the requested range.
        end: Its last snapshot (``None`` when the range is empty).
        latest: The latest snapshot in the history.
        problem: What is wrong, without the advice: the message up to the advice, which
            names the library's arguments (the command line names its own options).
    """

    exit_code = 1

    def __init__(
        self,
        message: str,
        *,
        number: int,
        start: int,
        end: int | None,
        latest: int,
        advice: str = "",
    ) -> None:
        self.number = number
        self.start = start
        self.end = end
        self.latest = latest
        self.problem = message
        super().__init__(f"{message}; {advice}" if advice else message)


class MilestoneContinuityError(MilestoneRangeError):
    """A milestone must start one past the previous milestone's last snapshot (1 for the first).

    Attributes:
        expected: The only start that keeps milestones continuous.
        actual: The start that was asked for.
    """

    def __init__(self, *, number: int, expected: int, actual: int, latest: int) -> None:
        self.expected = expected
        self.actual = actual
        if number == 1:
            where = "the first milestone must start at snapshot 1 (0 is the baseline)"
        else:
            where = (
                f"milestone {number} must start at snapshot {expected}, one past the end "
                f"of milestone {number - 1}"
            )
        gap_or_overlap = "would overlap it" if actual < expected else "would leave a gap"
        super().__init__(
            f"{where}, not {actual}: starting there {gap_or_overlap}",
            advice=f"pass start={expected} or leave start out",
            number=number,
            start=actual,
            end=None,
            latest=latest,
        )


class EmptyMilestoneError(MilestoneRangeError):
    """Nothing was recorded since the last milestone, so there is nothing to close."""

    def __init__(self, *, number: int, start: int, latest: int) -> None:
        since = "since the baseline" if number == 1 else f"since milestone {number - 1}"
        super().__init__(
            f"milestone {number} would be empty: no snapshot was recorded {since} "
            f"(the latest is {latest}); record changes first",
            number=number,
            start=start,
            end=None,
            latest=latest,
        )


def expected_start(store: Store) -> tuple[int, int]:
    """The next milestone's number and the snapshot it must start at."""
    previous = store.milestones.latest()
    if previous is None:
        return 1, 1
    return previous.number + 1, previous.last + 1


def append_milestone(
    store: Store,
    title: str,
    description: str,
    to: int | str,
    start: int | str | None,
    tags: Iterable[str] | str,
) -> MilestoneRow:
    """Check the range and append the next milestone; call inside ``store.write()``.

    Returns:
        The inserted row.

    Raises:
        MilestoneArgumentError: If the title, tags or ``to`` cannot be used.
        MilestoneContinuityError: If ``start`` is not the expected start.
        EmptyMilestoneError: If nothing was recorded since the last milestone.
        MilestoneRangeError: If ``to`` is past the latest snapshot or before ``start``.
    """
    clean_title = _title(title)
    clean_tags = _tags(tags)
    if not isinstance(description, str):
        raise MilestoneArgumentError("a milestone description must be a string")
    number, expected = expected_start(store)
    latest = store.snapshots.latest_number() or 0
    end = _number(store, to, latest, "to")
    actual = expected if start is None else _number(store, start, latest, "start")
    if actual != expected:
        raise MilestoneContinuityError(
            number=number, expected=expected, actual=actual, latest=latest
        )
    if latest < expected:
        raise EmptyMilestoneError(number=number, start=expected, latest=latest)
    if not actual <= end <= latest:
        if end > latest:
            problem = f"cannot end at snapshot {end}: the history ends at {latest}"
            advice = f"pass to={latest} or to='latest'"
        else:
            problem = f"cannot end at snapshot {end}, before its start {actual}"
            advice = f"pass a `to` from {actual} to {latest}"
        raise MilestoneRangeError(
            f"milestone {number} {problem}",
            advice=advice,
            number=number,
            start=actual,
            end=end,
            latest=latest,
        )
    previous = store.milestones.latest()
    last_snapshot = store.snapshots.get(end)
    assert last_snapshot is not None  # 0 < end <= latest and snapshots have no gaps
    row = MilestoneRow(
        number=number,
        title=clean_title,
        description=storable_text(description),
        tags=json.dumps(list(clean_tags), ensure_ascii=False),
        time=now_iso(),
        first=actual,
        last=end,
        version=MILESTONE_VERSION,
        chain_hash="",
    )
    chain = milestone_chain_hash(
        previous.chain_hash if previous else GENESIS, row, last_snapshot.chain_hash
    )
    row = row._replace(chain_hash=chain)
    store.milestones.insert(row)
    return row


def _title(title: str) -> str:
    if not isinstance(title, str) or not title.strip():
        raise MilestoneArgumentError("a milestone needs a title, for example 'parser done'")
    if "\n" in title or "\r" in title:
        raise MilestoneArgumentError(
            "a milestone title is one line; put the rest in its description"
        )
    return storable_text(title.strip())


def _tags(tags: Iterable[str] | str) -> tuple[str, ...]:
    # A lone string is one tag, not a sequence of one-letter tags.
    items = [tags] if isinstance(tags, str) else list(tags)
    result: list[str] = []
    for tag in items:
        if not isinstance(tag, str) or not tag.strip() or any(c in tag for c in "\r\n"):
            raise MilestoneArgumentError(
                f"milestone tags are non-empty one-line strings, not {tag!r}"
            )
        if storable_text(tag.strip()) not in result:
            result.append(storable_text(tag.strip()))
    return tuple(result)


def _number(store: StoreReader, value: int | str, latest: int, name: str) -> int:
    # Range checks come later, with the milestone's own errors; only the syntax here.
    if is_id_ref(value):
        # An id names one snapshot on any line; one of another line is refused there
        # (SideSnapshotError), as a milestone covers the main line only.
        return number_of(store, value)
    try:
        if is_prompt_ref(value):
            assert isinstance(value, str)
            return before_prompt(store, value, latest)
        return offset(value, latest)
    except SnapshotRefError:
        raise MilestoneArgumentError(
            f"{name} must be a snapshot number, 'latest', 'latest~N' or "
            f"'before-prompt:N@SESSION' or 'id:PREFIX', not {value!r}"
        ) from None
