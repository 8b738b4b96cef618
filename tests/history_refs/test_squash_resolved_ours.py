"""A squash merge whose conflicts are resolved, one by hand and one as this side had it.

Found by the git machine (tests/history_refs/test_git_machine.py at 10 programs of 20
steps, ``--hypothesis-seed=4``; its 19 steps shrunk by hand to these): the main work
tree and an agent's branch ``b1`` edit the same line of two files, each records and
commits; the main work tree squash-merges ``b1``, git stops on both files, and the
person writes one of them anew and keeps the main side of the other. Every change of
``b1`` was in conflict, and the merged tree is the main line's latest state but for the
file resolved by hand. ``verify`` named it ``modified`` (right: a person's resolution),
but ``snapline merge`` said "nothing to merge: the history has one line" and ``verify``
stayed red: the nearest merge named the conflict kept as the main side too, so it
counted two paths against the single state's one, and the nearest single state won
(nothing git merged). A conflict whose file is one side's recorded file is no person's
edit: the nearest merge, whose every other difference is a conflict resolved by hand,
explains the files as well as the state does, and ``b1``'s line is joined.

In the machine the branch had reached main before through another agent's branch
``b2``, which had recorded on after it: of the two merges that name as many paths, the
one whose differences are all conflicts (``b1``'s, which git merged) is the nearest,
not one that leaves a clean merge's file edited (``b2``'s, which git did not merge).

Git is the oracle: its squash merge's conflicts are the paths resolved.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.history_refs.gitrepo import ENV, GIT, Repo, new_repo

SIX = "".join(f"line {i}\n" for i in range(6))


def _edit(repo: Repo, path: str, line: int, word: str) -> None:
    lines = (repo.path / path).read_text().splitlines()
    lines[line] = word
    (repo.path / path).write_text("\n".join(lines) + "\n")
    repo.ok("record", path, "-m", f"{path}:{line}={word}")


def _verify(repo: Repo) -> tuple[int, list[tuple[str, str]]]:
    done = repo.snap("verify", "--json")
    problems = json.loads(done.stdout)["problems"]
    return done.returncode, [(p["kind"], p["path"]) for p in problems]


def _tip(repo: Repo) -> str:
    return str(json.loads(repo.ok("log", "--json"))[0]["id"])


def _squash_stopped(repo: Repo, branch: str) -> None:
    """``git merge --squash BRANCH``, which stops on a conflict."""
    stopped = subprocess.run(
        [*GIT, "merge", "-q", "--squash", branch],
        cwd=repo.path,
        capture_output=True,
        text=True,
        env=ENV,
        check=False,
    )
    assert stopped.returncode == 1, stopped.stdout + stopped.stderr


def _squash_resolved(main: Repo, branch: str) -> None:
    """``git merge --squash BRANCH``, stopped on a.txt and b.txt: a.txt by hand, b.txt ours."""
    ours = (main.path / "b.txt").read_bytes()
    _squash_stopped(main, branch)
    conflicted = main.git("diff", "--name-only", "--diff-filter=U").split()
    assert conflicted == ["a.txt", "b.txt"]
    (main.path / "a.txt").write_text("resolved\n")
    (main.path / "b.txt").write_bytes(ours)
    main.git("add", "-A")
    main.git("commit", "-q", "-m", f"squash {branch}")


def _fork(tmp_path: Path) -> tuple[Repo, Repo]:
    main = new_repo(tmp_path / "main", {"a.txt": SIX, "b.txt": SIX})
    main.ok("init")
    main.git("worktree", "add", "-q", "-b", "b1", str(tmp_path / "b1"))
    return main, Repo(tmp_path / "b1")


def _settles(main: Repo, joined: str) -> None:
    # a.txt is the person's resolution: drift, which the merge records.
    assert _verify(main) == (1, [("modified", "a.txt")])
    merged = json.loads(main.ok("merge", "--json"))
    assert merged["merges"] == [joined]
    assert _verify(main) == (0, [])
    assert (main.path / "a.txt").read_text() == "resolved\n"
    numbers = [s["number"] for s in json.loads(main.ok("log", "--json"))]
    assert numbers == list(range(len(numbers) - 1, -1, -1))
    assert main.git("status", "--porcelain") == ""


def _conflict_squash_settle(main: Repo, b1: Repo) -> None:
    """Both edit line 2 of a.txt and b.txt; main squash-merges b1 (resolved); it settles."""
    for path in ("a.txt", "b.txt"):
        _edit(main, path, 2, "green")
        _edit(b1, path, 2, "red")
    main.git("commit", "-qam", "main's work")
    b1.git("commit", "-qam", "b1's work")
    _squash_resolved(main, "b1")
    _settles(main, _tip(b1))


def test_a_squash_whose_every_change_conflicted_joins_the_line(tmp_path: Path) -> None:
    main, b1 = _fork(tmp_path)
    _conflict_squash_settle(main, b1)


def test_the_line_git_merged_is_joined_not_one_that_reached_it(tmp_path: Path) -> None:
    main, b1 = _fork(tmp_path)
    b1.git("worktree", "add", "-q", "-b", "b2", str(tmp_path / "b2"))
    b2 = Repo(tmp_path / "b2")
    # b2's work reaches main (b1's line joined on the way); b2 then records on.
    _edit(b2, "a.txt", 5, "blue")
    b2.git("commit", "-qam", "b2's work")
    main.git("merge", "-q", "--no-edit", "b2")
    main.ok("merge")
    _edit(b2, "b.txt", 2, "blue")
    b2.git("commit", "-qam", "b2's later work")
    _conflict_squash_settle(main, b1)


def test_a_work_tree_that_never_recorded_is_told_to_merge_not_resync(tmp_path: Path) -> None:
    # The machine's second find at 10 x 20, seed 4: a linked work tree that never
    # recorded (held as a checkout, docs/ci.md) squash-merges a line with a conflict
    # resolved by hand. No snapshot explains the resolution: `snapline merge` records
    # it and joins the line; `snapline resync` would file the line's work as a person's.
    main, b1 = _fork(tmp_path)
    _edit(main, "a.txt", 2, "green")
    main.git("commit", "-qam", "main's work")
    main.git("worktree", "add", "-q", "-b", "b2", str(tmp_path / "b2"), "main")
    b2 = Repo(tmp_path / "b2")
    _edit(b1, "a.txt", 2, "red")
    b1.git("commit", "-qam", "b1's work")
    _squash_stopped(b2, "b1")
    (b2.path / "a.txt").write_text("resolved\n")
    b2.git("add", "-A")
    b2.git("commit", "-q", "-m", "squash b1")
    done = b2.snap("verify", "--json")
    problems = json.loads(done.stdout)["problems"]
    assert done.returncode == 1 and [(p["kind"], p["path"]) for p in problems] == [
        ("unexplained", "a.txt")
    ]
    assert "snapline merge" in problems[0]["message"]
    assert "resync" not in problems[0]["message"]
    merged = json.loads(b2.ok("merge", "--json"))
    assert merged["merges"] == [_tip(b1)]
    assert _verify(b2) == (0, [])
    assert (b2.path / "a.txt").read_text() == "resolved\n"
