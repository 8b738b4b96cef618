"""Milestones closed on two branches, merged in git, joined by ``snapline merge``.

Two ways a team gets there, with real git and the real command:

- **beside**: both branches close milestone 1 on the snapshots they share (neither
  recorded since the fork), so after ``git merge`` the ledger holds two files numbered 1
  whose last snapshot is on the main line;
- **lines**: each branch records its own snapshot and closes milestone 1 on it, so the
  ledger holds two lines, each with its milestone 1.

Neither is damage: reading commands keep working (exit 0, ``verify`` exit 1 naming
``snapline merge``), and ``snapline merge`` keeps both milestones — the main line's as
it was, the other's file as it was, numbered anew on the main line by one milestone that
closes the merge — so the main line's numbers run 1, 2, 3… and every clone agrees.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.ledger.conftest import Repo, clone, copy, new_repo, output


@dataclass(frozen=True)
class Closed:
    """A repository after ``git merge`` of two branches that each closed milestone 1."""

    repo: Repo
    merge: subprocess.CompletedProcess[str]


def _closed_on_two_branches(path: Path, *, record_on_branches: bool) -> Closed:
    repo = new_repo(path)
    repo.write("app.py", "v0\n")
    repo.ok("init", "--in-tree")
    repo.write("app.py", "v1\n")
    repo.ok("record", "-m", "shared work")
    repo.commit("base")
    repo.git("checkout", "-q", "-b", "feature")
    if record_on_branches:
        repo.write("feature.txt", "feature\n")
        repo.ok("record", "-m", "feature work")
    repo.ok("milestone", "create", "--title", "feature done", "--tag", "feat")
    repo.commit("feature milestone")
    repo.git("checkout", "-q", "main")
    if record_on_branches:
        repo.write("main.txt", "main\n")
        repo.ok("record", "-m", "main work")
    repo.ok("milestone", "create", "--title", "main done")
    repo.commit("main milestone")
    merge = repo.git("merge", "--no-edit", "feature", check=False)
    return Closed(repo, merge)


@pytest.fixture(scope="module")
def beside(tmp_path_factory: pytest.TempPathFactory) -> Closed:
    """Do not change it: copy ``beside.repo`` first."""
    return _closed_on_two_branches(
        tmp_path_factory.mktemp("beside") / "repo", record_on_branches=False
    )


@pytest.fixture(scope="module")
def lines(tmp_path_factory: pytest.TempPathFactory) -> Closed:
    """Do not change it: copy ``lines.repo`` first."""
    return _closed_on_two_branches(
        tmp_path_factory.mktemp("lines") / "repo", record_on_branches=True
    )


def _titles(repo: Repo) -> list[tuple[int, int, int, str]]:
    listed: list[dict[str, Any]] = repo.json("milestone", "list")
    return [(m["number"], m["first"], m["last"], m["title"]) for m in listed]


@pytest.mark.parametrize("case", ["beside", "lines"])
def test_git_merges_both_milestone_files_cleanly(case: str, request: pytest.FixtureRequest) -> None:
    closed: Closed = request.getfixturevalue(case)
    assert closed.merge.returncode == 0, output(closed.merge)
    assert closed.repo.status() == []
    numbers = [path.name[:8] for path in closed.repo.milestone_files()]
    assert numbers == ["00000001", "00000001"]


@pytest.mark.parametrize("case", ["beside", "lines"])
@pytest.mark.parametrize(
    "command",
    [("status",), ("log",), ("milestone", "list"), ("milestone", "show", "1"), ("show", "1")],
    ids=["status", "log", "milestone-list", "milestone-show", "show"],
)
def test_reading_commands_keep_working_before_snapline_merge(
    case: str, command: tuple[str, ...], request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    closed: Closed = request.getfixturevalue(case)
    repo = copy(closed.repo, tmp_path / "copy")
    result = repo.snap(*command)
    assert result.returncode in (0, 1), output(result)
    assert "corrupt" not in output(result)
    assert "Traceback" not in output(result)


@pytest.mark.parametrize("case", ["beside", "lines"])
def test_verify_names_the_state_and_the_command_that_settles_it(
    case: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    closed: Closed = request.getfixturevalue(case)
    for repo in (copy(closed.repo, tmp_path / "copy"), clone(closed.repo, tmp_path / "clone")):
        result = repo.snap("verify")
        text = output(result)
        assert result.returncode == 1, text
        assert "snapline merge" in text
        if case == "beside":
            assert re.search(
                r"milestone 1 'feature done' \(snapshots 1\.\.1, \S+\.mile\) was closed on "
                r"another branch beside the main line's 'main done'; run `snapline merge` to "
                r"join and number it\n",
                text,
            ), text
        assert "backup" not in text and "corrupt" not in text


def test_milestone_list_shows_the_other_branch_milestone_before_the_merge(
    beside: Closed, tmp_path: Path
) -> None:
    repo = copy(beside.repo, tmp_path / "copy")
    listed = repo.ok("milestone", "list").stdout
    assert "main done" in listed and "feature done" in listed
    assert "not joined yet: run `snapline merge`" in listed


@pytest.mark.parametrize("case", ["beside", "lines"])
def test_snapline_merge_keeps_both_and_numbers_them_without_collision(
    case: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    closed: Closed = request.getfixturevalue(case)
    repo = copy(closed.repo, tmp_path / "copy")
    before = {path.name: path.read_bytes() for path in repo.milestone_files()}
    merged = repo.json("merge", "-m", "join the feature branch")
    assert (merged["tool"], merged["description"]) == ("merge", "join the feature branch")
    # Both files as they were, plus one: the milestone that closes the merge.
    after = {path.name: path.read_bytes() for path in repo.milestone_files()}
    assert {name: after[name] for name in before} == before
    assert len(after) == 3
    titles = _titles(repo)
    assert [t[0] for t in titles] == [1, 2]
    assert titles[0][3] == "main done"
    assert titles[1][1:] == (titles[0][2] + 1, merged["number"], "feature done")
    assert repo.json("milestone", "show", "2")["tags"] == ["feat"]
    listed = repo.ok("milestone", "list").stdout
    assert f"joined by snapshot {merged['number']}" in listed
    verify = repo.snap("verify", "--full")
    assert verify.returncode == 0, output(verify)
    # Continuity holds on after the join: the next milestone starts past the merge.
    repo.write("app.py", "v2\n")
    repo.ok("record", "-m", "after the merge")
    created = repo.json("milestone", "create", "--title", "next")
    assert (created["number"], created["first"]) == (3, merged["number"] + 1)
    assert repo.snap("merge").returncode == 0  # nothing left to join: no new snapshot
    assert repo.json("log")[0]["number"] == merged["number"] + 1
    repo.commit("joined")

    fresh = clone(repo, tmp_path / "clone")
    verify = fresh.snap("verify")
    assert verify.returncode == 0, output(verify)
    assert _titles(fresh) == _titles(repo)


def test_a_fresh_clone_of_the_merge_takes_the_branch_merged_intos_milestone(
    beside: Closed, tmp_path: Path
) -> None:
    # The feature's milestone 1 is the older one: without git's answer (HEAD's first
    # parent) a fresh clone would number it 1, and the main line's would be the other.
    fresh = clone(beside.repo, tmp_path / "fresh")
    assert [t[3] for t in _titles(fresh)] == ["main done"]
    assert "'feature done'" in fresh.snap("verify").stdout


def test_two_milestones_closed_on_a_branch_are_joined_as_one(tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "repo")
    repo.write("app.py", "v0\n")
    repo.ok("init", "--in-tree")
    repo.commit("base")
    repo.git("checkout", "-q", "-b", "feature")
    for step, tags in (("one", ["feat"]), ("two", ["feat", "x"])):
        repo.write(f"{step}.txt", f"{step}\n")
        repo.ok("record", "-m", f"feature {step}")
        tagged = [arg for tag in tags for arg in ("--tag", tag)]
        repo.ok("milestone", "create", "--title", f"feature {step}", *tagged)
    repo.commit("feature milestones")
    repo.git("checkout", "-q", "main")
    repo.write("main.txt", "main\n")
    repo.ok("record", "-m", "main work")
    repo.ok("milestone", "create", "--title", "main done")
    repo.commit("main milestone")
    assert repo.git("merge", "--no-edit", "feature", check=False).returncode == 0
    repo.json("merge")
    joined = repo.json("milestone", "show", "2")
    # One milestone for both: their titles in order, each tag once.
    assert (joined["title"], joined["tags"]) == ("feature one + feature two", ["feat", "x"])
    first, second = joined["description"].split("\n")
    assert first.startswith("joins milestone 1 'feature one' (snapshots 1..1, ")
    assert second.startswith("joins milestone 2 'feature two' (snapshots 2..2, ")
    assert second.endswith("), closed on another branch")
