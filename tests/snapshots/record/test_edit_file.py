"""``Workspace.edit_file``: exact old -> new text, the contract of agents' edit tools."""

from __future__ import annotations

import pytest

from snapline import EditMatchError, NotTrackedError, StateMismatchError, Workspace


def test_edit_replaces_the_one_occurrence_exactly(ws: Workspace) -> None:
    ws.write_file("a.txt", b"x = 1\r\ny = 2\r\n")

    snapshot = ws.edit_file("a.txt", "y = 2", "y = 3", session="s")

    assert snapshot is not None
    assert snapshot.tool == "edit"
    assert (ws.root / "a.txt").read_bytes() == b"x = 1\r\ny = 3\r\n"


@pytest.mark.parametrize(("old", "count"), [("z", 0), ("=", 2), ("", 0)])
def test_edit_refuses_missing_or_repeated_text(ws: Workspace, old: str, count: int) -> None:
    ws.write_file("a.txt", "x = 1\ny = 2\n")

    with pytest.raises(EditMatchError) as caught:
        ws.edit_file("a.txt", old, "new")

    assert caught.value.count == count
    assert (ws.root / "a.txt").read_text() == "x = 1\ny = 2\n"
    assert ws.latest == 1


def test_edit_refuses_a_drifted_or_untracked_file(ws: Workspace) -> None:
    (ws.root / "README.md").write_text("# changed by hand\n")
    with pytest.raises(StateMismatchError):
        ws.edit_file("README.md", "changed", "edited")
    with pytest.raises(NotTrackedError):
        ws.edit_file("missing.txt", "a", "b")
    assert ws.latest == 0
