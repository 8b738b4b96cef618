"""Snapshot references: numbers, ``latest`` and ``latest~N``, parsed and in the library."""

from __future__ import annotations

import pytest

from snapline import SnapshotNotFoundError, SnapshotRefError, Workspace
from snapline.snapshots.read.refs import offset, resolve


@pytest.mark.parametrize(
    ("ref", "expected"),
    [(0, 0), (3, 3), ("2", 2), ("latest", 5), (" latest ", 5), ("latest~0", 5), ("latest~5", 0)],
)
def test_resolve_names_a_snapshot(ref: int | str, expected: int) -> None:
    assert resolve(ref, 5) == expected


@pytest.mark.parametrize("ref", ["head", "latest~", "latest~-1", "latest-1", "~1", "-1", "", True])
def test_a_malformed_ref_is_a_usage_error(ref: int | str) -> None:
    with pytest.raises(SnapshotRefError) as caught:
        resolve(ref, 5)
    assert caught.value.exit_code == 2
    assert "latest~N" in str(caught.value)


@pytest.mark.parametrize("ref", [-1, 6, 2**70, "latest~6", str(2**70), f"latest~{2**70}"])
def test_a_ref_outside_the_history_is_not_found(ref: int | str) -> None:
    with pytest.raises(SnapshotNotFoundError):
        resolve(ref, 5)


def test_offset_checks_syntax_only() -> None:
    assert offset("latest~7", 5) == -2


@pytest.fixture
def five(ws: Workspace) -> Workspace:
    """Five snapshots, each writing ``n.txt`` with ``n``."""
    for n in range(1, 6):
        ws.write_file("n.txt", f"{n}\n")
    return ws


def test_library_takes_refs_wherever_it_takes_a_number(five: Workspace) -> None:
    ws = five
    assert ws.snapshot("latest~2").number == 3
    assert ws.resolve("latest") == 5
    assert ws.content_at("n.txt", "latest~1") == b"4\n"
    assert "-3\n+5\n" in ws.diff("latest~2")
    assert [f.path for f in ws.modified_files("latest~1", "latest")] == ["n.txt"]

    reverted = ws.revert("latest")
    assert reverted.reverted == 5
    assert (ws.root / "n.txt").read_text() == "4\n"

    rolled = ws.rollback("latest~3", dry_run=True)
    assert rolled.target == 3

    milestone = ws.milestones.create("first three", to="latest~3")
    assert (milestone.first, milestone.last) == (1, 3)


def test_library_refuses_bad_and_huge_refs(five: Workspace) -> None:
    with pytest.raises(SnapshotRefError):
        five.snapshot("tip")
    with pytest.raises(SnapshotNotFoundError):
        five.snapshot(2**70)
    with pytest.raises(SnapshotNotFoundError):
        five.rollback(-1)
    with pytest.raises(SnapshotNotFoundError):
        five.content_at("n.txt", "latest~9")
