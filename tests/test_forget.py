"""``snapline forget``: a secret recorded by mistake leaves the history, which still verifies.

Driven through the real command and real git (init, push, clone, fetch), as a team
would: record the secret, push the history, forget, publish the rewrite, and look for
the bytes in the local index and in every object reachable from ``refs/snapline/``
(each record's deltas unpacked). An old branch's in-tree ledger is read from the
fixture its code wrote (tests/fixtures/ledger-2).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from snapline import Workspace
from snapline.content import tombstone_digest, unpack
from snapline.snapshots.read.reconstruct import ForgottenVersionError
from snapline.snapshots.record.forget import NothingToForgetError, SharedContentError
from snapline.store.ledger.format import LedgerFormatError, parse_snapshot
from tests.conftest import GIT_IDENTITY
from tests.old_ledgers import LEDGER, ledger_checkout

SECRET = b"sk-live-7f3a9c1e5b"
ENV_1 = b"API_KEY=" + SECRET + b"\nuser=bob\n"
ENV_2 = b"API_KEY=\nuser=bob\nregion=eu\n"
ENV_3 = b"API_KEY=\nuser=alice\nregion=eu\n"


def snapline(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """Run the installed ``snapline`` command as a user would."""
    script = Path(sys.executable).with_name("snapline")
    return subprocess.run(
        [str(script), *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**os.environ, **GIT_IDENTITY},
    )


def git(cwd: Path, *args: str) -> str:
    """Run git; fail the test when it fails."""
    done = subprocess.run(
        ["git", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**os.environ, **GIT_IDENTITY},
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def ok(cwd: Path, *args: str) -> str:
    done = snapline(cwd, *args)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def _object(root: Path, oid: str) -> bytes:
    return subprocess.run(
        ["git", "cat-file", "-p", oid], cwd=root, capture_output=True, check=True
    ).stdout


def holders(root: Path, secret: bytes = SECRET) -> list[str]:
    """Where ``secret`` is kept: the local index's files (``.git/snapline/``), and the
    objects reachable from ``refs/snapline/`` (a record's deltas unpacked).

    The secret's file is under 64 bytes, which snapline stores uncompressed in the
    index; git's objects are read with ``git cat-file``.
    """
    found = [
        path.relative_to(root).as_posix()
        for path in sorted((root / ".git" / "snapline").rglob("*"))
        if path.is_file() and secret in path.read_bytes()
    ]
    refs = git(root, "for-each-ref", "--format=%(refname)", "refs/snapline/").split()
    listed = git(root, "rev-list", "--objects", *refs).splitlines() if refs else []
    for oid in (line.split()[0] for line in listed):
        data = _object(root, oid)
        try:
            changes = parse_snapshot(data).changes
        except (LedgerFormatError, UnicodeDecodeError, ValueError):
            changes = ()
        for change in changes:
            for packed in (change.forward, change.reverse):
                if packed is not None and tombstone_digest(packed) is None:
                    data += unpack(packed, limit=1 << 20)
        if secret in data:
            found.append(f"object {oid}")
    return found


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A git repository whose ``.env`` held a secret in snapshot 1, edited in 2 and 3,
    its branch and history pushed to ``origin`` (a bare repository beside it)."""
    root = tmp_path / "a"
    root.mkdir()
    git(tmp_path, "init", "-q", "--bare", "-b", "main", "origin.git")
    git(root, "init", "-q", "-b", "main")
    git(root, "remote", "add", "origin", str(tmp_path / "origin.git"))
    (root / "app.py").write_text("print('hello')\n")
    git(root, "add", "app.py")
    git(root, "commit", "-q", "-m", "start")
    # Recorded through the library (quicker than a process per snapshot); everything
    # about forgetting goes through the command.
    with Workspace.init(root) as ws:
        for content in (ENV_1, ENV_2, ENV_3):
            (root / ".env").write_bytes(content)
            ws.record(description="env")
    git(root, "add", ".env")  # its last version (no secret) committed with the code
    git(root, "commit", "-q", "-m", "env")
    git(root, "push", "-q", "origin", "main")
    ok(root, "push", "origin")
    found = holders(root)
    assert ".git/snapline/index.db" in found  # the test can see the secret
    assert any(name.startswith("object ") for name in found)
    return root


def _clone(tmp_path: Path, name: str = "clone") -> Path:
    """A fresh clone of ``origin`` with the history fetched, as a teammate starts."""
    clone = tmp_path / name
    git(tmp_path, "clone", "-q", str(tmp_path / "origin.git"), str(clone))
    ok(clone, "fetch", "origin")
    return clone


def test_forgetting_every_version_leaves_no_byte_and_verifies_everywhere(
    repo: Path, tmp_path: Path
) -> None:
    out = ok(repo, "forget", ".env", "-m", "leaked key")
    assert "forgot 3 versions of .env" in out
    assert ".env still holds this content on disk" in out
    assert (repo / ".env").read_bytes() == ENV_3  # the workspace is not touched
    assert holders(repo) == []
    assert snapline(repo, "verify").returncode == 0
    forgets = git(repo, "for-each-ref", "--format=%(refname)", "refs/snapline/forgets/").split()
    assert len(forgets) == 1
    record = git(repo, "cat-file", "blob", f"{forgets[0]}:record")
    assert 'reason "leaked key"\nforgot 1 sha256:' in record

    rebuilt = snapline(repo, "rollback", "--to", "1")
    assert rebuilt.returncode == 1
    assert "the content of .env at snapshot 1 was forgotten (snapline forget, " in rebuilt.stderr
    assert ": leaked key)" in rebuilt.stderr
    assert "Content forgotten (snapline forget): b/.env" in ok(repo, "show", "1")

    ok(repo, "forget", "--publish", "origin")
    clone = _clone(tmp_path)
    assert snapline(clone, "verify").returncode == 0
    assert git(clone, "status", "--porcelain") == ""
    assert "Content forgotten" in ok(clone, "show", "2")
    assert holders(clone) == []


def test_forgetting_one_snapshot_keeps_later_versions_rebuildable(
    repo: Path, tmp_path: Path
) -> None:
    out = ok(repo, "forget", ".env", "--snapshot", "1", "-m", "leaked key")
    assert "forgot 1 version of .env (snapshot 1)" in out
    assert "kept .env after snapshot 2 whole" in out
    assert "still holds" not in out  # the file has moved on
    assert holders(repo) == []
    assert snapline(repo, "verify").returncode == 0
    ok(repo, "gc")  # the whole copy kept for snapshot 2 is not garbage
    ok(repo, "forget", "--publish", "origin")

    ok(repo, "rollback", "--to", "2")
    assert (repo / ".env").read_bytes() == ENV_2

    clone = _clone(tmp_path)
    assert snapline(clone, "verify").returncode == 0
    ok(clone, "rollback", "--to", "2", ".env")
    assert (clone / ".env").read_bytes() == ENV_2
    assert snapline(clone, "rollback", "--to", "1", ".env").returncode == 1
    ok(clone, "rollback", "--to", "3", ".env")
    assert (clone / ".env").read_bytes() == ENV_3
    assert snapline(clone, "verify").returncode == 0


def test_a_forget_fetched_into_another_clone_removes_the_content_there(
    repo: Path, tmp_path: Path
) -> None:
    clone = _clone(tmp_path)
    assert "API_KEY=" in ok(clone, "show", "1")  # its index holds the secret now
    assert ".git/snapline/index.db" in holders(clone)
    ok(repo, "forget", ".env", "-m", "leaked key")
    ok(repo, "forget", "--publish", "origin")
    # The way docs/cli.md gives other clones to take a published forget in.
    git(clone, "fetch", "-q", "origin", "+refs/snapline/*:refs/snapline/*")
    assert "Content forgotten" in ok(clone, "show", "1")
    assert snapline(clone, "verify").returncode == 0
    ok(clone, "gc")  # vacuums the index: freed pages leave the file
    assert holders(clone) == []


def test_the_library_refuses_what_it_cannot_forget_and_records_on_top(root: Path) -> None:
    (root / "a.txt").write_text("kept\n")
    with Workspace.init(root) as ws:
        (root / ".env").write_bytes(ENV_1)
        (root / "copy.env").write_bytes(ENV_1)
        ws.record()
        with pytest.raises(NothingToForgetError, match=r"no content of nothing\.txt"):
            ws.forget(["copy.env", ".env", "nothing.txt"], reason="x")
        with pytest.raises(SharedContentError, match=r"also recorded as copy\.env"):
            ws.forget(".env", reason="x")
        result = ws.forget([".env", "copy.env"], reason="two copies")
        assert [(v.path, v.number) for v in result.forgotten] == [(".env", 1), ("copy.env", 1)]
        assert result.still_on_disk == (".env", "copy.env")
        with pytest.raises(ForgottenVersionError, match="two copies"):
            ws.content_at(".env", 1)
        # The next edit has no base to diff against: it is stored whole.
        (root / ".env").write_bytes(ENV_2)
        snapshot = ws.record()
        assert snapshot is not None
        assert ws.content_at(".env", snapshot.number) == ENV_2
        assert ws.verify().problems == ()


def test_an_edited_forget_record_of_an_in_tree_ledger_is_named_by_verify(tmp_path: Path) -> None:
    # An old branch's in-tree ledger (written by c82d55b) holds one forget record.
    root = ledger_checkout(tmp_path / "repo").path
    ok(root, "verify")  # sound as written; the index is built from it
    [record] = (root / LEDGER / "forgotten").iterdir()
    edited = record.read_bytes().replace(b"\nforgot 8 ", b"\nforgot eight ")
    assert edited != record.read_bytes()
    record.write_bytes(edited)
    done = snapline(root, "verify", "--json")
    assert done.returncode == 3, done.stdout + done.stderr
    problems = json.loads(done.stdout)["problems"]
    assert [p["path"] for p in problems] == [f".snapline/ledger/forgotten/{record.name}"]
    assert "not a valid forget record: line 4: not a canonical number" in problems[0]["message"]
