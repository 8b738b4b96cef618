"""A write the operating system refuses into the history's objects or refs is named (exit 1).

The refs twin of the ledger's file-size limit test (``tests/store/test_errors.py``): a
limit (``ulimit -f``: ``RLIMIT_FSIZE``, where the write fails with ``EFBIG``), and an
objects or refs folder this user cannot write, in a git work tree and in the private
repository (``.snapline/repo``, outside git). libgit2 says ``no error`` for the first
and names no reason for the others: each was an internal error (exit 70) on 807557d.
Now each is one line naming what, where and what to do, the history is as it was
(nothing recorded, no ref moved, no temporary file left), and the same command records
once the cause is gone. The permission tests drop the capabilities that let root
bypass permission bits (as ``test_read_only_refs.py`` does).
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.history_refs.gitrepo import ENV, SNAPLINE, Repo, new_repo
from tests.store.test_read_only_store import _drop_bypass, _readonly, _writable


def _workspace(tmp_path: Path, kind: str) -> tuple[Repo, Path]:
    """A workspace at snapshot 0 and the repository holding its history."""
    if kind == "git":
        repo = new_repo(tmp_path / "work", {"a.txt": "a\n"})
        repo.ok("init")
        return repo, repo.path / ".git"
    (tmp_path / "work").mkdir()
    (tmp_path / "work" / "a.txt").write_text("a\n")
    repo = Repo(tmp_path / "work")
    repo.ok("init")
    return repo, repo.path / ".snapline" / "repo"


def _snap(repo: Repo, preexec: Callable[[], None], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [SNAPLINE, *args], cwd=repo.path, capture_output=True, text=True, env=ENV,
        timeout=120, check=False, preexec_fn=preexec,
    )  # fmt: skip


def _history(repo: Repo, git_dir: Path) -> tuple[list[int], dict[str, bytes], list[str]]:
    """The snapshots ``log`` lists, every ref file with its bytes, and any temporary file.

    An object written before a refusal is left out: no ref names it, and ``git gc``
    prunes it, as after git's own failed writes.
    """
    log = json.loads(repo.ok("log", "--json"))
    refs = {
        str(path.relative_to(git_dir)): path.read_bytes()
        for path in (git_dir / "refs").rglob("*")
        if path.is_file()
    }
    temporary = [
        p.name for p in git_dir.rglob("*") if p.name.startswith("tmp_") or ".lock" in p.name
    ]
    return sorted(entry["number"] for entry in log), refs, temporary


def _refused_once(done: subprocess.CompletedProcess[str], where: Path) -> str:
    assert done.returncode == 1, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr and "internal error" not in done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith(f"snapline: error: cannot write snapline's history into {where}")
    assert "the history is as it was" in lines[0]
    return lines[0]


@pytest.mark.parametrize("kind", ["git", "private"])
def test_a_file_size_limit_while_recording_is_named_and_records_nothing(
    tmp_path: Path, kind: str
) -> None:
    repo, git_dir = _workspace(tmp_path, kind)
    used = max(p.stat().st_size for p in repo.path.rglob("*") if p.is_file())
    limit = used + 65536  # the index's own writes fit; the object does not
    (repo.path / "big.bin").write_bytes(os.urandom(300_000))  # incompressible: one big object
    before = _history(repo, git_dir)

    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, resource.RLIM_INFINITY))

    line = _refused_once(_snap(repo, limited, "record", "-m", "big"), git_dir / "objects")
    assert "(File too large)" in line
    assert f"a file-size limit ({limit} bytes, `ulimit -f`)" in line
    assert "300000 bytes" in line
    assert _history(repo, git_dir) == before

    recorded = repo.snap("record", "-m", "big")
    assert recorded.returncode == 0, recorded.stderr
    assert "A big.bin" in recorded.stdout
    assert repo.snap("verify", "--full").returncode == 0


@pytest.mark.parametrize("folder", ["objects", "refs/snapline"])
@pytest.mark.parametrize("kind", ["git", "private"])
def test_a_folder_of_the_repository_this_user_cannot_write_is_named(
    tmp_path: Path, kind: str, folder: str
) -> None:
    repo, git_dir = _workspace(tmp_path, kind)
    (repo.path / "a.txt").write_text("a, edited\n")  # a new blob, a new commit, the ref
    before = _history(repo, git_dir)
    _readonly(git_dir / folder)
    try:
        done = _snap(repo, _drop_bypass, "record", "-m", "edit")
    finally:
        _writable(git_dir / folder)
    line = _refused_once(done, git_dir / folder)
    assert "(Permission denied)" in line
    assert f"give this user write access to {git_dir / folder}" in line
    assert _history(repo, git_dir) == before

    recorded = repo.snap("record", "-m", "edit")
    assert recorded.returncode == 0, recorded.stderr
    assert "M a.txt" in recorded.stdout
    assert repo.snap("verify", "--full").returncode == 0


@pytest.mark.parametrize("disk", ["full", "read-only"])
@pytest.mark.parametrize("kind", ["git", "private"])
def test_a_full_or_read_only_file_system_under_the_objects_is_named(
    tmp_path: Path, kind: str, disk: str
) -> None:
    repo, git_dir = _workspace(tmp_path, kind)
    (repo.path / "big.bin").write_bytes(os.urandom(300_000))
    before = _history(repo, git_dir)
    objects = git_dir / "objects"
    if disk == "full":
        # A file system of 256 KiB holding the objects so far, in a mount namespace of
        # the command's own (gone with it): the new object does not fit (ENOSPC).
        kept = tmp_path / "kept"
        mount = [f"cp -a {objects} {kept}", f"mount -t tmpfs -o size=256k tmpfs {objects}",
                 f"cp -a {kept}/. {objects}/"]  # fmt: skip
    else:
        mount = [f"mount --bind {objects} {objects}", f"mount -o remount,bind,ro {objects}"]
    script = [*mount, f"exec {SNAPLINE} record -m big"]
    done = subprocess.run(
        ["unshare", "-m", "sh", "-e", "-c", "\n".join(script)], cwd=repo.path,
        capture_output=True, text=True, env=ENV, timeout=120, check=False,
    )  # fmt: skip
    line = _refused_once(done, objects)
    if disk == "full":
        assert "(No space left on device)" in line and "free some space" in line
    else:
        assert "(Read-only file system)" in line and "remount it writable" in line
    assert _history(repo, git_dir) == before

    recorded = repo.snap("record", "-m", "big")
    assert recorded.returncode == 0, recorded.stderr
    assert "A big.bin" in recorded.stdout
    assert repo.snap("verify", "--full").returncode == 0
