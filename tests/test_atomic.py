"""The atomic-write primitive: all or nothing, modes exact, no temp files left."""

from __future__ import annotations

import errno
import os
import signal
import stat
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from snapline import Workspace, atomic


def test_write_replaces_content_and_sets_mode(tmp_path: Path) -> None:
    target = tmp_path / "d" / "f.sh"
    atomic.write_file(target, b"#!/bin/sh\n", 0o100755)
    assert target.read_bytes() == b"#!/bin/sh\n"
    assert os.stat(target).st_mode & stat.S_IXUSR
    atomic.write_file(target, b"plain", 0o100644)
    assert not os.stat(target).st_mode & stat.S_IXUSR
    assert sorted(p.name for p in target.parent.iterdir()) == ["f.sh"]


def test_failed_write_leaves_old_content_and_no_temp_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "f"
    target.write_bytes(b"old")

    def broken_replace(src: object, dst: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(atomic.os, "replace", broken_replace)
    with pytest.raises(OSError):
        atomic.write_file(target, b"new", 0o100644)
    assert target.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["f"]


def test_symlink_is_written_as_a_link(tmp_path: Path) -> None:
    target = tmp_path / "link"
    atomic.write_file(target, b"somewhere/else", 0o120000)
    assert os.readlink(target) == "somewhere/else"


def test_remove_prunes_empty_directories_up_to_the_root(tmp_path: Path) -> None:
    target = tmp_path / "a" / "b" / "f"
    atomic.write_file(target, b"x", 0o100644)
    atomic.remove_file(target, root=tmp_path)
    assert not (tmp_path / "a").exists()
    assert tmp_path.exists()


# Names at and near NAME_MAX (255 bytes): ASCII, two- and three-byte UTF-8, a byte that is
# not UTF-8 at the very end, and a name that itself looks like a temporary name.
_LONG_NAMES = [
    "a" * 255,
    "b" * 254,
    "é" * 127,
    "é" * 127 + "a",
    "€" * 85,
    os.fsdecode(b"x" * 254 + b"\xff"),
    ("n" * 200) + ".snapline-tmp-" + "0" * 41,
]


@pytest.mark.parametrize("name", _LONG_NAMES, ids=lambda n: f"{len(os.fsencode(n))}B")
def test_a_name_of_any_legal_length_is_written_atomically(tmp_path: Path, name: str) -> None:
    target = tmp_path / name
    atomic.write_file(target, b"first", 0o100644)
    atomic.write_file(target, b"second", 0o100755)
    assert target.read_bytes() == b"second"
    link = tmp_path / "links" / name
    atomic.write_file(link, b"elsewhere", 0o120000)
    assert os.readlink(link) == "elsewhere"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["links", name])


def test_a_file_with_a_255_byte_name_is_restored_by_a_rollback(root: Path) -> None:
    name = "r" * 251 + ".txt"
    (root / "sub").mkdir()
    (root / "sub" / name).write_text("v0\n")
    with Workspace.init(root) as ws:
        ws.write_file(f"sub/{name}", "v1\n")
        ws.rollback(to=0)
        assert (root / "sub" / name).read_text() == "v0\n"
        assert ws.check_sync().ok


@given(
    name=st.text(
        st.characters(blacklist_categories=("Cs",), blacklist_characters="/\0"),
        min_size=1,
        max_size=255,
    ).filter(lambda n: len(n.encode()) <= 255 and n not in (".", "..")),
    other=st.text(min_size=1, max_size=40).filter(lambda n: "/" not in n),
)
@example(name="a" * 255, other="a" * 254)
@example(name="x", other="x.snapline-tmp-y")
def test_temp_names_fit_are_recognised_and_belong_to_one_name(name: str, other: str) -> None:
    temp = atomic.temp_name(name)
    assert len(os.fsencode(temp)) <= 255 and "/" not in temp
    assert atomic.is_temp_name(temp) and atomic.is_temp_name(f"some/dir/{temp}")
    assert temp.startswith(atomic.temp_prefix(name))
    assert not atomic.is_temp_name(name)
    if other != name:
        assert not atomic.temp_name(other).startswith(atomic.temp_prefix(name))


_LOOK_ALIKES = [
    "notes.snapline-tmp-x.txt",
    ".notes.snapline-tmp-x",
    ".a.snapline-tmp-0123456789abcdef",
    ".a.snapline-tmp-deadbeef",
    ".snapline-tmp-0123456789abcdef",
    "a.snapline-tmp-" + "0" * 16,
]


def test_only_our_own_temp_files_are_left_out_of_a_workspace(root: Path) -> None:
    for name in _LOOK_ALIKES:
        (root / name).write_text("a user's file\n")
    (root / "deep").mkdir()
    (root / "deep" / _LOOK_ALIKES[0]).write_text("a user's file\n")
    (root / atomic.temp_name("crashed.txt")).write_text("left by a crash\n")
    (root / "deep" / atomic.temp_name("a" * 255)).write_text("left by a crash\n")
    with Workspace.init(root) as ws:
        assert sorted(ws.tracked()) == sorted([*_LOOK_ALIKES, f"deep/{_LOOK_ALIKES[0]}"])


def _recorded_fsyncs(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    synced: list[Path] = []
    real = atomic._fsync

    def record(path: Path) -> None:
        synced.append(path)
        real(path)

    monkeypatch.setattr(atomic, "_fsync", record)
    return synced


def test_a_batch_changes_nothing_visible_until_it_places_and_syncs_each_directory_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    synced = _recorded_fsyncs(monkeypatch)
    for name in ("a/1", "a/2", "b/3"):
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_bytes(b"old")
    os.chmod(tmp_path / "a/1", 0o600)
    batch = atomic.WriteBatch()
    news = {"a/1": b"new 1", "a/2": b"new 2", "b/3": b"new 3", "b/4": b"new 4"}
    staged = [batch.stage(tmp_path / name, data, 0o100644) for name, data in news.items()]
    batch.sync()
    assert all(s is not None for s in staged)
    assert [(tmp_path / n).read_bytes() for n in ("a/1", "a/2", "b/3")] == [b"old"] * 3
    assert not (tmp_path / "b/4").exists()
    temps = [p for p in tmp_path.rglob("*") if atomic.is_temp_name(p.name)]
    assert sorted(synced) == sorted(temps) and len(temps) == 4  # every content, before a rename
    synced.clear()
    for item in staged:
        assert item is not None
        batch.place(item)
    batch.remove(tmp_path / "a/2")
    assert synced == []  # the renames wait for finish
    batch.finish()
    assert sorted(synced) == [tmp_path / "a", tmp_path / "b"]  # once each, not once a file
    assert {n: (tmp_path / n).read_bytes() for n in ("a/1", "b/3", "b/4")} == {
        n: news[n] for n in ("a/1", "b/3", "b/4")
    }
    assert not (tmp_path / "a/2").exists()
    assert stat.S_IMODE(os.stat(tmp_path / "a/1").st_mode) == 0o600  # permissions kept
    assert not [p for p in tmp_path.rglob("*") if atomic.is_temp_name(p.name)]


def test_a_batch_stages_only_what_needs_nothing_changed_first(tmp_path: Path) -> None:
    (tmp_path / "file").write_bytes(b"a file where a directory must go")
    (tmp_path / "dir").mkdir()
    batch = atomic.WriteBatch()
    assert batch.stage(tmp_path / "file" / "x", b"x", 0o100644) is None
    assert batch.stage(tmp_path / "missing" / "x", b"x", 0o100644) is None
    assert batch.stage(tmp_path / "dir", b"x", 0o100644) is None
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dir", "file"]
    batch.write(tmp_path / "missing" / "x", b"x", 0o100644)  # in order, parents made
    assert (tmp_path / "missing" / "x").read_bytes() == b"x"


def test_a_batch_never_fsyncs_a_directory_it_removed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Issue 25: the directory of the first removal was queued for its fsync, and the
    # second removal emptied and deleted it: finish() raised FileNotFoundError.
    synced = _recorded_fsyncs(monkeypatch)
    root = tmp_path / "root"
    for name in ("pkg/a", "pkg/b", "deep/x/y/z", "deep/x/w", "deep/top", "keep/k", "keep/sub/s"):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(b"old")
    batch = atomic.WriteBatch()
    for name in ("pkg/a", "pkg/b", "deep/x/y/z", "deep/x/w", "deep/top", "keep/sub/s"):
        batch.remove(root / name, root=root)
    batch.finish()
    assert sorted(p.relative_to(root).as_posix() for p in root.rglob("*")) == ["keep", "keep/k"]
    # The directories that stay, where the entries changed: the root and keep/.
    assert sorted(synced) == [root, root / "keep"]


def test_a_batch_fsyncs_the_parent_of_each_directory_it_creates_or_replaces(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    synced = _recorded_fsyncs(monkeypatch)
    root = tmp_path / "root"
    (root / "x").mkdir(parents=True)
    (root / "x" / "one").write_bytes(b"one")
    (root / "f").write_bytes(b"a file where a directory goes")
    batch = atomic.WriteBatch()
    batch.remove(root / "x" / "one", root=root)  # empties and removes x/
    batch.write(root / "x", b"x is a file now", 0o100644)
    batch.remove(root / "f", root=root)
    batch.write(root / "f" / "g" / "h", b"deep", 0o100644)  # f/ and f/g/ are new
    batch.finish()
    assert (root / "x").read_bytes() == b"x is a file now"
    assert (root / "f" / "g" / "h").read_bytes() == b"deep"
    # Each new directory is an entry of the one above it: those are fsynced, once each.
    assert sorted(synced) == [root, root / "f", root / "f" / "g"]


def test_an_aborted_batch_leaves_no_temporary_file(tmp_path: Path) -> None:
    (tmp_path / "f").write_bytes(b"old")
    batch = atomic.WriteBatch()
    placed = batch.stage(tmp_path / "f", b"new", 0o100644)
    batch.stage(tmp_path / "g", b"never placed", 0o100755)
    batch.stage(tmp_path / "link", b"f", 0o120000)
    batch.sync()
    assert placed is not None
    batch.place(placed)
    batch.abort()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f"]
    assert (tmp_path / "f").read_bytes() == b"new"


def test_a_forked_child_writes_a_batch_on_threads_of_its_own(tmp_path: Path) -> None:
    def write_batch(name: str) -> None:
        batch = atomic.WriteBatch()
        staged = [batch.stage(tmp_path / f"{name}{i}", b"x", 0o100644) for i in range(4)]
        batch.sync()
        batch.place(*[s for s in staged if s is not None])
        batch.finish()

    write_batch("parent")  # the parent's threads now exist, idle
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child reports through its exit status
        try:
            write_batch("child")
        finally:
            os._exit(0 if len(list(tmp_path.glob("child*"))) == 4 else 1)
    for _ in range(200):
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        time.sleep(0.05)
    else:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        pytest.fail("a batch in a forked child waited for threads its parent had")
    assert os.waitstatus_to_exitcode(status) == 0


def test_write_local_replaces_a_file_whole_without_syncing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A clone's local shortcut (the monitor's token): atomic (temp file, rename), never
    # fsynced, a plain file that keeps the permissions of the one it replaces.
    synced: list[int] = []
    monkeypatch.setattr(atomic.os, "fsync", synced.append)
    target = tmp_path / "token.json"
    atomic.write_local(target, b"first")
    assert target.read_bytes() == b"first"
    assert stat.S_IMODE(os.lstat(target).st_mode) == 0o666 & ~atomic._umask()
    os.chmod(target, 0o600)
    atomic.write_local(target, b"second")
    assert target.read_bytes() == b"second"
    assert stat.S_ISREG(os.lstat(target).st_mode)
    assert stat.S_IMODE(os.lstat(target).st_mode) == 0o600
    assert synced == []
    assert [p.name for p in tmp_path.iterdir()] == ["token.json"]


def test_write_local_that_cannot_replace_leaves_no_temp_file(tmp_path: Path) -> None:
    target = tmp_path / "token.json"
    target.mkdir()  # a directory in the way: the rename fails
    (target / "kept").write_bytes(b"kept")
    with pytest.raises(OSError):
        atomic.write_local(target, b"data")
    assert [p.name for p in tmp_path.iterdir()] == ["token.json"]
    assert (target / "kept").read_bytes() == b"kept"


def test_a_write_fsyncs_the_content_under_its_temporary_name_before_the_rename(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Temp, fsync, rename, fsync the directory: after a crash the file is the old
    # version or the whole new one, never a name that points at unwritten blocks.
    real, seen = os.fsync, []

    def record(fd: int) -> None:
        path = Path(os.readlink(f"/proc/self/fd/{fd}"))
        content = path.read_bytes() if path.is_file() else None
        seen.append((path.parent, atomic.is_temp_name(path.name), content))
        real(fd)

    monkeypatch.setattr(atomic.os, "fsync", record)
    target = tmp_path / "d" / "f.txt"
    atomic.write_file(target, b"old", 0o100644)
    seen.clear()
    atomic.write_file(target, b"new", 0o100644)
    assert seen == [(tmp_path / "d", True, b"new"), (tmp_path, False, None)]
    seen.clear()
    batch = atomic.WriteBatch()
    batch.write(tmp_path / "e" / "g.txt", b"in a batch", 0o100644)  # a new directory first
    assert seen == [(tmp_path / "e", True, b"in a batch")]
    batch.finish()
    assert (tmp_path / "e" / "g.txt").read_bytes() == b"in a batch"


def test_a_symlink_planted_at_the_temporary_name_is_never_followed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The temporary name is created, never opened as it stands: a link another process
    # put there (to a file outside the workspace) is an error, and nothing is written.
    outside = tmp_path / "outside.txt"
    outside.write_bytes(b"not ours")
    root = tmp_path / "root"
    root.mkdir()
    name = "f.txt.snapline-tmp-planted"
    os.symlink(outside, root / name)
    monkeypatch.setattr(atomic, "temp_name", lambda _: name)
    with pytest.raises(FileExistsError):
        atomic.write_file(root / "f.txt", b"content", 0o100644)
    assert outside.read_bytes() == b"not ours"
    assert sorted(p.name for p in root.iterdir()) == [name]


@pytest.mark.parametrize(
    ("failing", "local"), [("chmod", False), ("replace", False), ("replace", True)]
)
def test_a_temporary_file_that_vanished_before_a_failure_leaves_that_failure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, failing: str, local: bool
) -> None:
    # Another process (a clean-up) removed the temporary file, and the next step failed
    # for it: the caller hears of that failure, not of the clean-up finding nothing.
    real = getattr(os, failing)

    def vanished(temp: Any, *args: Any) -> None:
        os.unlink(temp)
        real(temp, *args)

    monkeypatch.setattr(atomic.os, failing, vanished)
    target = tmp_path / "f.txt"
    target.write_bytes(b"old")
    with pytest.raises(FileNotFoundError):
        if local:
            atomic.write_local(target, b"new")
        else:
            atomic.write_file(target, b"new", 0o100644)
    assert target.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["f.txt"]


def test_a_write_that_fails_midway_raises_its_own_error_and_leaves_no_temp_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def failing(fd: int) -> None:
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(atomic.os, "fsync", failing)
    target = tmp_path / "f.txt"
    target.write_bytes(b"old")
    with pytest.raises(OSError) as caught:
        atomic.write_file(target, b"new", 0o100644)
    assert caught.value.errno == errno.EIO
    assert target.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["f.txt"]


@pytest.mark.parametrize(
    ("step", "code", "tolerated"),
    [
        ("open", errno.EACCES, True),
        ("open", errno.EINVAL, True),
        ("open", errno.EIO, False),
        ("fsync", errno.EINVAL, True),
        ("fsync", errno.ENOTSUP, True),
        ("fsync", errno.EIO, False),
        ("fsync", errno.ENOSPC, False),
    ],
)
def test_a_directory_the_filesystem_cannot_sync_is_tolerated_but_a_failed_sync_is_raised(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, step: str, code: int, tolerated: bool
) -> None:
    # As SQLite does: some filesystems (network, FUSE) cannot open or fsync a directory
    # at all, and nothing better can be done there; EIO or ENOSPC is a lost write.
    real = getattr(os, step)
    closed: list[int] = []
    real_close = os.close

    def refusing(*args: Any) -> Any:
        raise OSError(code, os.strerror(code))

    def close(fd: int) -> None:
        closed.append(fd)
        real_close(fd)

    monkeypatch.setattr(atomic.os, step, refusing)
    monkeypatch.setattr(atomic.os, "close", close)
    if tolerated:
        atomic.sync_directory(tmp_path)
    else:
        with pytest.raises(OSError) as caught:
            atomic.sync_directory(tmp_path)
        assert caught.value.errno == code
    monkeypatch.setattr(atomic.os, step, real)
    assert len(closed) == (step == "fsync")  # a directory opened is closed, failed or not


def test_a_parent_directory_another_process_creates_meanwhile_is_no_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Two writers making the same new directory: the one that finds it made goes on.
    real_lstat = os.lstat
    parent = tmp_path / "new" / "dir"

    def racing(path: Any, *args: Any, **kwargs: Any) -> os.stat_result:
        if Path(path) in (parent, *parent.parents) and not parent.exists():
            parent.mkdir(parents=True)  # the other writer, between the check and the mkdir
        return real_lstat(path, *args, **kwargs)

    monkeypatch.setattr(atomic.os, "lstat", racing)
    atomic.write_file(parent / "f.txt", b"mine", 0o100644)
    monkeypatch.setattr(atomic.os, "lstat", real_lstat)
    assert (parent / "f.txt").read_bytes() == b"mine"


def test_a_batch_that_replaces_an_empty_directory_by_a_file_never_fsyncs_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    synced = _recorded_fsyncs(monkeypatch)
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "one").write_bytes(b"one")
    batch = atomic.WriteBatch()
    batch.remove(tmp_path / "x" / "one")  # no root: x/ stays, empty, and is noted
    batch.write(tmp_path / "x", b"x is a file now", 0o100644)
    batch.finish()
    assert (tmp_path / "x").read_bytes() == b"x is a file now"
    assert sorted(synced) == [tmp_path]


def test_a_file_standing_where_a_parent_directory_goes_is_replaced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The version being written has a directory where the disk has a file (or a link
    # to nothing): the file makes way, and the directory holding it is fsynced.
    synced = _recorded_fsyncs(monkeypatch)
    (tmp_path / "f").write_bytes(b"a file where a directory goes")
    os.symlink("nowhere", tmp_path / "dangling")
    atomic.write_file(tmp_path / "f" / "g" / "h.txt", b"deep", 0o100644)
    atomic.write_file(tmp_path / "dangling" / "i.txt", b"here", 0o100644)
    assert (tmp_path / "f" / "g" / "h.txt").read_bytes() == b"deep"
    assert (tmp_path / "dangling" / "i.txt").read_bytes() == b"here"
    assert not (tmp_path / "dangling").is_symlink()
    assert synced == [
        tmp_path,
        tmp_path / "f",
        tmp_path / "f" / "g",
        tmp_path,
        tmp_path / "dangling",
    ]


def test_a_private_file_s_new_content_is_never_readable_by_others_even_as_a_temp(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A 0600 .env keeps its bits, and its new content is created with them: not
    # created with the umask's defaults and narrowed afterwards.
    real, modes = os.fsync, []

    def record(fd: int) -> None:
        modes.append(stat.S_IMODE(os.fstat(fd).st_mode))
        real(fd)

    target = tmp_path / ".env"
    target.write_bytes(b"TOKEN=old\n")
    os.chmod(target, 0o600)
    monkeypatch.setattr(atomic.os, "fsync", record)
    atomic.write_file(target, b"TOKEN=new\n", 0o100644)
    assert modes[0] == 0o600  # the content's fsync, before the rename
    assert stat.S_IMODE(os.lstat(target).st_mode) == 0o600
