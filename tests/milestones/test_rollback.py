"""Rolling back to just before a milestone: byte-exact, recorded, refused over outside work."""

from __future__ import annotations

import os

import pytest

from snapline import Workspace
from snapline.milestones import MilestoneNotFoundError
from snapline.snapshots.restore.rollback import RollbackConflictError
from tests.conftest import tree


def _state(ws: Workspace) -> dict[str, bytes]:
    return tree(ws.root)


def _modes(ws: Workspace) -> dict[str, bool]:
    return {path: os.access(ws.root / path, os.X_OK) for path in _state(ws)}


@pytest.fixture
def history(ws: Workspace) -> tuple[Workspace, list[dict[str, bytes]]]:
    """Three milestones over awkward content; returns the tree after each milestone."""
    states = [_state(ws)]
    ws.write_file("crlf.txt", b"one\r\ntwo\r\n")
    ws.write_file("bin.dat", bytes(range(256)) * 4)
    ws.write_file("src/app.py", "print('hello')\nprint('again')")  # no final newline
    ws.milestones.create("one")
    states.append(_state(ws))
    ws.write_file("empty.txt", b"")
    ws.write_file("latin1.txt", "café\n".encode("latin-1"))
    ws.write_file("run.sh", "#!/bin/sh\necho hi\n", executable=True)
    ws.move_file("crlf.txt", "docs/crlf.txt")
    ws.write_file("bin.dat", bytes(reversed(range(256))) * 4)
    ws.delete_file("README.md")
    ws.milestones.create("two")
    states.append(_state(ws))
    ws.write_file("run.sh", "#!/bin/sh\necho bye\n", executable=False)
    ws.write_file("deep/er/file.txt", "x\n")
    ws.milestones.create("three")
    states.append(_state(ws))
    return ws, states


def test_a_milestone_rollback_is_recorded_under_the_session_given(
    history: tuple[Workspace, list[dict[str, bytes]]],
) -> None:
    ws, _ = history
    result = ws.milestones.rollback(2, session="agent-7")
    assert result.snapshot is not None
    assert ws.snapshot(result.snapshot.number).session == "agent-7"


@pytest.mark.parametrize("number", [1, 2, 3])
def test_rollback_restores_the_tree_before_the_milestone_byte_for_byte(
    history: tuple[Workspace, list[dict[str, bytes]]], number: int
) -> None:
    ws, states = history
    milestone = ws.milestones.get(number)
    latest = ws.latest
    result = ws.milestones.rollback(number)
    assert _state(ws) == states[number - 1]
    assert result.target == milestone.first - 1
    assert result.snapshot is not None and result.snapshot.number == latest + 1
    assert result.snapshot.tool == "rollback"
    assert result.snapshot.metadata["milestone"] == number
    recorded = ws.snapshot(latest + 1)
    assert recorded.description == f"roll back milestone {number}: {milestone.title}"
    assert recorded.session is None
    assert ws.check_sync().ok
    assert ws.validate().ok
    # The rollback is history, in the open range: the next milestone can close it.
    assert ws.milestones.current().start == latest + 1
    assert ws.milestones.create("undo").last == latest + 1


def test_the_executable_bit_is_restored(history: tuple[Workspace, list[dict[str, bytes]]]) -> None:
    ws, _states = history
    ws.milestones.rollback(3)
    assert _modes(ws)["run.sh"] is True


def test_a_rollback_can_itself_be_rolled_back(
    history: tuple[Workspace, list[dict[str, bytes]]],
) -> None:
    ws, states = history
    ws.milestones.rollback(1)
    ws.milestones.create("undone")  # milestone 4: the rollback
    ws.milestones.rollback(4)
    assert _state(ws) == states[3]


def test_dry_run_writes_nothing(history: tuple[Workspace, list[dict[str, bytes]]]) -> None:
    ws, states = history
    latest = ws.latest
    result = ws.milestones.rollback(2, dry_run=True)
    assert result.dry_run and result.snapshot is None
    assert "README.md" in result.recreated
    assert "run.sh" in result.deleted
    assert _state(ws) == states[3]
    assert ws.latest == latest


def test_outside_changes_are_refused_unless_forced(
    history: tuple[Workspace, list[dict[str, bytes]]],
) -> None:
    ws, states = history
    (ws.root / "empty.txt").write_text("someone typed here\n")
    latest = ws.latest
    with pytest.raises(RollbackConflictError) as caught:
        ws.milestones.rollback(2)
    assert caught.value.paths == ["empty.txt"]
    assert ws.latest == latest
    assert (ws.root / "empty.txt").read_text() == "someone typed here\n"
    result = ws.milestones.rollback(2, force=True)
    assert result.external is not None  # the outside edit is kept in the history
    assert _state(ws) == states[1]
    assert ws.validate().ok


def test_rollback_of_a_missing_milestone(ws: Workspace) -> None:
    with pytest.raises(MilestoneNotFoundError):
        ws.milestones.rollback(1)
