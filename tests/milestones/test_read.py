"""Reading milestones: list, get, the open range, and the milestone of a snapshot."""

from __future__ import annotations

import pytest

from snapline import Workspace
from snapline.milestones import Milestone, MilestoneNotFoundError, OpenRange


def _edits(ws: Workspace, count: int) -> None:
    for _ in range(count):
        ws.write_file(f"f{ws.latest + 1}.txt", "x\n")


def test_list_and_get(ws: Workspace) -> None:
    assert ws.milestones.list() == []
    _edits(ws, 2)
    one = ws.milestones.create("one")
    _edits(ws, 1)
    two = ws.milestones.create("two")
    assert ws.milestones.list() == [one, two]
    assert ws.milestones.get(2) == two


@pytest.mark.parametrize("number", [0, 3, -1])
def test_get_of_a_missing_milestone_names_the_range(ws: Workspace, number: int) -> None:
    _edits(ws, 2)
    ws.milestones.create("one", to=1)
    ws.milestones.create("two")
    with pytest.raises(MilestoneNotFoundError) as caught:
        ws.milestones.get(number)
    assert (caught.value.number, caught.value.count) == (number, 2)
    assert "milestones run from 1 to 2" in str(caught.value)


def test_get_with_no_milestones_says_how_to_create_one(ws: Workspace) -> None:
    with pytest.raises(MilestoneNotFoundError) as caught:
        ws.milestones.get(1)
    assert str(caught.value) == (
        "there is no milestone 1: there are no milestones yet; "
        "create one with `snapline milestone create`"
    )


def test_current_is_the_open_range(ws: Workspace) -> None:
    assert ws.milestones.current() == OpenRange(milestone=1, start=1, end=None, count=0)
    _edits(ws, 3)
    assert ws.milestones.current() == OpenRange(milestone=1, start=1, end=3, count=3)
    ws.milestones.create("one", to=2)
    assert ws.milestones.current() == OpenRange(milestone=2, start=3, end=3, count=1)
    ws.milestones.create("two")
    assert ws.milestones.current() == OpenRange(milestone=3, start=4, end=None, count=0)


def test_for_snapshot(ws: Workspace) -> None:
    _edits(ws, 5)
    one = ws.milestones.create("one", to=2)
    two = ws.milestones.create("two", to=4)
    assert ws.milestones.for_snapshot(0) is None  # the baseline belongs to no milestone
    assert ws.milestones.for_snapshot(1) == one
    assert ws.milestones.for_snapshot(2) == one
    assert ws.milestones.for_snapshot(3) == two
    assert ws.milestones.for_snapshot(4) == two
    assert ws.milestones.for_snapshot(5) is None  # still open
    assert ws.milestones.for_snapshot(99) is None


def test_json_shapes_are_stable(ws: Workspace) -> None:
    _edits(ws, 1)
    milestone = ws.milestones.create("one", "text", tags=["a"])
    data = milestone.model_dump(mode="json")
    assert list(data) == [
        "number",
        "title",
        "description",
        "tags",
        "time",
        "first",
        "last",
        "version",
        "chain_hash",
    ]
    assert data["tags"] == ["a"] and data["version"] == 1
    assert Milestone.model_validate(data) == milestone
    assert list(ws.milestones.current().model_dump(mode="json")) == [
        "milestone",
        "start",
        "end",
        "count",
        "version",
    ]
