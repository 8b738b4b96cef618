"""Branches that both recorded, merged in git, joined by ``snapline merge``.

Two branches record from snapshot 3 of ``origin`` (milestone 1 covers 1..2): ``main``
records snapshot 4 (README.md), ``side`` records 4 and 5 (side.txt). ``git merge side``
leaves two lines in the ledger; until ``snapline merge`` joins them, verify says so
and every write is refused.
"""

from __future__ import annotations

import hashlib
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from snapline import Workspace
from tests.ledger.conftest import Repo, clone, copy, output

SIDE_TEXT = "from the side branch\nsecond line\n"


@dataclass(frozen=True)
class Forked:
    """The merged repository before ``snapline merge`` and what was seen on the way."""

    repo: Repo
    main_head: tuple[int, str]
    side_head: tuple[int, str]
    git_merge: subprocess.CompletedProcess[str]
    verify: subprocess.CompletedProcess[str]


@pytest.fixture(scope="module")
def forked(origin: Repo, tmp_path_factory: pytest.TempPathFactory) -> Forked:
    """Do not change it: copy ``forked.repo`` first."""
    repo = clone(origin, tmp_path_factory.mktemp("forked") / "repo")
    repo.git("checkout", "-q", "-b", "side")
    repo.write("side.txt", "from the side branch\n")
    repo.ok("record", "--tool", "agent", "-m", "side one")
    repo.write("side.txt", SIDE_TEXT)
    repo.ok("record", "--tool", "agent", "-m", "side two")
    repo.commit("side work")
    side_head = max(repo.snapshot_ids())

    repo.git("checkout", "-q", "main")
    repo.write("README.md", "# demo\n\nmain work\n")
    repo.ok("record", "-m", "main readme")
    repo.commit("main work")
    main_head = max(repo.snapshot_ids())

    merged = repo.git("merge", "--no-edit", "side", check=False)
    verify = repo.snap("verify")
    return Forked(repo, main_head, side_head, merged, verify)


def test_git_merges_the_ledgers_without_conflict(forked: Forked) -> None:
    repo = forked.repo
    assert forked.git_merge.returncode == 0, output(forked.git_merge)
    assert repo.git("ls-files", "--unmerged").stdout == ""
    assert repo.status() == []
    numbers = [number for number, _ in repo.snapshot_ids()]
    assert numbers == [0, 1, 2, 3, 4, 4, 5]
    assert forked.main_head[0] == 4
    assert forked.side_head[0] == 5


def test_verify_names_both_heads_and_the_command_that_joins_them(forked: Forked) -> None:
    result = forked.verify
    text = output(result)
    assert result.returncode == 1, text
    assert "2 lines from snapshot 3" in text
    for number, id_ in (forked.main_head, forked.side_head):
        assert f"snapshot {number} ({id_[:12]}" in text
    assert "snapline merge" in text
    assert "Traceback" not in text


@pytest.mark.parametrize(
    "command",
    [
        ("record", "-m", "more"),
        ("resync", "-m", "outside"),
        ("milestone", "create", "--title", "second"),
        ("rollback", "--to", "2"),
    ],
    ids=["record", "resync", "milestone", "rollback"],
)
def test_writes_are_refused_while_the_history_has_two_lines(
    forked: Forked, tmp_path: Path, command: tuple[str, ...]
) -> None:
    repo = copy(forked.repo, tmp_path / "copy")
    repo.write("app.py", "changed after the merge\n")
    result = repo.snap(*command)
    assert result.returncode == 1, output(result)
    assert "snapline merge" in result.stderr
    assert len(result.stderr.splitlines()) == 1
    # Nothing was written to the ledger (or anywhere else).
    assert repo.status() == [" M app.py"]


@dataclass(frozen=True)
class Merged:
    """``forked`` after ``snapline merge``, a record and a milestone, and its clone."""

    forked: Forked
    repo: Repo
    merge: Any
    verify_after_merge: subprocess.CompletedProcess[str]
    show: Any
    log: Any
    record: Any
    milestone: Any
    verify_final: subprocess.CompletedProcess[str]
    clone_verify: subprocess.CompletedProcess[str]
    clone_log: Any


@pytest.fixture(scope="module")
def merged(forked: Forked, tmp_path_factory: pytest.TempPathFactory) -> Merged:
    repo = copy(forked.repo, tmp_path_factory.mktemp("merged") / "repo")
    merge = repo.json("merge")
    verify_after_merge = repo.snap("verify")
    show = repo.json("show", str(merge["number"]))
    log = repo.json("log")
    repo.write("app.py", "def answer():\n    return 42\n")
    record = repo.json("record", "-m", "after the merge")
    milestone = repo.json("milestone", "create", "--title", "second", "--to", "latest")
    verify_final = repo.snap("verify")
    repo.commit("joined")
    other = clone(repo, tmp_path_factory.mktemp("merged-clone") / "repo")
    clone_verify = other.snap("verify")
    clone_log = other.json("log")
    return Merged(
        forked, repo, merge, verify_after_merge, show, log, record, milestone,
        verify_final, clone_verify, clone_log,
    )  # fmt: skip


def test_merge_continues_the_main_line_and_joins_the_other(merged: Merged) -> None:
    main_number, main_id = merged.forked.main_head
    side_id = merged.forked.side_head[1]
    assert merged.merge["number"] == main_number + 1
    assert merged.merge["parent_id"] == main_id
    assert merged.merge["merges"] == [side_id]
    assert merged.verify_after_merge.returncode == 0, output(merged.verify_after_merge)
    # Numbers on the main line continue with no gap; the merge is listed with what it joined.
    assert [s["number"] for s in merged.log] == [5, 4, 3, 2, 1, 0]
    assert merged.log[0]["id"] == merged.merge["id"]
    assert merged.log[0]["merges"] == [side_id]
    assert [s["merges"] for s in merged.log[1:]] == [[]] * 5
    # Which line each snapshot came from: the joined one is listed under its merge.
    assert [s["line"] for s in merged.log] == ["main"] * 6
    joined = merged.log[0]["joins"]
    assert joined and joined[0]["id"] == side_id  # newest first, the head
    assert {(s["line"], s["joined_by"]) for s in joined} == {(side_id, 5)}
    assert merged.show["joins"] == merged.log[0]["joins"]
    text = merged.repo.ok("show", "5").stdout
    assert "line:      main" in text and f"joins 1 line ({side_id[:12]})" in text


def test_the_merge_snapshot_holds_the_merged_workspace(merged: Merged) -> None:
    # The main line lacked the side's file: the merge adds it, as it is on disk.
    files = {f["path"]: f for f in merged.show["files"]}
    assert set(files) == {"side.txt"}
    on_disk = (merged.repo.path / "side.txt").read_bytes()
    assert files["side.txt"]["result_hash"] == "sha256:" + hashlib.sha256(on_disk).hexdigest()
    assert on_disk == SIDE_TEXT.encode()
    assert merged.show["merges"] == [merged.forked.side_head[1]]


def test_the_joined_line_stays_in_the_ledger(merged: Merged) -> None:
    ids = merged.repo.snapshot_ids()
    assert merged.forked.side_head in ids
    assert sum(number == 4 for number, _ in ids) == 2
    assert merged.verify_final.returncode == 0, output(merged.verify_final)


def test_recording_and_milestones_go_on_after_the_merge(merged: Merged) -> None:
    assert merged.record["number"] == 6
    assert (merged.milestone["number"], merged.milestone["first"]) == (2, 3)
    assert merged.milestone["last"] == 6
    assert merged.verify_final.returncode == 0, output(merged.verify_final)
    assert "snapshots 0..6 verified" in merged.verify_final.stdout


def test_a_clone_of_the_merged_repository_has_the_same_main_line(merged: Merged) -> None:
    assert merged.clone_verify.returncode == 0, output(merged.clone_verify)
    assert merged.repo.status() == []
    theirs = [(s["number"], s["id"], s["merges"]) for s in merged.clone_log]
    assert theirs[0] == (6, merged.record["id"], [])
    assert theirs[1:] == [(s["number"], s["id"], s["merges"]) for s in merged.log]
    assert theirs[1] == (5, merged.merge["id"], [merged.forked.side_head[1]])
    assert theirs[2][1] == merged.forked.main_head[1]


def test_an_edited_snapshot_of_the_joined_line_is_corruption(
    merged: Merged, tmp_path: Path
) -> None:
    repo = copy(merged.repo, tmp_path / "copy")
    number, id_ = merged.forked.side_head
    path = repo.snapshot_file(number, id_)
    path.write_bytes(path.read_bytes().replace(b'"side two"', b'"side 2"'))
    result = repo.snap("verify")
    assert result.returncode == 3, output(result)
    assert path.name in output(result)


def test_merge_through_the_library(forked: Forked, tmp_path: Path) -> None:
    repo = copy(forked.repo, tmp_path / "copy")
    with Workspace.open(repo.path) as ws:
        snapshot = ws.merge()
        assert snapshot is not None
        assert snapshot.number == forked.main_head[0] + 1
        assert snapshot.merges == (forked.side_head[1],)
        assert [f.path for f in snapshot.files] == ["side.txt"]
        assert ws.merge() is None
    result = repo.snap("verify")
    assert result.returncode == 0, output(result)
    assert "snapshots 0..5 verified" in result.stdout


def test_three_branches_are_joined_by_one_merge(origin: Repo, tmp_path: Path) -> None:
    repo = clone(origin, tmp_path / "repo")
    for branch in ("one", "two"):
        repo.git("checkout", "-q", "-b", branch, "main")
        repo.write(f"{branch}.txt", f"{branch}\n")
        repo.ok("record", "-m", branch)
        repo.commit(branch)
    repo.git("checkout", "-q", "main")
    repo.write("README.md", "# main\n")
    repo.ok("record", "-m", "main")
    repo.commit("main")
    repo.git("merge", "--no-edit", "one", "two")
    assert repo.status() == []

    diverged = repo.snap("verify")
    assert diverged.returncode == 1, output(diverged)
    assert "3 lines from snapshot 3" in diverged.stdout
    heads = sorted(id_ for number, id_ in repo.snapshot_ids() if number == 4)
    assert len(heads) == 3
    for id_ in heads:
        assert id_[:12] in diverged.stdout

    merge = repo.json("merge")
    assert merge["number"] == 5
    main_id = repo.snapshot_file(4, merge["parent_id"]).name[9:-5]
    assert sorted(merge["merges"]) == sorted(set(heads) - {main_id})
    assert sorted(f["path"] for f in merge["files"]) == ["one.txt", "two.txt"]
    result = repo.snap("verify")
    assert result.returncode == 0, output(result)
    assert "snapshots 0..5 verified" in result.stdout


def test_a_fresh_clone_of_the_git_merge_sees_both_lines(forked: Forked, tmp_path: Path) -> None:
    # CI checks out the merge commit: no index; git says which branch was merged into.
    repo = clone(forked.repo, tmp_path / "ci")
    result = repo.snap("verify")
    text = output(result)
    assert result.returncode == 1, text
    assert "2 lines from snapshot 3" in text
    for number, id_ in (forked.main_head, forked.side_head):
        assert f"snapshot {number} ({id_[:12]}" in text
    assert "snapline merge" in text
    assert repo.status() == []

    # The main line is the branch merged into (HEAD's first parent), not the longest.
    merge = repo.json("merge")
    assert merge["number"] == 5
    assert merge["parent_id"] == forked.main_head[1]
    assert merge["merges"] == [forked.side_head[1]]
    result = repo.snap("verify")
    assert result.returncode == 0, output(result)
    assert "snapshots 0..5 verified" in result.stdout


@pytest.mark.parametrize("where", ["working", "fresh-clone"])
def test_a_milestone_of_a_joined_line_is_held_to_its_seal(
    origin: Repo, tmp_path: Path, where: str
) -> None:
    """A milestone recorded on a branch lives only in its file after the merge: an edit
    of that file is still caught, and named."""
    repo = clone(origin, tmp_path / "repo")
    repo.git("checkout", "-q", "-b", "feature", "main")
    repo.write("feature.txt", "feature\n")
    repo.ok("record", "-m", "feature")
    repo.ok("milestone", "create", "-m", "feature done")
    repo.commit("feature")
    repo.git("checkout", "-q", "main")
    repo.write("README.md", "# main\n")
    repo.ok("record", "-m", "main")
    repo.commit("main")
    repo.git("merge", "--no-edit", "feature")
    repo.ok("merge")
    repo.commit("snapline merge")
    assert repo.snap("verify").returncode == 0
    # The branch's own file (the merge numbered it anew in a milestone of its own,
    # whose description names the file it joins).
    side = [
        path
        for path in (repo.ledger / "milestones").iterdir()
        if "feature done" in path.read_text() and "joins milestone" not in path.read_text()
    ]
    assert len(side) == 1
    side[0].write_text(side[0].read_text().replace("feature done", "feature forged"))
    checked = repo
    if where == "fresh-clone":
        repo.commit("forged")
        checked = clone(repo, tmp_path / "fresh")
    result = checked.snap("verify")
    assert result.returncode == 3, output(result)
    assert side[0].name in output(result)
