"""Numbers a user types that no store can hold: usage or lookup errors, never internal ones.

SQLite's INTEGER is 64 bits; a Python int past it raised OverflowError from deep in the
store ("internal error"). Out-of-range numbers are simply not found (issue 14, item 16).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from snapline import Workspace
from tests.cli.conftest import Invoke

HUGE = [str(2**63), str(2**70), "9" * 40]
NEGATIVE = ["-1", str(-(2**70))]
NOT_NUMBERS = ["abc", "1.5", "0x10", ""]


@pytest.fixture
def history(project: Path) -> Path:
    """The project with two snapshots and one milestone over them."""
    with Workspace.open(project) as ws:
        ws.write_file("a.txt", "one\n")
        ws.write_file("a.txt", "two\n")
        ws.milestones.create("phase 1")
    return project


@pytest.mark.parametrize(
    ("command", "noun"),
    [
        (["show"], "snapshot"),
        (["show", "--json"], "snapshot"),
        (["diff", "0"], "snapshot"),
        (["rollback", "--to"], "snapshot"),
        (["revert"], "snapshot"),
        (["milestone", "show"], "milestone"),
        (["milestone", "diff"], "milestone"),
        (["milestone", "rollback"], "milestone"),
        (["milestone", "export"], "milestone"),
    ],
)
def test_a_huge_number_is_not_found(
    history: Path, cli: Invoke, command: list[str], noun: str
) -> None:
    for number in HUGE:
        result = cli(*command, number)
        assert result.exit_code == 1, result.output
        expected = f"snapline: error: there is no {noun} {number}"
        assert result.stderr.startswith(expected), result.stderr


def test_a_huge_log_limit_means_no_limit(history: Path, cli: Invoke) -> None:
    for number in HUGE:
        for args in (["log", "-n", number], ["log", "--limit", number, "--json"]):
            result = cli(*args)
            assert result.exit_code == 0, result.output
        assert len(cli("log", "-n", number).stdout.splitlines()) == 3


@pytest.mark.parametrize(
    "command",
    [["show"], ["log", "-n"], ["milestone", "show"], ["milestone", "rollback"], ["revert"]],
)
def test_negative_or_not_a_number_is_a_usage_error(
    history: Path, cli: Invoke, command: list[str]
) -> None:
    for number in NEGATIVE + NOT_NUMBERS:
        result = cli(*command, "--", number) if command[-1] != "-n" else cli(*command, number)
        assert result.exit_code == 2, result.output
        assert "internal error" not in result.output


def test_the_library_does_not_find_huge_numbers(history: Path) -> None:
    from snapline import MilestoneNotFoundError, SnapshotNotFoundError

    with Workspace.open(history) as ws:
        for number in (2**63, 2**70, -(2**70)):
            with pytest.raises(SnapshotNotFoundError):
                ws.snapshot(number)
            with pytest.raises(MilestoneNotFoundError):
                ws.milestones.get(number)
            assert ws.milestones.for_snapshot(number) is None
        assert len(list(ws.snapshots(limit=2**70))) == 3
