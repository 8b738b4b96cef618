"""A fresh CI clone's first `verify`: what git's checkout wrote is taken unread, the rest is read.

The remote holds a branch and its history on refs; CI clones it, runs `snapline fetch`,
then `verify`. git's index says which blob the checkout wrote at each path and the
`lstat` the file had then; where that blob is the snapshot state's own, the file is not
read again (store/refs/gitstat.py). Everything git cannot vouch for still is: a file
changed since (same size, mtime put back), an entry racily clean against git's index,
a file git does not track, a mode changed. `verify` runs in this process (the real
command line) with the one function that reads a work file counted.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import time
import zlib
from pathlib import Path

import pytest

from snapline.cli.app import app
from snapline.snapshots.record import detect
from snapline.store.refs.git import open_repository
from tests.cli_runner import CliRunner
from tests.history_refs.gitrepo import ENV, Repo, new_repo

FILES = {
    "app.py": "print('v0')\n",
    "lib.py": "x = 0\n",
    "tool.sh": "echo tool\n",
    "docs/guide.md": "# a guide\n",
}


def _origin(tmp_path: Path) -> Path:
    """A remote holding the agent's branch and its history: snapshots 0 and 1."""
    origin = tmp_path / "origin.git"
    work = new_repo(tmp_path / "work", FILES)
    work.ok("init")
    (work.path / "app.py").write_text("print('v1')\n")
    work.ok("record", "app.py", "-m", "v1")
    work.git("commit", "-qam", "v1")
    work.git("init", "-q", "--bare", str(origin))
    work.git("push", "-q", str(origin), "main")
    work.ok("push", str(origin))
    return origin


def _ci(tmp_path: Path, origin: Path) -> Repo:
    """CI's clone after `snapline fetch`, its checkout settled (below)."""
    ci = Repo(tmp_path / "ci")
    Repo(tmp_path).git("clone", "-q", str(origin), str(ci.path))
    ci.ok("fetch", "origin")
    _settle(ci)
    return ci


def _settle(ci: Repo) -> None:
    """Wait for the filesystem's clock to pass the checkout's files, then let git write
    its index again: no entry is racily clean, as in a clone of more than a few files.
    (A clone of four files fits in one clock tick, and git's index with it.)"""
    newest = max((ci.path / name).lstat().st_ctime_ns for name in FILES)
    probe = ci.path / ".git" / "clock-probe"
    for _ in range(1000):
        probe.write_bytes(b"")
        if probe.lstat().st_mtime_ns > newest:
            break
        time.sleep(0.005)
    probe.unlink()
    ci.git("update-index", "-q", "--refresh", "--force-write-index")
    index = (ci.path / ".git" / "index").lstat().st_mtime_ns
    assert all((ci.path / name).lstat().st_ctime_ns < index for name in FILES)


def _verify(ci: Repo, monkeypatch: pytest.MonkeyPatch, *args: str) -> tuple[int, str, list[str]]:
    """`snapline verify ARGS` in ``ci``: the exit code, the output, the work files read."""
    read: list[str] = []
    real = detect.read_disk_file

    def counted(path: str | Path, relpath: str, *rest: object, **named: object) -> object:
        read.append(relpath)
        return real(path, relpath, *rest, **named)  # type: ignore[arg-type]

    with monkeypatch.context() as patched:
        patched.setattr(detect, "read_disk_file", counted)
        done = CliRunner().invoke(app, ["--root", str(ci.path), "verify", *args], env=ENV)
    return done.exit_code, done.stdout + (done.stderr or ""), sorted(read)


def test_the_first_verify_reads_no_file_git_wrote_from_the_state(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ci = _ci(tmp_path, _origin(tmp_path))
    code, output, read = _verify(ci, monkeypatch)
    assert (code, read) == (0, []), output
    assert "snapshots 0..1 verified" in output
    # What it kept is the stat cache's own entry: the next verify reads nothing either.
    assert _verify(ci, monkeypatch)[::2] == (0, [])
    assert ci.git("status", "--porcelain", "--ignored") == ""


def test_an_entry_racily_clean_against_git_s_index_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ci = _ci(tmp_path, _origin(tmp_path))
    # git's index written in the tick of the files' last change (no later than any of
    # them): every entry is racily clean, and git itself would read each file again.
    oldest = min((ci.path / name).lstat().st_mtime_ns for name in FILES)
    os.utime(ci.path / ".git" / "index", ns=(oldest, oldest))
    code, output, read = _verify(ci, monkeypatch)
    assert (code, read) == (0, sorted(FILES)), output


def test_an_edit_that_keeps_the_size_and_puts_the_mtime_back_is_found(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ci = _ci(tmp_path, _origin(tmp_path))
    lib = ci.path / "lib.py"
    before = lib.lstat()
    lib.write_text("x = 9\n")
    os.utime(lib, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert (lib.lstat().st_size, lib.lstat().st_mtime_ns) == (before.st_size, before.st_mtime_ns)
    code, output, read = _verify(ci, monkeypatch)
    assert code == 1, output
    assert "lib.py is modified" in output
    assert read == ["lib.py"]


def test_files_git_does_not_track_are_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ci = _ci(tmp_path, _origin(tmp_path))
    ci.git("rm", "-q", "--cached", "lib.py")  # still on disk, still snapline's
    (ci.path / "notes.txt").write_text("new\n")  # in scope, untracked by both
    code, output, read = _verify(ci, monkeypatch)
    assert code == 1, output
    assert "notes.txt is untracked" in output
    assert "lib.py" not in output  # read, and what the history holds
    assert read == ["lib.py", "notes.txt"]


def test_a_mode_change_is_found(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ci = _ci(tmp_path, _origin(tmp_path))
    (ci.path / "tool.sh").chmod(0o755)
    code, output, read = _verify(ci, monkeypatch)
    assert code == 1, output
    assert "tool.sh is modified" in output
    assert read == ["tool.sh"]


def _loose(ci: Repo, blob: str) -> Path:
    """The loose object file of ``blob`` in the clone (its packs unpacked first)."""
    objects = ci.path / ".git" / "objects"
    for pack in (objects / "pack").glob("*.pack"):
        moved = pack.with_suffix(".moved")
        pack.rename(moved)
        pack.with_suffix(".idx").unlink()
        with open(moved, "rb") as stream:
            subprocess.run(
                ["git", "unpack-objects", "-q"], cwd=ci.path, stdin=stream, env=ENV, check=True
            )
        moved.unlink()
    return objects / blob[:2] / blob[2:]


def _guide_blob(ci: Repo) -> str:
    return ci.git("rev-parse", "HEAD:docs/guide.md").strip()


def test_a_missing_blob_of_the_history_is_damage_by_default_and_with_full(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ci = _ci(tmp_path, _origin(tmp_path))
    # The baseline keeps docs/guide.md whole: its content is git's blob, in HEAD too.
    loose = _loose(ci, _guide_blob(ci))
    loose.unlink()
    for args in ((), ("--full",)):
        code, output, _ = _verify(ci, monkeypatch, *args)
        assert code == 3, (args, output)
        assert "docs/guide.md" in output or "content" in output


def test_a_blob_that_is_not_its_record_s_version_is_damage_with_full(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ci = _ci(tmp_path, _origin(tmp_path))
    blob = _guide_blob(ci)
    loose = _loose(ci, blob)
    # Other bytes of the same size under the blob's id (a disk's damage, or a crafted
    # object): git's checkout already wrote the file, the record names the original.
    other = b"# A GUIDE\n"
    loose.chmod(0o644)
    loose.write_bytes(zlib.compress(b"blob %d\x00" % len(other) + other))
    code, output, _ = _verify(ci, monkeypatch, "--full")
    assert code == 3, output
    assert "content" in output
    assert open_repository(ci.path).has_object(blob)


def test_a_damaged_record_is_damage_by_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ci = _ci(tmp_path, _origin(tmp_path))
    line = ci.git("for-each-ref", "--format=%(refname)", "refs/snapline/lines/").split()[0]
    tip = ci.git("rev-parse", line).strip()
    record = ci.git("rev-parse", f"{tip}:record").strip()
    text = ci.git("cat-file", "blob", record).replace("v1", "v2")
    blob = _write_blob(ci, text.encode())
    state = ci.git("rev-parse", f"{tip}:state").strip()
    tree = _write_tree(ci, blob, state)
    parent = ci.git("rev-parse", f"{tip}^").strip()
    commit = ci.git("commit-tree", tree, "-p", parent, "-m", "crafted").strip()
    ci.git("update-ref", line, commit)
    for args in ((), ("--full",)):
        code, output, _ = _verify(ci, monkeypatch, *args)
        assert code == 3, (args, output)


def _write_blob(ci: Repo, data: bytes) -> str:
    done = subprocess.run(
        ["git", "hash-object", "-w", "--stdin"],
        cwd=ci.path,
        input=data,
        capture_output=True,
        env=ENV,
        check=True,
    )
    return done.stdout.decode().strip()


def _write_tree(ci: Repo, record: str, state: str) -> str:
    listing = f"100644 blob {record}\trecord\n040000 tree {state}\tstate\n"
    done = subprocess.run(
        ["git", "mktree"], cwd=ci.path, input=listing, capture_output=True, text=True,
        env=ENV, check=True,
    )  # fmt: skip
    return done.stdout.strip()


def _checkout_older(tmp_path: Path) -> Repo:
    """CI's clone on the commit before the tip (snapshot 0's files), its index settled."""
    ci = _ci(tmp_path, _origin(tmp_path))
    ci.git("checkout", "-q", "HEAD~1")
    _settle(ci)
    return ci


def _explaining(ci: Repo, monkeypatch: pytest.MonkeyPatch) -> tuple[int, str, list[str], list[str]]:
    """`verify` in ``ci``: code, output, files the sync check read, files the explanation read."""
    from snapline.store.refs import disk

    read: list[str] = []
    real = disk._read

    def counted(path: Path, link: bool) -> bytes | None:
        read.append(path.relative_to(ci.path).as_posix())
        return real(path, link)

    with monkeypatch.context() as patched:
        patched.setattr(disk, "_read", counted)
        code, output, synced = _verify(ci, monkeypatch)
    return code, output, synced, sorted(read)


def test_a_checkout_that_is_not_the_tip_is_explained_without_reading_what_git_wrote(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ci = _checkout_older(tmp_path)
    code, output, synced, explained = _explaining(ci, monkeypatch)
    assert code == 0, output
    assert "the state recorded by snapshot 0" in output
    # The one file unlike the latest snapshot is read by the sync check; the
    # explanation takes every file from git's index, as `git status` would.
    assert (synced, explained) == (["app.py"], [])


def _index_claims(ci: Repo, path: str, blob: str) -> None:
    """Make git's index say ``path`` holds ``blob`` with the file's current stat.

    What a racy write leaves: git took the stat of a file whose bytes changed again in
    the same clock tick, after git hashed them."""
    index = ci.path / ".git" / "index"
    ci.git("update-index", path)  # the file's stat (and its new blob) in the index
    data = bytearray(index.read_bytes())
    name = data.index(path.encode() + b"\0")
    # The entry's name follows its 20-byte id and 2 bytes of flags (index version 2).
    data[name - 22 : name - 2] = bytes.fromhex(blob)
    body = bytes(data[:-20])
    index.write_bytes(body + hashlib.sha1(body).digest())


def test_a_racily_clean_entry_of_an_older_checkout_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ci = _checkout_older(tmp_path)
    lib = ci.path / "lib.py"
    blob = ci.git("rev-parse", "HEAD:lib.py").strip()
    lib.write_text("x = 9\n")  # same size, other bytes
    _index_claims(ci, "lib.py", blob)
    # The index written in the tick of the file's change: racily clean, so not trusted.
    changed = lib.lstat().st_mtime_ns
    os.utime(ci.path / ".git" / "index", ns=(changed, changed))
    code, output, synced, explained = _explaining(ci, monkeypatch)
    assert code == 1, output
    assert (
        "lib.py is modified on disk compared with snapshot 0, whose state this checkout is "
        "(its line goes on past it)"
    ) in output
    assert "lib.py" in synced and "lib.py" in explained


def test_an_older_checkout_s_deleted_and_untracked_files_are_named_against_its_snapshot(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ci = _checkout_older(tmp_path)
    (ci.path / "lib.py").unlink()
    (ci.path / "new.py").write_text("made here\n")
    code, output, _ = _verify(ci, monkeypatch)
    assert code == 1, output
    for path, kind in (("lib.py", "deleted"), ("new.py", "untracked")):
        assert (
            f"{path} is {kind} on disk compared with snapshot 0, whose state this checkout is "
            "(its line goes on past it)"
        ) in output, output


def test_a_checkout_that_is_not_the_tip_reads_each_snapshot_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from snapline.store.refs import reading

    ci = _checkout_older(tmp_path)
    read: list[str] = []
    real = reading.read_snapshot

    def counted(repo: object, commit: str, **named: str) -> reading.LineSnapshot:
        read.append(commit)
        return real(repo, commit, **named)  # type: ignore[arg-type]

    with monkeypatch.context() as patched:
        patched.setattr(reading, "read_snapshot", counted)
        code, output, _ = _verify(ci, monkeypatch)
    assert code == 0, output
    # The index built from the line and the lines explaining the checkout: one reading.
    assert len(read) == len(set(read)) == 2
