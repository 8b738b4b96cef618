"""Validating milestones: hand-edited records, gaps, overlaps and ranges past the history."""

from __future__ import annotations

import contextlib
import json
import sqlite3
from pathlib import Path

import pytest

from snapline import Workspace
from snapline.milestones import MilestoneRecordError, validate_milestones
from snapline.milestones.seal import GENESIS, milestone_chain_hash
from snapline.store import MilestoneRow, SqliteStore


def _db(ws: Workspace) -> Path:
    return ws.root / ".snapline" / "index.db"


def _sql(ws: Workspace, statement: str, params: tuple[object, ...] = ()) -> None:
    with contextlib.closing(sqlite3.connect(_db(ws))) as db, db:
        db.execute(statement, params)


def _kinds(ws: Workspace) -> set[str]:
    return {p.kind for p in ws.validate().problems}


def _two_milestones(ws: Workspace) -> None:
    for i in range(4):
        ws.write_file(f"f{i}.txt", f"{i}\n")
    ws.milestones.create("one", to=2)
    ws.milestones.create("two")


def _forge(ws: Workspace, ranges: list[tuple[int, int]]) -> None:
    """Insert milestones with the given ranges and *correct* chain hashes, bypassing create.

    So a range problem is caught by the range checks, not only by the chain.
    """
    with contextlib.closing(SqliteStore.open(_db(ws))) as store, store.write():
        previous = GENESIS
        for number, (first, last) in enumerate(ranges, start=1):
            row = MilestoneRow(
                number, f"m{number}", "", "[]", "2024-01-01T00:00:00+00:00", first, last, 1, ""
            )
            snapshot = store.snapshots.get(last)
            chain = milestone_chain_hash(previous, row, snapshot.chain_hash if snapshot else None)
            store.milestones.insert(row._replace(chain_hash=chain))
            previous = chain


def test_sound_milestones_validate(ws: Workspace) -> None:
    _two_milestones(ws)
    assert ws.validate().ok
    with contextlib.closing(SqliteStore.open(_db(ws))) as store:
        assert validate_milestones(store) == []


@pytest.mark.parametrize(
    ("column", "value"),
    [
        ("title", "a nicer title"),
        ("description", "rewritten"),
        ("tags", '["forged"]'),
        ("time", "2000-01-01T00:00:00+00:00"),
    ],
)
def test_a_hand_edited_milestone_is_caught(ws: Workspace, column: str, value: str) -> None:
    _two_milestones(ws)
    _sql(ws, f"UPDATE milestones SET {column} = ? WHERE number = 1", (value,))
    report = ws.validate()
    assert not report.ok and report.corrupt
    # The edited index row fails its chain. (An in-tree ledger's file disagreeing too is
    # the ledger reader's check.)
    (problem,) = report.problems
    assert (problem.kind, problem.number) == ("milestone-chain-mismatch", 1)
    assert "milestone 1" in problem.message


def test_a_hand_edited_range_is_caught(ws: Workspace) -> None:
    _two_milestones(ws)  # 1..2, 3..4
    _sql(ws, "UPDATE milestones SET last = 3 WHERE number = 1")
    kinds = _kinds(ws)
    assert "milestone-chain-mismatch" in kinds
    assert "milestone-overlap" in kinds


def test_a_hand_edited_start_leaving_a_gap_is_caught(ws: Workspace) -> None:
    _two_milestones(ws)
    _sql(ws, "UPDATE milestones SET first = 4 WHERE number = 2")
    assert {"milestone-gap", "milestone-chain-mismatch"} <= _kinds(ws)


def test_a_milestone_pins_the_snapshots_it_covers(ws: Workspace) -> None:
    _two_milestones(ws)
    _sql(
        ws,
        "UPDATE snapshots SET chain_hash = ? WHERE number = 4",
        ("sha256:" + "1" * 64,),
    )
    problems = [p for p in ws.validate().problems if p.kind == "milestone-chain-mismatch"]
    assert [p.number for p in problems] == [2]


def test_rewriting_one_milestones_hash_breaks_the_next(ws: Workspace) -> None:
    _two_milestones(ws)
    _sql(ws, "UPDATE milestones SET chain_hash = ? WHERE number = 1", ("sha256:" + "2" * 64,))
    problems = ws.validate().problems
    assert [(p.kind, p.number) for p in problems] == [
        ("milestone-chain-mismatch", 1),
        ("milestone-chain-mismatch", 2),
    ]
    assert {p.severity for p in problems} == {"corrupt"}  # damage, not a range to fix


@pytest.mark.parametrize(
    ("ranges", "kind", "number", "expected", "actual", "message"),
    [
        (
            [(2, 3)],
            "milestone-start",
            1,
            "1",
            "2",
            "milestone 1 starts at snapshot 2, not 1: the first milestone must start right "
            "after the baseline",
        ),
        (
            [(1, 1), (3, 4)],
            "milestone-gap",
            2,
            "2",
            "3",
            "milestone 2 starts at snapshot 3, but milestone 1 ends at 1: snapshots 2..2 "
            "belong to no milestone",
        ),
        (
            [(1, 2), (2, 4)],
            "milestone-overlap",
            2,
            "3",
            "2",
            "milestone 2 starts at snapshot 2, but milestone 1 already covers up to 2: they "
            "overlap",
        ),
        (
            [(1, 2), (3, 9)],
            "milestone-past-history",
            2,
            "4",
            "9",
            "milestone 2 ends at snapshot 9, past the end of the history (4)",
        ),
        (
            [(1, 2), (3, 2)],
            "milestone-empty",
            2,
            None,
            None,
            "milestone 2 runs from snapshot 3 to 2: its range is empty",
        ),
    ],
)
def test_range_problems_are_caught_even_with_a_consistent_chain(
    ws: Workspace,
    ranges: list[tuple[int, int]],
    kind: str,
    number: int,
    expected: str | None,
    actual: str | None,
    message: str,
) -> None:
    for i in range(4):
        ws.write_file(f"f{i}.txt", f"{i}\n")
    _forge(ws, ranges)
    problems = ws.validate().problems
    assert [(p.kind, p.number, p.expected, p.actual, p.message) for p in problems] == [
        (kind, number, expected, actual, message)
    ]
    # A range that does not hold together is a validation failure (exit 1), not damage.
    assert problems[0].severity == "error"


def test_a_milestone_in_a_history_with_no_snapshots_ends_past_it(ws: Workspace) -> None:
    # A crafted index whose snapshots were all deleted, its milestone sealed to match:
    # the message says the history has none, and no last snapshot is expected.
    _sql(ws, "DELETE FROM snapshots")
    _forge(ws, [(1, 1)])
    with contextlib.closing(SqliteStore.open(_db(ws))) as store:
        problems = validate_milestones(store)
    assert [(p.kind, p.expected, p.actual, p.message) for p in problems] == [
        (
            "milestone-past-history",
            None,
            "1",
            "milestone 1 ends at snapshot 1, past the end of the history (no snapshots)",
        )
    ]


def test_a_missing_milestone_number_is_caught(ws: Workspace) -> None:
    _two_milestones(ws)
    _sql(ws, "UPDATE milestones SET number = 3 WHERE number = 2")
    sequence, chain = ws.validate().problems
    assert (
        sequence.kind,
        sequence.number,
        sequence.severity,
        sequence.expected,
        sequence.actual,
        sequence.message,
    ) == (
        "milestone-sequence",
        3,
        "error",
        "2",
        "3",
        "milestone 3 follows 1: milestones are numbered 1, 2, 3… and 2 is missing",
    )
    assert (chain.kind, chain.number, chain.severity, chain.message) == (
        "milestone-chain-mismatch",
        3,
        "corrupt",
        "milestone 3 does not match its chain hash: it, the chain before it, or the history "
        "up to snapshot 4 was changed after it was created",
    )
    assert chain.expected is not None and chain.expected.startswith("sha256:")
    with contextlib.closing(sqlite3.connect(_db(ws))) as db:
        (stored,) = db.execute("SELECT chain_hash FROM milestones WHERE number = 3").fetchone()
    assert chain.actual == stored != chain.expected


def test_a_first_milestone_numbered_otherwise_follows_nothing(ws: Workspace) -> None:
    for i in range(2):
        ws.write_file(f"f{i}.txt", f"{i}\n")
    ws.milestones.create("one")
    _sql(ws, "UPDATE milestones SET number = 2 WHERE number = 1")
    sequence = ws.validate().problems[0]
    assert (sequence.kind, sequence.expected, sequence.actual, sequence.message) == (
        "milestone-sequence",
        "1",
        "2",
        "milestone 2 follows nothing: milestones are numbered 1, 2, 3… and 1 is missing",
    )


def test_unreadable_or_newer_records_are_refused_with_a_message(ws: Workspace) -> None:
    _two_milestones(ws)
    _sql(ws, "UPDATE milestones SET version = 99 WHERE number = 1")
    _sql(ws, "UPDATE milestones SET tags = ? WHERE number = 2", (json.dumps({"a": 1}),))
    found = [(p.kind, p.number, p.severity, p.message) for p in ws.validate().problems]
    assert (
        "milestone-unknown-version",
        1,
        "corrupt",
        "milestone 1 has format version 99; upgrade snapline",
    ) in found
    assert ("milestone-bad-record", 2, "corrupt", "milestone 2 has unreadable tags") in found
    with pytest.raises(MilestoneRecordError) as caught:
        ws.milestones.get(1)
    assert caught.value.exit_code == 3
    assert (caught.value.number, caught.value.detail) == (
        1,
        "it has format version 99, newer than the 1 this snapline reads",
    )
    assert str(caught.value) == (
        "milestone 1 cannot be read: it has format version 99, newer than the 1 "
        "this snapline reads; upgrade snapline"
    )
    with pytest.raises(MilestoneRecordError) as caught:
        ws.milestones.get(2)
    assert caught.value.number == 2
    assert str(caught.value) == (
        "milestone 2 cannot be read: its tags are not a JSON list of strings; run `snapline verify`"
    )


def test_a_value_of_the_wrong_type_is_reported_and_checked_no_further(ws: Workspace) -> None:
    _two_milestones(ws)
    _sql(ws, "UPDATE milestones SET first = 'one' WHERE number = 1")
    (problem,) = ws.validate().problems
    assert (problem.kind, problem.number, problem.severity) == (
        "milestone-bad-record",
        1,
        "corrupt",
    )
    assert (
        problem.message
        == "milestone 1 holds a value no snapline writes: its first is the text 'one', not int"
    )
    # Read through the API, the same record is refused, never returned as a milestone.
    with pytest.raises(MilestoneRecordError) as caught:
        ws.milestones.get(1)
    assert (caught.value.number, caught.value.exit_code) == (1, 3)
    assert caught.value.detail == "its first is the text 'one', not int"
    assert str(caught.value).endswith("; run `snapline verify`")
