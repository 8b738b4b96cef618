"""``snapline forget``: a secret recorded by mistake leaves the ledger, the history still verifies.

Driven through the real command and real git (init, commit, clone, pull), as a team
would: record the secret, commit ``.snapline/``, forget, commit, and look for the bytes
in every file of the ledger and the index.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from snapline import Workspace
from snapline.snapshots.read.reconstruct import ForgottenVersionError
from snapline.snapshots.record.forget import NothingToForgetError, SharedContentError
from tests.conftest import GIT_IDENTITY
from tests.object_form import object_content

SECRET = b"sk-live-7f3a9c1e5b"
ENV_1 = b"API_KEY=" + SECRET + b"\nuser=bob\n"
ENV_2 = b"API_KEY=\nuser=bob\nregion=eu\n"
ENV_3 = b"API_KEY=\nuser=alice\nregion=eu\n"


def snapline(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """Run the installed ``snapline`` command as a user would."""
    script = Path(sys.executable).with_name("snapline")
    return subprocess.run(
        [str(script), *args], cwd=cwd, capture_output=True, text=True, timeout=120, check=False
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


def holders(root: Path, secret: bytes = SECRET) -> list[str]:
    """Every file under ``.snapline/`` holding ``secret``, raw or in an object (decoded).

    The secret's file is under 64 bytes, which snapline stores uncompressed (in the
    index too); objects are unpacked in case.
    """
    found = []
    for path in sorted((root / ".snapline").rglob("*")):
        if not path.is_file():
            continue
        data = path.read_bytes()
        if "objects" in path.parts:
            # A keyed object (ledger 2) holds its content through a keyed byte table.
            data += object_content(path)
        if secret in data:
            found.append(path.relative_to(root).as_posix())
    return found


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A git repository whose ``.env`` held a secret in snapshot 1, edited in 2 and 3."""
    root = tmp_path / "a"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    (root / "app.py").write_text("print('hello')\n")
    # Recorded through the library (quicker than a process per snapshot); everything
    # about forgetting goes through the command.
    with Workspace.init(root, in_tree=True) as ws:
        for content in (ENV_1, ENV_2, ENV_3):
            (root / ".env").write_bytes(content)
            ws.record(description="env")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "recorded")
    assert ".snapline/index.db" in holders(root)  # the test can see the secret
    assert any(name.startswith(".snapline/ledger/") for name in holders(root))
    return root


def test_forgetting_every_version_leaves_no_byte_and_verifies_everywhere(
    repo: Path, tmp_path: Path
) -> None:
    out = ok(repo, "forget", ".env", "-m", "leaked key")
    assert "forgot 3 versions of .env" in out
    assert ".env still holds this content on disk" in out
    assert (repo / ".env").read_bytes() == ENV_3  # the workspace is not touched
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "forget")
    assert holders(repo) == []
    assert snapline(repo, "verify").returncode == 0
    records = list((repo / ".snapline" / "ledger" / "forgotten").iterdir())
    assert len(records) == 1
    assert b'reason "leaked key"\nforgot 1 sha256:' in records[0].read_bytes()

    rebuilt = snapline(repo, "rollback", "--to", "1")
    assert rebuilt.returncode == 1
    assert "the content of .env at snapshot 1 was forgotten (snapline forget, " in rebuilt.stderr
    assert ": leaked key)" in rebuilt.stderr
    assert "Content forgotten (snapline forget): b/.env" in ok(repo, "show", "1")

    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(repo), str(clone))
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
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "forget")
    assert holders(repo) == []
    assert snapline(repo, "verify").returncode == 0
    ok(repo, "gc")  # the whole copy kept for snapshot 2 is not garbage

    ok(repo, "rollback", "--to", "2")
    assert (repo / ".env").read_bytes() == ENV_2

    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(repo), str(clone))
    assert snapline(clone, "verify").returncode == 0
    ok(clone, "rollback", "--to", "2", ".env")
    assert (clone / ".env").read_bytes() == ENV_2
    assert snapline(clone, "rollback", "--to", "1", ".env").returncode == 1
    ok(clone, "rollback", "--to", "3", ".env")
    assert (clone / ".env").read_bytes() == ENV_3
    assert snapline(clone, "verify").returncode == 0


def test_a_forget_pulled_into_another_clone_removes_the_content_there(
    repo: Path, tmp_path: Path
) -> None:
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(repo), str(clone))
    assert "API_KEY=" in ok(clone, "show", "1")  # its index holds the secret now
    assert ".snapline/index.db" in holders(clone)
    ok(repo, "forget", ".env", "-m", "leaked key")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "forget")
    git(clone, "pull", "-q", "--no-rebase", "origin", "main")
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


def test_an_edited_forget_record_is_named_by_verify(root: Path) -> None:
    with Workspace.init(root, in_tree=True) as ws:  # the ledger's forget record
        (root / ".env").write_bytes(ENV_1)
        ws.record()
        result = ws.forget(".env", reason="leaked")
        record = root / ".snapline" / "ledger" / "forgotten" / result.record
        record.write_bytes(record.read_bytes().replace(b"\nforgot 1 ", b"\nforgot one "))
        report = ws.verify()
    assert report.corrupt
    assert [p.path for p in report.problems] == [f".snapline/ledger/forgotten/{result.record}"]
    assert "not a valid forget record: line 4: not a canonical number" in report.problems[0].message


def test_a_secret_recorded_on_a_merged_branch_leaves_every_line(tmp_path: Path) -> None:
    root = tmp_path / "a"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    (root / "app.py").write_text("print('hello')\n")
    Workspace.init(root, in_tree=True).close()
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "init")
    git(root, "checkout", "-q", "-b", "feature")
    with Workspace.open(root) as ws:
        for content in (ENV_1, ENV_2):
            (root / ".env").write_bytes(content)
            ws.record()
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "feature")
    git(root, "checkout", "-q", "main")
    with Workspace.open(root) as ws:
        (root / "other.txt").write_text("main\n")
        ws.record()
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "main")
    git(root, "merge", "-q", "--no-edit", "feature")
    ok(root, "merge")
    assert any(name.endswith(".snap") for name in holders(root))
    ok(root, "forget", ".env", "-m", "leaked on a branch")
    assert holders(root) == []
    assert snapline(root, "verify").returncode == 0
