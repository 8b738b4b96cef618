"""Merges where one side moved a file onto a path the other side also holds: as git merges them.

Found by the git machine (tests/history_refs/test_git_machine.py, ``SNAPLINE_MACHINE=8x20``,
``--hypothesis-seed=6``; issue 37, points 4 and 5). Shrunk by hand:

1. ``main`` and an agent's linked work tree ``b1`` both move ``f.txt`` to ``g.txt``; ``b1``
   then writes a new ``f.txt`` (the old one with a line changed) and deletes ``b.txt``,
   which ``main`` edits. ``main`` merges ``b1``: git follows ``main``'s move, puts ``b1``'s
   new ``f.txt`` at ``g.txt`` and names one conflict, ``b.txt``, resolved by hand. libgit2's
   merge of the same states named ``f.txt`` and ``g.txt`` in conflict too, and kept the
   old ``g.txt``: no merge of the two lines was nearer than ``main``'s own state, and
   ``verify`` said ``modified g.txt`` for ``b1``'s recorded work (in the machine's longer
   program, a merge of ``b1``'s first snapshot alone was as near, and ``snapline merge``
   joined ``b1``'s line only that far).
2. ``b1`` moves ``a.txt`` onto ``b.txt`` and merges ``main``, which edited ``a.txt`` and
   holds its resolved ``b.txt``: git names one conflict, ``b.txt``, resolved by hand;
   libgit2 named ``a.txt`` too. In the machine, from the base step 1 left, no merge of the
   two lines was nearer than ``main``'s tip alone: ``verify`` said ``modified`` where
   ``main``'s recorded work was, and ``snapline merge`` "nothing to merge".

The merges that explain the files are git's own where libgit2 finds a conflict
(``store/refs/gitmerge.py``). Git is the oracle: its merges' conflicted paths and trees,
and the committed resolutions.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.history_refs.gitrepo import ENV, GIT, Repo, new_repo


def _text(name: str, changed: dict[int, str] | None = None) -> str:
    lines = [f"{name} line {i}" for i in range(6)]
    for at, word in (changed or {}).items():
        lines[at] = word
    return "".join(line + "\n" for line in lines)


def _record(repo: Repo, what: str) -> None:
    repo.ok("record", "-m", what)


def _verify(repo: Repo) -> tuple[int, list[tuple[str, str]]]:
    done = repo.snap("verify", "--json")
    problems = json.loads(done.stdout)["problems"]
    return done.returncode, sorted((p["kind"], p["path"]) for p in problems)


def _merge_resolved(repo: Repo, branch: str, conflicted: list[str]) -> None:
    """``git merge BRANCH``, in conflict on ``conflicted`` alone; each resolved by hand."""
    failed = subprocess.run(
        [*GIT, "merge", "-q", "--no-edit", branch],
        cwd=repo.path,
        capture_output=True,
        text=True,
        env=ENV,
        check=False,
    )
    assert failed.returncode != 0, failed.stdout
    assert repo.git("diff", "--name-only", "--diff-filter=U").split() == conflicted
    for name in conflicted:
        (repo.path / name).write_text("resolved\n")
    repo.git("add", "-A")
    repo.git("commit", "-q", "--no-edit", "-m", f"merge {branch}")


def _joined(repo: Repo) -> None:
    """``snapline merge`` after git's merge: verify names drift, the merge settles it."""
    code, problems = _verify(repo)
    assert code == 1 and {kind for kind, _ in problems} <= {"unmerged", "modified"}, problems
    assert "unmerged" in {kind for kind, _ in problems}, problems
    assert json.loads(repo.ok("merge", "--json"))["merges"]
    assert _verify(repo) == (0, [])
    assert repo.git("status", "--porcelain") == ""


def test_a_move_onto_a_path_the_other_side_holds_merges_as_git_merges_it(tmp_path: Path) -> None:
    main = new_repo(tmp_path / "main", {n: _text(n) for n in ("a.txt", "b.txt", "f.txt")})
    main.ok("init")
    main.git("worktree", "add", "-q", "-b", "b1", str(tmp_path / "b1"))
    b1 = Repo(tmp_path / "b1")
    (main.path / "f.txt").rename(main.path / "g.txt")
    _record(main, "move f.txt g.txt")
    (main.path / "b.txt").write_text(_text("b.txt", {1: "red"}))
    _record(main, "edit b.txt")
    main.git("add", "-A")
    main.git("commit", "-qm", "main's work")
    (b1.path / "b.txt").unlink()
    _record(b1, "delete b.txt")
    (b1.path / "f.txt").rename(b1.path / "g.txt")
    _record(b1, "move f.txt g.txt")
    (b1.path / "f.txt").write_text(_text("f.txt", {1: "x"}))
    _record(b1, "write f.txt")
    b1.git("add", "-A")
    b1.git("commit", "-qm", "b1's work")

    _merge_resolved(main, "b1", ["b.txt"])
    assert main.git("ls-files").split() == ["a.txt", "b.txt", "g.txt"]
    _joined(main)
    # b1's whole line is joined: git merged its tip.
    log = json.loads(main.ok("log", "--json"))
    assert log[0]["description"].endswith("(snapshots 1..3)"), log[0]

    (main.path / "a.txt").write_text(_text("a.txt", {2: "green"}))
    _record(main, "edit a.txt")
    main.git("commit", "-qam", "main's edit")
    (b1.path / "a.txt").rename(b1.path / "b.txt")
    _record(b1, "move a.txt b.txt")
    b1.git("add", "-A")
    b1.git("commit", "-qm", "b1's move")

    _merge_resolved(b1, "main", ["b.txt"])
    _joined(b1)
