"""``HEAD``'s commit read from git's files, held to ``git rev-parse HEAD``.

:mod:`snapline.store.refs.headmark` reads it on every snapshot a work tree publishes,
without the git library: a branch's loose file, ``packed-refs`` (after ``git
pack-refs``), a detached ``HEAD``, a branch not born yet, a linked work tree's own
``HEAD``, and ``None`` where only the library could tell (a symbolic branch).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from snapline.store.refs.git import open_repository
from snapline.store.refs.headmark import NO_COMMIT, head_commit
from tests.history_refs.gitrepo import ENV, GIT


def _git(path: Path, *args: str) -> str:
    done = subprocess.run(
        [*GIT, *args], cwd=path, capture_output=True, text=True, env=ENV, check=True
    )
    return done.stdout.strip()


def _git_head(path: Path) -> str:
    done = subprocess.run(
        [*GIT, "rev-parse", "-q", "--verify", "HEAD"],
        cwd=path,
        capture_output=True,
        text=True,
        env=ENV,
        check=False,
    )
    return done.stdout.strip() or NO_COMMIT


def _commit(path: Path, name: str) -> None:
    (path / name).write_text(name + "\n")
    _git(path, "add", name)
    _git(path, "commit", "-q", "-m", name)


def test_head_is_what_git_says_in_each_case(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    _git(root, "init", "-q", "-b", "main")
    assert head_commit(open_repository(root)) == _git_head(root) == NO_COMMIT  # not born
    _commit(root, "a.txt")
    assert head_commit(open_repository(root)) == _git_head(root)  # a loose branch
    _commit(root, "b.txt")
    _git(root, "pack-refs", "--all")
    assert not (root / ".git/refs/heads/main").exists()
    assert head_commit(open_repository(root)) == _git_head(root)  # packed
    _git(root, "switch", "-q", "--detach", "HEAD~1")
    assert head_commit(open_repository(root)) == _git_head(root)  # detached
    _git(root, "switch", "-q", "main")
    _git(root, "worktree", "add", "-q", "-b", "b1", str(tmp_path / "w1"))
    _commit(tmp_path / "w1", "c.txt")
    linked = open_repository(tmp_path / "w1")
    assert head_commit(linked) == _git_head(tmp_path / "w1") != _git_head(root)
    assert head_commit(open_repository(root)) == _git_head(root)
    _git(root, "switch", "-q", "--orphan", "fresh")
    assert head_commit(open_repository(root)) == _git_head(root) == NO_COMMIT


def test_a_symbolic_branch_is_left_to_the_library(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    _git(root, "init", "-q", "-b", "main")
    _commit(root, "a.txt")
    _git(root, "symbolic-ref", "refs/heads/alias", "refs/heads/main")
    _git(root, "symbolic-ref", "HEAD", "refs/heads/alias")
    assert head_commit(open_repository(root)) is None
