"""A commit explained, however its pull requests were merged (issue 37, point 4).

Two agents fork from one snapshot, each records on its own line, each line's code is
committed on a branch, and the branches are merged into main by git itself: squash
merges, rebase merges, merge commits. main's files are then explained by the lines,
read from the files on disk (a CI checkout) and from the commit's tree.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from snapline.store.refs.disk import disk_tree, explain_workspace, scoped_tree
from snapline.store.refs.explain import Verdict, explain
from snapline.store.refs.git import open_repository
from snapline.store.refs.layout import line_ref
from snapline.store.refs.reading import DamagedLineError
from tests.store.refs.agents import Agent, commit_files, git_fails, lines, write
from tests.store.refs.lines import git, make_repo

APP = lines(*(f"app line {i}" for i in range(12)))
LIB = lines(*(f"lib line {i}" for i in range(12)))
IGNORED = {".snaplineignore": b"notes.txt\n"}
SCOPED = {"src/app.py": APP, "src/lib.py": LIB, "README.md": b"# project\n", **IGNORED}
NOTES = {"notes.txt": b"a file git tracks and snapline ignores\n"}


def _edit(data: bytes, line: int, text: str) -> bytes:
    rows = data.decode().splitlines()
    rows[line] = text
    return lines(*rows)


class Team:
    """main with a baseline line, and two agents forked from it, their code on branches."""

    def __init__(self, root: Path) -> None:
        self.root = make_repo(root, {**SCOPED, **NOTES})
        self.main = Agent(open_repository(root))
        self.main.snapshot(dict(SCOPED), tool="init")
        self.a = self.main.fork(0)
        self.a.snapshot({"src/app.py": _edit(APP, 1, "agent a was here")})
        self.a.snapshot({"src/a_only.py": b"A = 1\n"})
        self.b = self.main.fork(0)
        self.b.snapshot({"src/lib.py": _edit(LIB, 3, "agent b was here")})
        commit_files(root, "feature-b", {**self.b.files, **NOTES}, "b: part one")
        # The same file as agent a, another hunk: git merges it line by line.
        self.b.snapshot({"src/app.py": _edit(APP, 10, "agent b too")})
        commit_files(root, "feature-b", {**self.b.files, **NOTES}, "b: part two")
        commit_files(root, "feature-a", {**self.a.files, **NOTES}, "a")
        # Agent a goes on recording after its commit: its tip is not what it pushed.
        self.a.snapshot({"scratch.py": b"print('not committed')\n"})
        git(root, "checkout", "-q", "main")

    def explained(self) -> Verdict:
        found, _ = explain_workspace(self.root)
        return found.verdict


def _squash(team: Team) -> None:
    for branch in ("feature-a", "feature-b"):
        git(team.root, "merge", "-q", "--squash", branch)
        git(team.root, "commit", "-q", "-m", f"squashed {branch}")


def _rebase(team: Team) -> None:
    git(team.root, "merge", "-q", "--ff-only", "feature-a")
    git(team.root, "checkout", "-q", "feature-b")
    git(team.root, "rebase", "-q", "main")
    git(team.root, "checkout", "-q", "main")
    git(team.root, "merge", "-q", "--ff-only", "feature-b")


def _merge_commits(team: Team) -> None:
    for branch in ("feature-a", "feature-b"):
        git(team.root, "merge", "-q", "--no-ff", "-m", f"merge {branch}", branch)


MERGES = {"squash": _squash, "rebase": _rebase, "merge-commit": _merge_commits}


@pytest.mark.parametrize("how", sorted(MERGES))
def test_main_after_both_pull_requests_is_a_merge_of_the_two_lines(
    tmp_path: Path, how: str
) -> None:
    team = Team(tmp_path / "repo")
    MERGES[how](team)
    # The merged file is in no state: git merged it line by line.
    app = (team.root / "src/app.py").read_bytes()
    assert b"agent a was here" in app and b"agent b too" in app
    found, scoped = explain_workspace(team.root)
    assert found.verdict is Verdict.MERGED, found
    assert {place.id for place in found.snapshots} == {team.a.rows[2].id, team.b.rows[-1].id}
    assert found.base is not None and found.base.id == team.main.rows[0].id
    # The disk's tree is git's own tree of those files (notes.txt out of scope).
    head = git(team.root, "rev-parse", "HEAD^{tree}").strip()
    assert scoped_tree(team.main.repo, head, team.root).tree == scoped.tree != head


def test_the_commit_of_each_pull_request_is_a_recorded_state(tmp_path: Path) -> None:
    team = Team(tmp_path / "repo")
    repo = team.main.repo
    for branch, agent, at in (("feature-a", team.a, 1), ("feature-b", team.b, -1)):
        tree = git(team.root, "rev-parse", f"{branch}^{{tree}}").strip()
        scoped = scoped_tree(repo, tree, team.root)
        found = explain(repo, scoped.tree, overlay=scoped.overlay)
        assert found.verdict is Verdict.RECORDED
        assert [place.commit for place in found.snapshots] == [agent.commits[at]]
    # main itself, before any merge: the baseline (notes.txt is out of scope).
    assert team.explained() is Verdict.RECORDED


def test_a_third_line_merged_too(tmp_path: Path) -> None:
    team = Team(tmp_path / "repo")
    third = team.main.fork(0)
    third.snapshot({"README.md": b"# project, documented\n"})
    commit_files(team.root, "feature-c", {**third.files, **NOTES}, "c")
    git(team.root, "checkout", "-q", "main")
    _squash(team)
    git(team.root, "merge", "-q", "--squash", "feature-c")
    git(team.root, "commit", "-q", "-m", "squashed feature-c")
    found, _ = explain_workspace(team.root)
    assert found.verdict is Verdict.MERGED, found
    assert {p.id for p in found.snapshots} == {
        team.a.rows[2].id,
        team.b.rows[-1].id,
        third.rows[-1].id,
    }


def test_a_hand_edit_after_the_merges_is_named_alone(tmp_path: Path) -> None:
    team = Team(tmp_path / "repo")
    _squash(team)
    write(team.root, {"src/lib.py": _edit(LIB, 7, "edited by hand")})
    write(team.root, {"notes.txt": b"snapline ignores this file\n"})
    found, scoped = explain_workspace(team.root)
    assert found.verdict is Verdict.UNEXPLAINED
    assert found.paths == ("src/lib.py",)
    # The disk's tree was computed, not written: git has no such object.
    assert git_fails(team.root, "cat-file", "-e", scoped.tree)
    # A deleted file is named too.
    (team.root / "README.md").unlink()
    found, _ = explain_workspace(team.root)
    assert found.paths == ("README.md", "src/lib.py")


def test_a_file_snapline_ignores_differs_freely(tmp_path: Path) -> None:
    team = Team(tmp_path / "repo")
    _merge_commits(team)
    write(team.root, {"notes.txt": b"changed in the merge\n"})
    git(team.root, "add", "notes.txt")
    git(team.root, "commit", "-q", "-m", "notes")
    assert team.explained() is Verdict.MERGED
    head = git(team.root, "rev-parse", "HEAD^{tree}").strip()
    scoped = scoped_tree(team.main.repo, head, team.root)
    assert scoped.tree != head
    assert explain(team.main.repo, scoped.tree, overlay=scoped.overlay).verdict is Verdict.MERGED
    # A file snapline tracks stays in scope when an ignore rule names it later.
    write(team.root, {".snaplineignore": b"notes.txt\nREADME.md\n", "README.md": b"# hand\n"})
    tracked = disk_tree(team.root, {"README.md"})
    assert tracked.tree != disk_tree(team.root).tree
    found, _ = explain_workspace(team.root)
    assert found.verdict is Verdict.UNEXPLAINED
    assert found.paths == (".snaplineignore", "README.md")


@pytest.mark.parametrize("resolution", ["by hand", "ours"])
def test_a_conflict_resolved_names_the_conflicted_path(tmp_path: Path, resolution: str) -> None:
    team = Team(tmp_path / "repo")
    # Agent b edits the line agent a edited: the merge stops on src/app.py.
    other = team.main.fork(0)
    other.snapshot({"src/app.py": _edit(APP, 1, "agent c disagrees")})
    other.snapshot({"README.md": b"# project, by c\n"})
    commit_files(team.root, "feature-c", {**other.files, **NOTES}, "c")
    git(team.root, "checkout", "-q", "main")
    git(team.root, "merge", "-q", "--no-ff", "-m", "a", "feature-a")
    assert git_fails(team.root, "merge", "--no-ff", "-m", "c", "feature-c")
    if resolution == "ours":
        git(team.root, "checkout", "--ours", "src/app.py")
    else:
        write(team.root, {"src/app.py": _edit(APP, 1, "both agents, resolved")})
    git(team.root, "commit", "-q", "-a", "-m", "resolved")
    found, _ = explain_workspace(team.root)
    assert found.verdict is Verdict.UNEXPLAINED
    assert found.paths == ("src/app.py",)
    assert found.conflicts == ("src/app.py",)


def test_a_damaged_line_is_damage_not_an_answer(tmp_path: Path) -> None:
    team = Team(tmp_path / "repo")
    _squash(team)
    # A line's ref set to a commit that is no snapshot (the user's own): exit 3's error.
    head = git(team.root, "rev-parse", "HEAD").strip()
    git(team.root, "update-ref", line_ref(team.b.line or ""), head)
    with pytest.raises(DamagedLineError):
        explain_workspace(team.root)
