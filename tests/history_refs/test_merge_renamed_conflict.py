"""A conflict inside a file the other side moved, resolved by hand: unmerged, then joined.

Found by the git machine (tests/history_refs/test_git_machine.py, ``SNAPLINE_MACHINE=8x20``,
``--hypothesis-seed=6``; issue 37, points 4 and 5). ``main`` records a line of ``d/a.txt``,
an edit of ``b.txt`` and a move of ``d/a.txt`` to ``d/e/f.txt``; an agent's linked work
tree ``b1``, forked from the baseline, records the same line of ``d/a.txt`` otherwise.
``b1`` merges ``main``: git's merge follows the rename and conflicts inside ``d/e/f.txt``,
which a person resolves. Git names that conflict once, at ``d/e/f.txt``; snapline's merge
named it at the ancestor's path too, so the right merge (``b1``'s line with ``main``'s
move) tied with main's move snapshot alone, which won: ``verify`` said ``modified b.txt``,
``deleted d/a.txt``, ``untracked d/e/f.txt``, and ``snapline merge`` "nothing to merge".

Git is the oracle: its merge's conflicted paths, and the committed resolution.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.history_refs.gitrepo import ENV, GIT, Repo, new_repo

_SIX = "".join(f"line {i}\n" for i in range(6))


def _set(repo: Repo, path: str, line: int, word: str) -> None:
    lines = (repo.path / path).read_text().splitlines()
    lines[line] = word
    (repo.path / path).write_text("\n".join(lines) + "\n")
    repo.ok("record", "-m", f"{path}:{line}={word}")


def _verify(repo: Repo) -> tuple[int, list[tuple[str, str]]]:
    done = repo.snap("verify", "--json")
    problems = json.loads(done.stdout)["problems"]
    return done.returncode, sorted((p["kind"], p["path"]) for p in problems)


@pytest.mark.parametrize("squash", [False, True], ids=["merge", "squash"])
def test_a_resolved_conflict_in_a_moved_file_is_unmerged_then_joined(
    tmp_path: Path, squash: bool
) -> None:
    main = new_repo(tmp_path / "main", {"b.txt": _SIX, "d/a.txt": _SIX})
    main.ok("init")
    main.git("worktree", "add", "-q", "-b", "b1", str(tmp_path / "b1"))
    b1 = Repo(tmp_path / "b1")
    _set(main, "d/a.txt", 4, "red")
    _set(main, "b.txt", 1, "blue")
    (main.path / "d/e").mkdir()
    (main.path / "d/a.txt").rename(main.path / "d/e/f.txt")
    main.ok("record", "-m", "move d/a.txt d/e/f.txt")
    main.git("add", "-A")
    main.git("commit", "-qm", "work")
    _set(b1, "d/a.txt", 4, "green")
    b1.git("commit", "-qam", "work")

    merge = ["merge", "-q", *(["--squash"] if squash else ["--no-edit"]), "main"]
    failed = subprocess.run(
        [*GIT, *merge], cwd=b1.path, capture_output=True, text=True, env=ENV, check=False
    )
    assert failed.returncode != 0
    # Git's own account: one conflict, at the moved path.
    assert b1.git("diff", "--name-only", "--diff-filter=U").split() == ["d/e/f.txt"]
    (b1.path / "d/e/f.txt").write_text(_SIX.replace("line 4", "red and green"))
    b1.git("add", "-A")
    b1.git("commit", "-q", "--no-edit", "-m", "merge main")

    assert _verify(b1) == (
        1,
        [("unmerged", "b.txt"), ("unmerged", "d/a.txt"), ("untracked", "d/e/f.txt")],
    )
    joined = json.loads(b1.ok("merge", "--json"))
    assert joined["merges"]
    assert _verify(b1) == (0, [])
    assert b1.git("status", "--porcelain") == ""
