"""Forgetting a secret on a history on git's refs: only snapline's refs are rewritten.

Real git and a bare remote: a secret is recorded, more after it, a milestone; the
history is pushed; ``snapline forget`` rewrites the lines (tombstones where the content
was, the snapshot ids and chain kept), ``snapline forget --publish`` force-pushes them
under a lease, and a fresh clone of the remote holds the secret in no object reachable
from ``refs/snapline/`` (every object read with ``git cat-file``, every delta of every
record unpacked). The user's commits keep their ids. A forget killed before or after
its refs moved leaves the old history or the new one.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from snapline import Workspace
from snapline.content import tombstone_digest, unpack
from snapline.store.ledger.format import LedgerFormatError, parse_snapshot
from tests.history_refs.gitrepo import ENV, GIT, Repo, new_repo
from tests.reliability.helpers import KILLED, cli

SECRET = b"AKIA-SECRET-TOKEN-7f3e9c"


def _objects(repo: Repo) -> list[str]:
    refs = repo.git("for-each-ref", "--format=%(refname)", "refs/snapline/").split()
    assert refs, "no refs under refs/snapline/"
    listed = repo.git("rev-list", "--objects", *refs).splitlines()
    return [line.split()[0] for line in listed]


def _holds_secret(repo: Repo) -> bool:
    """Whether any object reachable from refs/snapline/ holds the secret, raw or packed."""
    for oid in _objects(repo):
        data = subprocess.run(
            [*GIT, "cat-file", "-p", oid], cwd=repo.path, env=ENV, capture_output=True, check=True
        ).stdout
        if SECRET in data:
            return True
        try:
            record = parse_snapshot(data)
        except (LedgerFormatError, UnicodeDecodeError, ValueError):
            continue
        for change in record.changes:
            for packed in (change.forward, change.reverse):
                if packed is None or tombstone_digest(packed) is not None:
                    continue
                if SECRET in unpack(packed, limit=1 << 20):
                    return True
    return False


def _ids(repo: Repo) -> list[str]:
    """The snapshot ids of the main line, newest first (plain git)."""
    ref = repo.git("for-each-ref", "--format=%(refname)", "refs/snapline/lines/").split()
    log = repo.git("log", "--format=%(trailers:key=Snapline-Id,valueonly)", *ref)
    return [line for line in log.splitlines() if line]


def _history(tmp_path: Path) -> tuple[Repo, Path]:
    """A work tree with a secret recorded (snapshot 1), two snapshots after, a milestone."""
    repo = new_repo(tmp_path / "work", {"a.txt": "one\n"})
    remote = tmp_path / "remote.git"
    subprocess.run([*GIT, "init", "-q", "--bare", str(remote)], env=ENV, check=True)
    repo.git("remote", "add", "origin", str(remote))
    repo.ok("init")
    (repo.path / "config.env").write_bytes(b"TOKEN=" + SECRET + b"\nMODE=dev\n")
    repo.ok("record", "config.env", "-m", "add the config")
    (repo.path / "config.env").write_bytes(b"TOKEN=\nMODE=dev\n")
    repo.ok("record", "config.env", "-m", "drop the token")
    (repo.path / "a.txt").write_text("two\n")
    repo.ok("record", "a.txt", "-m", "edit a")
    repo.ok("milestone", "create", "-m", "phase one")
    repo.git("push", "-q", "origin", "main", "refs/snapline/*:refs/snapline/*")
    assert _holds_secret(repo)
    return repo, remote


def test_forget_rewrites_only_snapline_refs_and_publish_cleans_a_fresh_clone(
    tmp_path: Path,
) -> None:
    repo, remote = _history(tmp_path)
    ids, user = _ids(repo), repo.git("rev-parse", "main")
    milestones = repo.git(
        "rev-parse",
        *repo.git("for-each-ref", "--format=%(refname)", "refs/snapline/milestones/").split(),
    )
    out = repo.ok("forget", "config.env", "--snapshot", "1", "-m", "leaked token")
    assert "refs/snapline/forgets/" in out and "--publish" in out
    assert not _holds_secret(repo)
    # Snapshot ids kept, the user's commit untouched, the milestones as they were.
    assert _ids(repo) == ids and repo.git("rev-parse", "main") == user
    assert (
        repo.git(
            "rev-parse",
            *repo.git("for-each-ref", "--format=%(refname)", "refs/snapline/milestones/").split(),
        )
        == milestones
    )
    # The history reads and verifies; the version after the secret still rebuilds.
    assert "forgotten" in repo.ok("show", "1")
    with Workspace.open(repo.path) as ws:
        assert ws.content_at("config.env", 2) == b"TOKEN=\nMODE=dev\n"
    assert "4 snapshots" in repo.ok("log") or "phase one" in repo.ok("milestone", "list")
    repo.ok("verify")
    repo.ok("verify", "--full")
    # A plain push does not take the rewrite; the one command does, under a lease.
    pushed = repo.ok("forget", "--publish", "origin")
    assert "refs/snapline/lines/" in pushed and "refs/snapline/forgets/" in pushed
    assert repo.git("rev-parse", "main") == user

    clone = Repo(tmp_path / "clone")
    subprocess.run([*GIT, "clone", "-q", str(remote), str(clone.path)], env=ENV, check=True)
    clone.git("fetch", "-q", "origin", "refs/snapline/*:refs/snapline/*")
    assert not _holds_secret(clone)
    assert clone.git("rev-parse", "main") == user
    assert _ids(clone) == ids
    assert "forgotten" in clone.ok("show", "1")
    assert "edit a" in clone.ok("log")
    # Publishing again has nothing to push.
    assert "published 0 refs" in repo.ok("forget", "--publish", "origin")


def test_publish_refuses_a_remote_line_that_moved_elsewhere(tmp_path: Path) -> None:
    repo, remote = _history(tmp_path)
    repo.ok("forget", "config.env", "-m", "leaked token")
    # The remote's line now holds a commit that is not of the line before the rewrite.
    line = repo.git("for-each-ref", "--format=%(refname)", "refs/snapline/lines/").split()[0]
    other = repo.git("commit-tree", "-m", "elsewhere", repo.git("rev-parse", "main^{tree}").strip())
    repo.git("push", "-q", "--force", "origin", f"{other.strip()}:{line}")
    refused = repo.snap("forget", "--publish", "origin")
    assert refused.returncode == 1 and refused.stderr.count("\n") == 1, refused.stderr
    assert "nothing was pushed" in refused.stderr and "Traceback" not in refused.stderr
    theirs = subprocess.run(
        [*GIT, "--git-dir", str(remote), "rev-parse", line],
        env=ENV,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert theirs == other.strip()


def test_a_forget_killed_before_or_after_its_refs_moved_leaves_one_history(
    tmp_path: Path,
) -> None:
    repo, _ = _history(tmp_path)
    ids = _ids(repo)
    # Killed with its new commits written, no ref moved: the old history, whole.
    child = cli(repo.path, "forget", "config.env", "-m", "leaked", crash="forget-planned")
    assert child.returncode == KILLED, (child.returncode, child.stderr)
    assert _holds_secret(repo)
    assert SECRET.decode() in repo.ok("show", "1")
    repo.ok("verify")
    # Killed after the refs moved, before the index took it in: the next command does.
    child = cli(repo.path, "forget", "config.env", "-m", "leaked", crash="forget-refs-moved")
    assert child.returncode == KILLED, (child.returncode, child.stderr)
    assert not _holds_secret(repo)
    shown = repo.ok("show", "1")
    assert SECRET.decode() not in shown and "forgotten" in shown
    repo.ok("verify")
    assert _ids(repo) == ids
    _index_holds_no_secret(repo)
    # Killed with the index rebuilt, not yet vacuumed (its freed pages hold the secret):
    # after the next command neither the refs nor the index's files do.
    # The secret in a delta: a whole version's bytes are git's, never in the index.
    settings = b"".join(b"setting%d=on\n" % n for n in range(40))
    (repo.path / "other.env").write_bytes(settings)
    repo.ok("record", "other.env", "-m", "settings")
    (repo.path / "other.env").write_bytes(b"TOKEN=" + SECRET + b"\n" + settings)
    repo.ok("record", "other.env", "-m", "again")
    child = cli(repo.path, "forget", "other.env", "-m", "again", crash="forget-indexed")
    assert child.returncode == KILLED, (child.returncode, child.stderr)
    assert not _holds_secret(repo)
    assert SECRET in (repo.path / ".git" / "snapline" / "index.db").read_bytes()  # freed pages
    repo.ok("status")
    _index_holds_no_secret(repo)


def _index_holds_no_secret(repo: Repo) -> None:
    state = repo.path / ".git" / "snapline"
    for name in ("index.db", "index.db-wal"):
        assert not (state / name).exists() or SECRET not in (state / name).read_bytes(), name
