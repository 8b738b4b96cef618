"""The main line follows git: after a merge, the line of the branch merged into.

``main`` and ``feature`` both record. The clone's index last saw ``feature`` (a
snapline command ran there), then ``git checkout main`` and ``git merge feature`` with
no snapline command in between. ``main``'s snapshots keep their numbers: the main line
is the line of HEAD's first parent, whatever the index last saw.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.ledger.conftest import Repo, clone, new_repo, output


def _heads(path: Path) -> tuple[Repo, tuple[int, str], tuple[int, str]]:
    repo = new_repo(path)
    repo.write("app.py", "v0\n")
    repo.ok("init", "--in-tree")
    repo.commit("base")
    repo.write("main.txt", "main\n")
    repo.ok("record", "-m", "main work")
    repo.commit("main work")
    main_head = max(repo.snapshot_ids())
    repo.git("checkout", "-q", "-b", "feature", "HEAD~1")
    repo.write("feature.txt", "one\n")
    repo.ok("record", "-m", "feature one")
    repo.write("feature.txt", "one\ntwo\n")
    repo.ok("record", "-m", "feature two")
    repo.commit("feature work")
    feature_head = max(repo.snapshot_ids())
    repo.ok("status")  # the index last sees feature's line
    repo.git("checkout", "-q", "main")
    return repo, main_head, feature_head


@pytest.mark.parametrize("commit", [True, False], ids=["merged", "merging"])
def test_the_branch_merged_into_keeps_the_main_line(tmp_path: Path, commit: bool) -> None:
    repo, main_head, feature_head = _heads(tmp_path / "repo")
    args = ["merge", "--no-edit", "feature"] if commit else ["merge", "--no-commit", "feature"]
    repo.git(*args)
    log = repo.json("log")
    main_line = [(entry["number"], entry["id"]) for entry in log if entry["line"] == "main"]
    assert main_line[0] == main_head, log
    verify = repo.snap("verify")
    assert verify.returncode == 1, output(verify)
    assert f"the main line ends at snapshot {main_head[0]} ({main_head[1][:12]}" in verify.stdout
    merged = repo.json("merge")
    assert merged["parent_id"] == main_head[1]
    assert merged["merges"] == [feature_head[1]]
    assert merged["number"] == main_head[0] + 1
    verify = repo.snap("verify")
    assert verify.returncode == 0, output(verify)


def test_a_fresh_clone_of_the_merge_commit_agrees(tmp_path: Path) -> None:
    repo, main_head, _ = _heads(tmp_path / "repo")
    repo.git("merge", "--no-edit", "feature")
    # Without git's answer a fresh clone would take the longest line: feature's.
    fresh = clone(repo, tmp_path / "fresh")
    verify = fresh.snap("verify")
    assert f"the main line ends at snapshot {main_head[0]} ({main_head[1][:12]}" in verify.stdout
