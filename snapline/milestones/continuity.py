"""Checking milestones against themselves and the snapshot history.

Milestones must be numbered 1, 2, 3…, cover continuous ranges (the first starting at
snapshot 1, each next one one past the previous one's last, no gap, no overlap), stay
inside the history, and match their chain hash. Every problem found is reported, not
only the first. A problem's ``number`` is the milestone's number; its ``kind`` starts
with ``milestone-``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from snapline.milestones.fields import MILESTONE_VERSION, parse_tags
from snapline.milestones.seal import GENESIS, milestone_chain_hash
from snapline.snapshots.found import make_problem
from snapline.store import MilestoneRow, StoreReader, shape_problem

if TYPE_CHECKING:
    from snapline.snapshots.snapshot import Problem

__all__ = ["validate_milestones"]


def validate_milestones(store: StoreReader) -> list[Problem]:
    """Every continuity and integrity problem in the stored milestones.

    Args:
        store: The open store (call inside ``store.read()`` for one consistent view).

    Returns:
        The problems found, in milestone order; empty when the milestones are sound.
    """
    problems: list[Problem] = []
    latest = store.snapshots.latest_number()
    previous: MilestoneRow | None = None
    for row in store.milestones.all():
        damage = shape_problem(row)
        if damage is not None:
            # A value of the wrong type cannot be compared: report it, check no further.
            message = f"milestone {row.number} holds a value no snapline writes: {damage}"
            problems.append(_problem("bad-record", row, message))
            return problems
        problems.extend(_check_record(row, previous))
        problems.extend(_check_range(row, previous, latest))
        problems.extend(_check_chain(store, row, previous))
        previous = row
    return problems


# Ranges that do not hold together are validation failures (exit 1), as in the
# snapshot history; edited or unreadable records are corruption (exit 3).
_CORRUPT = frozenset({"chain-mismatch", "unknown-version", "bad-record"})


def _problem(kind: str, row: MilestoneRow, message: str, **extra: str | None) -> Problem:
    return make_problem(
        kind=f"milestone-{kind}",
        number=row.number,
        severity="corrupt" if kind in _CORRUPT else "error",
        message=message,
        **extra,
    )


def _check_record(row: MilestoneRow, previous: MilestoneRow | None) -> list[Problem]:
    problems = []
    expected_number = previous.number + 1 if previous else 1
    if row.number != expected_number:
        problems.append(
            _problem(
                "sequence",
                row,
                f"milestone {row.number} follows "
                f"{previous.number if previous else 'nothing'}: milestones are numbered "
                f"1, 2, 3… and {expected_number} is missing",
                expected=str(expected_number),
                actual=str(row.number),
            )
        )
    if row.version > MILESTONE_VERSION:
        problems.append(
            _problem(
                "unknown-version",
                row,
                f"milestone {row.number} has format version {row.version}; upgrade snapline",
            )
        )
    if parse_tags(row.tags) is None:
        problems.append(_problem("bad-record", row, f"milestone {row.number} has unreadable tags"))
    return problems


def _check_range(
    row: MilestoneRow, previous: MilestoneRow | None, latest: int | None
) -> list[Problem]:
    problems = []
    expected_first = previous.last + 1 if previous else 1
    if row.last < row.first:
        problems.append(
            _problem(
                "empty",
                row,
                f"milestone {row.number} runs from snapshot {row.first} to {row.last}: "
                "its range is empty",
            )
        )
    if row.first != expected_first:
        if previous is None:
            kind = "start"
            message = (
                f"milestone {row.number} starts at snapshot {row.first}, not 1: "
                "the first milestone must start right after the baseline"
            )
        elif row.first > expected_first:
            kind = "gap"
            message = (
                f"milestone {row.number} starts at snapshot {row.first}, but milestone "
                f"{previous.number} ends at {previous.last}: snapshots "
                f"{expected_first}..{row.first - 1} belong to no milestone"
            )
        else:
            kind = "overlap"
            message = (
                f"milestone {row.number} starts at snapshot {row.first}, but milestone "
                f"{previous.number} already covers up to {previous.last}: they overlap"
            )
        problems.append(
            _problem(kind, row, message, expected=str(expected_first), actual=str(row.first))
        )
    if latest is None or row.last > latest:
        problems.append(
            _problem(
                "past-history",
                row,
                f"milestone {row.number} ends at snapshot {row.last}, past the end of the "
                f"history ({'no snapshots' if latest is None else latest})",
                expected=None if latest is None else str(latest),
                actual=str(row.last),
            )
        )
    return problems


def _check_chain(
    store: StoreReader, row: MilestoneRow, previous: MilestoneRow | None
) -> list[Problem]:
    snapshot = store.snapshots.get(row.last)
    expected = milestone_chain_hash(
        previous.chain_hash if previous else GENESIS,
        row,
        snapshot.chain_hash if snapshot else None,
    )
    if row.chain_hash == expected:
        return []
    return [
        _problem(
            "chain-mismatch",
            row,
            f"milestone {row.number} does not match its chain hash: it, the chain "
            f"before it, or the history up to snapshot {row.last} was changed after it "
            "was created",
            expected=expected,
            actual=row.chain_hash,
        )
    ]
