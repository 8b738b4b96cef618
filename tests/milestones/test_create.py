"""Creating milestones: continuous ranges, refused gaps, overlaps and empty ranges."""

from __future__ import annotations

import contextlib
import itertools
import tempfile
import threading
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from snapline import SnaplineError, Workspace
from snapline.milestones import (
    EmptyMilestoneError,
    Milestone,
    MilestoneArgumentError,
    MilestoneContinuityError,
    MilestoneRangeError,
)


def _edits(ws: Workspace, count: int, tag: str = "") -> None:
    for i in range(count):
        ws.write_file(f"notes/{tag}{ws.latest + 1}.txt", f"edit {i} {tag}\n")


def test_first_milestone_starts_at_1_and_closes_everything(ws: Workspace) -> None:
    _edits(ws, 3)
    milestone = ws.milestones.create("first step", "the very first", tags=["setup"])
    assert isinstance(milestone, Milestone)
    assert (milestone.number, milestone.first, milestone.last) == (1, 1, 3)
    assert milestone.title == "first step"
    assert milestone.description == "the very first"
    assert milestone.tags == ("setup",)
    assert milestone.count == 3
    assert milestone.chain_hash.startswith("sha256:") and len(milestone.chain_hash) == 71


def test_next_milestone_starts_where_the_previous_ended(ws: Workspace) -> None:
    _edits(ws, 2)
    first = ws.milestones.create("one")
    _edits(ws, 4)
    second = ws.milestones.create("two", start=3)
    assert (first.first, first.last) == (1, 2)
    assert (second.number, second.first, second.last) == (2, 3, 6)
    assert second.chain_hash != first.chain_hash
    # No description given: none, and no tags (the defaults of Milestones.create).
    assert [(m.description, m.tags) for m in ws.milestones.list()] == [("", ()), ("", ())]


def test_to_closes_only_part_of_the_open_range(ws: Workspace) -> None:
    _edits(ws, 5)
    first = ws.milestones.create("part", to=2)
    assert (first.first, first.last) == (1, 2)
    second = ws.milestones.create("rest", to="latest")
    assert (second.first, second.last) == (3, 5)


def test_a_range_named_by_snapshot_ids_is_theirs(ws: Workspace) -> None:
    # `id:PREFIX` names one snapshot, as it does wherever a snapshot is named.
    _edits(ws, 4)
    one, three = ws.snapshot(1).id, ws.snapshot(3).id
    milestone = ws.milestones.create("part", start=f"id:{one[:8]}", to=f"id:{three[:12]}")
    assert (milestone.first, milestone.last) == (1, 3)
    assert [(m.first, m.last) for m in ws.milestones.list()] == [(1, 3)]


def test_a_range_named_by_prompts_ends_before_them(ws: Workspace) -> None:
    # `before-prompt:N@SESSION`: the latest snapshot when prompt N was given (its stamp's
    # `at`, as the hook writes it on the prompt's first change).
    _edits(ws, 2)
    for n in (1, 2):
        stamp = {"session": "s1", "n": n, "at": ws.latest}
        (ws.root / "src" / "app.py").write_text(f"print({n})\n")
        ws.record(["src/app.py"], metadata={"prompt": stamp})
    first = ws.milestones.create("before", to="before-prompt:1@s1")
    second = ws.milestones.create("prompt one", start="latest~1", to="before-prompt:2@s1")
    assert [(first.first, first.last), (second.first, second.last)] == [(1, 2), (3, 3)]


@pytest.mark.parametrize(
    ("start", "what"), [(3, "gap"), (4, "gap"), (1, "overlap"), (0, "overlap")]
)
def test_a_start_other_than_the_expected_one_is_refused(
    ws: Workspace, start: int, what: str
) -> None:
    _edits(ws, 1)
    ws.milestones.create("one")  # 1..1
    _edits(ws, 3)  # 2..4 open
    with pytest.raises(MilestoneContinuityError) as caught:
        ws.milestones.create("two", start=start)
    error = caught.value
    assert (error.expected, error.actual, error.number) == (2, start, 2)
    assert isinstance(error, SnaplineError)
    assert error.exit_code == 1
    way = "would overlap it" if what == "overlap" else "would leave a gap"
    assert str(error) == (
        "milestone 2 must start at snapshot 2, one past the end of milestone 1, "
        f"not {start}: starting there {way}; pass start=2 or leave start out"
    )
    assert (error.start, error.end, error.latest) == (start, None, 4)
    assert "\n" not in str(error)
    assert len(ws.milestones.list()) == 1


def test_first_milestone_cannot_start_anywhere_but_1(ws: Workspace) -> None:
    _edits(ws, 3)
    with pytest.raises(MilestoneContinuityError) as caught:
        ws.milestones.create("late start", start=2)
    assert (caught.value.expected, caught.value.actual) == (1, 2)
    assert "0 is the baseline" in str(caught.value)


def test_nothing_new_since_the_last_milestone_is_refused(ws: Workspace) -> None:
    with pytest.raises(EmptyMilestoneError) as caught:
        ws.milestones.create("nothing yet")  # only the baseline exists
    assert caught.value.latest == 0
    assert str(caught.value) == (
        "milestone 1 would be empty: no snapshot was recorded since the baseline "
        "(the latest is 0); record changes first"
    )
    _edits(ws, 2)
    ws.milestones.create("one")
    with pytest.raises(EmptyMilestoneError) as caught:
        ws.milestones.create("again")
    assert isinstance(caught.value, MilestoneRangeError)
    assert (caught.value.number, caught.value.start, caught.value.latest) == (2, 3, 2)
    assert str(caught.value) == (
        "milestone 2 would be empty: no snapshot was recorded since milestone 1 "
        "(the latest is 2); record changes first"
    )
    assert [m.number for m in ws.milestones.list()] == [1]


def test_to_past_the_latest_snapshot_is_refused(ws: Workspace) -> None:
    _edits(ws, 2)
    with pytest.raises(MilestoneRangeError) as caught:
        ws.milestones.create("future", to=3)
    assert (caught.value.number, caught.value.start, caught.value.end) == (1, 1, 3)
    assert caught.value.latest == 2
    assert caught.value.problem == "milestone 1 cannot end at snapshot 3: the history ends at 2"
    assert str(caught.value) == f"{caught.value.problem}; pass to=2 or to='latest'"
    assert ws.milestones.list() == []


def test_to_before_start_is_refused(ws: Workspace) -> None:
    _edits(ws, 2)
    ws.milestones.create("one", to=1)
    with pytest.raises(MilestoneRangeError) as caught:
        ws.milestones.create("backwards", to=1)
    assert (caught.value.number, caught.value.start, caught.value.end) == (2, 2, 1)
    assert caught.value.latest == 2
    assert caught.value.problem == "milestone 2 cannot end at snapshot 1, before its start 2"
    assert str(caught.value) == f"{caught.value.problem}; pass a `to` from 2 to 2"


_REFERENCES = "a snapshot number, 'latest', 'latest~N' or 'before-prompt:N@SESSION' or 'id:PREFIX'"


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"title": ""}, "a milestone needs a title, for example 'parser done'"),
        ({"title": "   "}, "a milestone needs a title, for example 'parser done'"),
        (
            {"title": "two\nlines"},
            "a milestone title is one line; put the rest in its description",
        ),
        (
            {"title": "two\rlines"},
            "a milestone title is one line; put the rest in its description",
        ),
        (
            {"title": "ok", "tags": ["fine", ""]},
            "milestone tags are non-empty one-line strings, not ''",
        ),
        (
            {"title": "ok", "tags": ["two\rlines"]},
            "milestone tags are non-empty one-line strings, not 'two\\rlines'",
        ),
        ({"title": "ok", "description": 5}, "a milestone description must be a string"),
        ({"title": "ok", "to": "newest"}, f"to must be {_REFERENCES}, not 'newest'"),
        ({"title": "ok", "to": True}, f"to must be {_REFERENCES}, not True"),
        ({"title": "ok", "start": "one"}, f"start must be {_REFERENCES}, not 'one'"),
    ],
)
def test_unusable_arguments_are_refused(
    ws: Workspace, kwargs: dict[str, object], message: str
) -> None:
    _edits(ws, 1)
    with pytest.raises(MilestoneArgumentError) as caught:
        ws.milestones.create(**kwargs)  # type: ignore[arg-type]
    assert caught.value.exit_code == 2
    assert str(caught.value) == message
    assert ws.milestones.list() == []


def test_a_lone_string_tag_is_one_tag_and_duplicates_collapse(ws: Workspace) -> None:
    _edits(ws, 1)
    assert ws.milestones.create("one", tags="release").tags == ("release",)
    _edits(ws, 1)
    assert ws.milestones.create("two", tags=["a", "b", "a"]).tags == ("a", "b")
    _edits(ws, 1)  # any character but a line break: `X` too, and inner spaces
    assert ws.milestones.create("three", tags=["X-ray", "a b"]).tags == ("X-ray", "a b")


def test_milestones_survive_reopening(ws: Workspace) -> None:
    _edits(ws, 2)
    created = ws.milestones.create("one", "desc", tags=["x"])
    root = ws.root
    ws.close()
    with Workspace.open(root) as again:
        assert again.milestones.get(1) == created
        assert again.milestones.current().start == 3


@given(
    steps=st.lists(
        st.tuples(st.integers(min_value=0, max_value=3), st.integers(min_value=0, max_value=2)),
        min_size=1,
        max_size=8,
    )
)
@example(steps=[(0, 0), (1, 0), (0, 0), (3, 2), (0, 1)])
def test_milestones_stay_continuous_over_many_calls(steps: list[tuple[int, int]]) -> None:
    """Random numbers of snapshots between ``create`` calls, some leaving a tail open."""
    with tempfile.TemporaryDirectory() as directory:
        root = Path(directory)
        (root / "base.txt").write_text("base\n")
        with Workspace.init(root) as ws:
            expected_start = 1
            for count, hold_back in steps:
                _edits(ws, count)
                latest = ws.latest
                if latest < expected_start:
                    with pytest.raises(EmptyMilestoneError):
                        ws.milestones.create("empty")
                    continue
                to = max(expected_start, latest - hold_back)
                milestone = ws.milestones.create(f"step {latest}", to=to)
                assert milestone.first == expected_start
                assert milestone.last == to
                expected_start = to + 1
                assert ws.milestones.current().start == expected_start
            milestones = ws.milestones.list()
            assert [m.number for m in milestones] == list(range(1, len(milestones) + 1))
            covered = [n for m in milestones for n in range(m.first, m.last + 1)]
            assert covered == list(range(1, len(covered) + 1))
            assert ws.validate().ok


def test_concurrent_writers_get_consecutive_continuous_milestones(ws: Workspace) -> None:
    """Two writers recording and closing milestones at once never overlap or skip."""
    root = ws.root
    errors: list[BaseException] = []

    def worker(name: str) -> None:
        try:
            with Workspace.open(root) as mine:
                for i in range(8):
                    mine.write_file(f"{name}/{i}.txt", f"{name} {i}\n")
                    with contextlib.suppress(EmptyMilestoneError):
                        mine.milestones.create(f"{name} {i}")
        except BaseException as error:  # pragma: no cover - reported below
            errors.append(error)

    threads = [threading.Thread(target=worker, args=(name,)) for name in ("a", "b")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    milestones = ws.milestones.list()
    assert [m.number for m in milestones] == list(range(1, len(milestones) + 1))
    assert milestones[0].first == 1
    for previous, current in itertools.pairwise(milestones):
        assert current.first == previous.last + 1
    assert milestones[-1].last == ws.latest == 16
    assert ws.validate().ok
