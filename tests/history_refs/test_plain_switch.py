"""A plain ``git switch`` in a work tree that records: it follows the new branch's snapshot.

Before, a work tree kept one line across branches: after ``git switch main`` (not
through ``snapline run``) every file the switch changed was drift against that line's
latest snapshot, and ``verify`` exited 1 (``modified``). Now the work tree follows the
line whose snapshot the new ``HEAD``'s files are, as an index built afresh from the refs
would (``store/refs/switching.py``): ``status`` and ``verify`` say what a fresh clone
of that branch says, and the next record starts a line from that snapshot.
"""

from __future__ import annotations

from pathlib import Path

from tests.history_refs.gitrepo import new_repo


def _numbers(log: str) -> list[int]:
    return [int(line.split()[0]) for line in log.splitlines() if line.strip()]


def test_a_plain_git_switch_follows_the_line_of_the_new_head(tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "w", {"a.txt": "a\n", "b.txt": "b\n"})
    repo.ok("init")
    repo.git("switch", "-q", "-c", "side")  # the same commit: nothing moves
    (repo.path / "a.txt").write_text("a2\n")
    repo.ok("record", "a.txt")
    repo.git("commit", "-q", "-am", "side edits a")

    repo.git("switch", "-q", "main")  # a.txt back to the baseline's
    assert repo.snap("verify").returncode == 0
    assert "in sync" in repo.ok("status")
    (repo.path / "b.txt").write_text("b2\n")
    assert "recorded snapshot 1" in repo.ok("record", "b.txt")  # from the baseline
    repo.git("commit", "-q", "-am", "main edits b")
    assert _numbers(repo.ok("log")) == [1, 0]

    repo.git("switch", "-q", "side")  # side's snapshot 1 (a.txt a2), not main's
    verified = repo.snap("verify")
    assert verified.returncode == 0, verified.stdout
    (repo.path / "a.txt").write_text("a3\n")
    assert "recorded snapshot 2" in repo.ok("record", "a.txt")
    assert _numbers(repo.ok("log")) == [2, 1, 0]
    assert repo.snap("verify").returncode == 0

    # A file never recorded stays drift across the switch, as git carries it.
    repo.git("commit", "-q", "-am", "side edits a again")
    (repo.path / "c.txt").write_text("by hand\n")
    repo.git("switch", "-q", "main")
    drifted = repo.snap("verify")
    assert drifted.returncode == 1 and "untracked      c.txt" in drifted.stdout, drifted.stdout
    assert "a.txt" not in drifted.stdout and "b.txt" not in drifted.stdout
