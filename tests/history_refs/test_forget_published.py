"""A secret in the user's own commit, rewritten away: the history refs stop holding it.

A line's baseline has the user's published commit as its parent (so a push leaves the
files the remote holds out, bench row R6). When the user then removes a secret from
their branch (the commit amended, force-pushed), that parent would keep the old commit,
and the secret in it, reachable from ``refs/snapline/``: a fresh clone fetching the
history would get it back. ``snapline forget PATH`` drops a baseline's parent that no
branch, tag or remote-tracking ref reaches any more, and ``snapline forget --publish``
publishes the rewrite: a fresh clone then holds the secret in no object at all.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.history_refs.gitrepo import ENV, GIT, Repo, new_repo
from tests.history_refs.test_forget_refs import SECRET

_CONFIG = b"TOKEN=" + SECRET + b"\nMODE=dev\n"


def _every_object(repo: Repo) -> bytes:
    """Every object the repository holds, packed or loose, reachable or not, as git reads it.

    The clones are made with ``--no-local``: a local clone copies every object file of
    the remote, unreachable ones too, where a clone over the network gets what refs reach.
    """
    return subprocess.run(
        [*GIT, "cat-file", "--batch-all-objects", "--batch"],
        cwd=repo.path,
        env=ENV,
        capture_output=True,
        check=True,
    ).stdout


def _reachable_hold_secret(repo: Repo) -> bool:
    """Whether an object ``git rev-list --objects --all`` lists holds the secret."""
    listed = repo.git("rev-list", "--objects", "--all").splitlines()
    for oid in (line.split()[0] for line in listed):
        data = subprocess.run(
            [*GIT, "cat-file", "-p", oid], cwd=repo.path, env=ENV, capture_output=True, check=True
        ).stdout
        if SECRET in data:
            return True
    return False


def _clone(tmp_path: Path, remote: Path, name: str) -> Repo:
    clone = Repo(tmp_path / name)
    subprocess.run(
        [*GIT, "clone", "-q", "--no-local", str(remote), str(clone.path)], env=ENV, check=True
    )
    clone.git("fetch", "-q", "origin", "refs/snapline/*:refs/snapline/*")
    return clone


def test_a_secret_rewritten_out_of_the_users_branch_leaves_the_history_refs_too(
    tmp_path: Path,
) -> None:
    repo = new_repo(tmp_path / "work", {"a.txt": "one\n"})
    (repo.path / "config.env").write_bytes(_CONFIG)
    (repo.path / "app.py").write_text("print('app')\n")
    repo.git("add", "config.env", "app.py")
    repo.git("commit", "-q", "-m", "add the app and its config")
    remote = tmp_path / "remote.git"
    subprocess.run([*GIT, "init", "-q", "--bare", str(remote)], env=ENV, check=True)
    repo.git("remote", "add", "origin", str(remote))
    repo.git("push", "-q", "origin", "main")
    repo.ok("init")
    (repo.path / "a.txt").write_text("two\n")
    repo.ok("record", "a.txt", "-m", "edit a")
    repo.ok("push", "origin")
    # The baseline's parent is the published commit: the history holds the secret.
    assert SECRET in _every_object(_clone(tmp_path, remote, "before"))

    # The user drops the secret from their branch and force-pushes it.
    repo.git("rm", "-q", "config.env")
    repo.git("add", "a.txt")
    repo.git("commit", "-q", "--amend", "-m", "add the app")
    repo.git("push", "-q", "--force", "origin", "main")
    repo.ok("record", "config.env", "-m", "the config is gone")
    user = repo.git("rev-parse", "main")

    out = repo.ok("forget", "config.env", "-m", "leaked token")
    assert "--publish" in out
    assert not _reachable_hold_secret(repo)
    repo.ok("forget", "--publish", "origin")
    assert repo.git("rev-parse", "main") == user
    repo.ok("verify")
    assert "edit a" in repo.ok("log")

    clone = _clone(tmp_path, remote, "after")
    assert SECRET not in _every_object(clone)
    assert not _reachable_hold_secret(clone)
    assert "edit a" in clone.ok("log")
    clone.ok("verify")


def test_a_baseline_parent_still_published_is_kept_by_a_forget(tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "work", {"a.txt": "one\n"})
    remote = tmp_path / "remote.git"
    subprocess.run([*GIT, "init", "-q", "--bare", str(remote)], env=ENV, check=True)
    repo.git("remote", "add", "origin", str(remote))
    repo.git("push", "-q", "origin", "main")
    published = repo.git("rev-parse", "main").strip()
    repo.ok("init")
    (repo.path / "config.env").write_bytes(_CONFIG)
    repo.ok("record", "config.env", "-m", "add the config")
    repo.ok("forget", "config.env", "-m", "leaked token")
    line = repo.git("for-each-ref", "--format=%(refname)", "refs/snapline/lines/").split()[0]
    # The baseline still names the user's published commit as its parent (R6's push).
    assert repo.git("rev-parse", f"{line}~1^").strip() == published
