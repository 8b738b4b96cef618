"""A line merged back after it joined the other: git's merge base counts the join.

Two agents fork from the baseline in linked work trees (``b1``, ``b2``). ``b2`` git-merges
``b1`` and joins its line (``snapline merge``); then both edit ``d.txt`` on lines one
apart, and ``b1`` git-merges ``b2``. Git merges from its merge base, ``b1``'s first commit
(``b2`` merged it), and the edits merge cleanly. Merged from the fork point instead, the
same edits overlap and conflict: the history must take the base git takes, counting the
snapshot a merge joined as a parent, else it calls git's clean merge ``modified``.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.history_refs.gitrepo import Repo, new_repo

BASELINE = "0\n1\n2\n3\n4\n5\n"


def _record_and_commit(repo: Repo, message: str) -> None:
    repo.ok("record", "-m", message)
    repo.git("add", "-A")
    repo.git("commit", "-q", "-m", message)


def _problems(repo: Repo) -> list[tuple[str, str]]:
    checked = repo.snap("verify", "--json")
    problems = json.loads(checked.stdout)["problems"] if checked.stdout else []
    return [(p["kind"], p["path"]) for p in problems]


def test_a_line_merged_back_after_joining_merges_from_gits_base(tmp_path: Path) -> None:
    main = new_repo(tmp_path / "snap", {"d.txt": BASELINE, "a.txt": "a\n"})
    main.ok("init")
    b1, b2 = Repo(tmp_path / "b1"), Repo(tmp_path / "b2")
    main.git("worktree", "add", "-q", "-b", "b1", str(b1.path))
    main.git("worktree", "add", "-q", "-b", "b2", str(b2.path))

    (b1.path / "d.txt").write_text("0\nx\n2\n3\n4\n5\n")
    _record_and_commit(b1, "b1")
    (b2.path / "a.txt").write_text("a2\n")
    _record_and_commit(b2, "b2")
    b2.git("merge", "-q", "--no-edit", "b1")
    b2.ok("merge")
    assert b2.snap("verify").returncode == 0

    (b2.path / "d.txt").write_text("0\nx\nR\n3\n4\n5\n")
    _record_and_commit(b2, "b2 again")
    (b1.path / "d.txt").write_text("R\nx\n2\n3\n4\n5\n")
    _record_and_commit(b1, "b1 again")
    b1.git("merge", "-q", "--no-edit", "b2")
    # Git's clean merge from its merge base, b1's first commit.
    assert (b1.path / "d.txt").read_text() == "R\nx\nR\n3\n4\n5\n"

    problems = _problems(b1)
    assert problems, "verify must name the other line's work before it is joined"
    assert {kind for kind, _ in problems} == {"unmerged"}, problems
    b1.ok("merge")
    assert b1.snap("verify").returncode == 0
    assert (b1.path / "d.txt").read_text() == "R\nx\nR\n3\n4\n5\n"
    assert json.loads(b1.ok("status", "--json"))["in_sync"] is True
