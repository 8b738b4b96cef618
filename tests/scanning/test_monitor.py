"""The work-tree monitor's journal against real inotify: what it names, when it says "unknown"."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from snapline.scanning import monitor as monitor_module
from snapline.scanning.inotify import (
    IN_IGNORED,
    IN_MODIFY,
    IN_MOVE_SELF,
    IN_UNMOUNT,
    Event,
    Inotify,
)
from snapline.scanning.monitor import TreeMonitor


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "tree"
    (root / "src" / "pkg").mkdir(parents=True)
    (root / "src" / "pkg" / "mod.py").write_text("x = 1\n")
    (root / ".git" / "objects").mkdir(parents=True)
    (root / ".snapline").mkdir()
    return root


def started(root: Path) -> TreeMonitor:
    monitor = TreeMonitor.start(root)
    assert monitor is not None and monitor.lost is None
    return monitor


def test_it_names_what_changed_since_a_point(tree: Path) -> None:
    monitor = started(tree)
    point = monitor.seq
    (tree / "src" / "pkg" / "mod.py").write_text("x = 2\n")
    (tree / "top.txt").write_text("new\n")
    monitor.drain()
    assert monitor.changed_since(point) == {"src/pkg/mod.py", "top.txt"}
    later = monitor.seq
    monitor.drain()
    assert monitor.changed_since(later) == set()
    assert monitor.changed_since(later + 1) is None  # a point it never gave
    monitor.close()


def test_a_path_changed_again_after_a_point_is_named_again(tree: Path) -> None:
    # The point is taken with the file's entry last in the journal: an event of the same
    # path in a later drain must not be folded into that entry (issue 40, point 1).
    monitor = started(tree)
    module = tree / "src" / "pkg" / "mod.py"
    module.write_text("x = 2\n")
    monitor.drain()
    point = monitor.seq
    assert monitor.changed_since(point - 1) == {"src/pkg/mod.py"}
    module.write_text("x = 3\n")
    monitor.drain()
    assert monitor.changed_since(point) == {"src/pkg/mod.py"}
    monitor.close()


def test_the_store_and_git_are_not_watched(tree: Path) -> None:
    monitor = started(tree)
    point = monitor.seq
    (tree / ".snapline" / "index.db").write_text("local\n")
    (tree / ".git" / "objects" / "ab").write_text("object\n")
    (tree / "sub").mkdir()
    (tree / "sub" / ".git").mkdir()
    (tree / "sub" / ".git" / "HEAD").write_text("ref\n")
    monitor.drain()
    assert monitor.changed_since(point) == {"sub"}
    monitor.close()


def test_an_atomic_writes_temporary_name_is_not_named(tree: Path) -> None:
    # Every walk passes over it as ignored; the file it becomes is named.
    from snapline import atomic

    monitor = started(tree)
    point = monitor.seq
    atomic.write_file(tree / "src" / "pkg" / "mod.py", b"x = 3\n", 0o100644)
    looks_like_one = tree / ".a.snapline-tmp-0123456789abcdef"  # not of ours: tracked
    looks_like_one.write_text("mine\n")
    monitor.drain()
    assert monitor.changed_since(point) == {"src/pkg/mod.py", looks_like_one.name}
    monitor.close()


def test_a_new_tree_is_watched_to_its_leaves(tree: Path) -> None:
    monitor = started(tree)
    (tree / "a" / "b" / "c").mkdir(parents=True)
    monitor.drain()
    point = monitor.seq
    (tree / "a" / "b" / "c" / "f.txt").write_text("deep\n")
    monitor.drain()
    assert monitor.changed_since(point) == {"a/b/c/f.txt"}
    monitor.close()


def test_a_directory_moved_is_watched_at_its_new_place(tree: Path) -> None:
    monitor = started(tree)
    (tree / "src").rename(tree / "lib")
    monitor.drain()
    point = monitor.seq
    (tree / "lib" / "pkg" / "mod.py").write_text("x = 3\n")
    monitor.drain()
    assert monitor.changed_since(point) == {"lib/pkg/mod.py"}
    assert monitor.lost is None
    monitor.close()


def test_a_directory_deleted_is_a_change_not_a_loss(tree: Path) -> None:
    monitor = started(tree)
    point = monitor.seq
    shutil.rmtree(tree / "src")
    monitor.drain()
    assert monitor.lost is None
    assert "src" in (monitor.changed_since(point) or set())
    monitor.close()


def test_a_directory_renamed_over_another_stays_watched(tree: Path) -> None:
    monitor = started(tree)
    (tree / "empty").mkdir()
    monitor.drain()
    os.rename(tree / "src", tree / "empty")  # replaces the empty directory
    monitor.drain()
    point = monitor.seq
    (tree / "empty" / "pkg" / "mod.py").write_text("x = 4\n")
    (tree / "empty" / "new.py").write_text("y = 1\n")
    monitor.drain()
    assert monitor.lost is None
    assert monitor.changed_since(point) == {"empty/pkg/mod.py", "empty/new.py"}
    monitor.close()


def test_the_root_moved_is_a_loss(tree: Path) -> None:
    monitor = started(tree)
    tree.rename(tree.with_name("elsewhere"))
    monitor.drain()
    assert monitor.lost == "the root was deleted or moved"
    assert monitor.changed_since(0) is None
    monitor.close()
    assert monitor.lost == "the root was deleted or moved"  # closing keeps the first why


def test_a_closed_monitor_answers_for_no_point(tree: Path) -> None:
    # Its journal is gone with its watches: "nothing changed" would be a false clean.
    monitor = started(tree)
    point = monitor.seq
    (tree / "top.txt").write_text("new\n")
    monitor.drain()
    monitor.close()
    assert monitor.lost == "closed"
    assert monitor.changed_since(point) is None
    assert monitor.changed_since(monitor.seq) is None


def test_a_folder_s_own_mode_change_names_it(tree: Path) -> None:
    monitor = started(tree)
    point = monitor.seq
    (tree / "src").chmod(0o700)
    monitor.drain()
    assert monitor.changed_since(point) == {"src"}
    monitor.close()


@pytest.mark.parametrize("files", [10, 12], ids=["at-its-limit", "past-it"])
def test_a_journal_answers_each_point_in_full_or_not_at_all(
    tree: Path, monkeypatch: pytest.MonkeyPatch, files: int
) -> None:
    monkeypatch.setattr(monitor_module, "JOURNAL_LIMIT", 10)
    monitor = started(tree)
    point = monitor.seq
    written = [f"f{index}" for index in range(files)]
    for name in written:
        (tree / name).write_text("x\n")
    monitor.drain()
    # At its limit the journal is whole; past it, trimmed: its oldest points are unknown.
    assert monitor.changed_since(point) == (set(written) if files <= 10 else None)
    assert monitor.changed_since(monitor.seq - 2) == set(written[-2:])
    # Any other point is either unknown or answered in full: never a change left out.
    for other in range(point, monitor.seq + 1):
        answer = monitor.changed_since(other)
        assert answer is None or answer == set(written[other - point :])
    monitor.close()


def test_an_overflowing_queue_is_a_loss(tree: Path) -> None:
    # Events past the kernel's queue limit are dropped: the journal can no longer say
    # what changed, and says why (the server logs it).
    monitor = started(tree)
    point = monitor.seq
    many = int(Path("/proc/sys/fs/inotify/max_queued_events").read_text()) // 2 + 1000
    for index in range(many):  # two events a file: create, close
        os.close(os.open(tree / f"f{index}", os.O_WRONLY | os.O_CREAT, 0o644))
    monitor.drain()
    assert monitor.lost == "the event queue overflowed"
    assert monitor.changed_since(point) is None
    monitor.close()


class _Injecting(Inotify):
    """The real inotify, with events a test hands in queued after the kernel's own."""

    def __init__(self, real: Inotify) -> None:
        super().__init__(real._libc, real.fd)
        self.added: list[Event] = []
        self.wds: dict[str, int] = {}

    def add_watch(self, path: str | os.PathLike[str], mask: int) -> int:
        wd = super().add_watch(path, mask)
        self.wds[os.fspath(path)] = wd
        return wd

    def read(self) -> list[Event]:
        events = super().read()
        if not events:
            events, self.added = self.added, []
        return events


@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch) -> list[_Injecting]:
    """Every inotify the monitors open from now on, each an :class:`_Injecting`."""
    opened: list[_Injecting] = []
    real_open = Inotify.open

    def injecting() -> Inotify | None:
        real = real_open()
        assert real is not None
        opened.append(_Injecting(real))
        return opened[-1]

    monkeypatch.setattr(Inotify, "open", injecting)
    return opened


@pytest.mark.parametrize(
    ("mask", "folder", "why"),
    [
        (IN_UNMOUNT, "src", "the watch of src was removed"),
        (IN_IGNORED, "src", "the watch of src was removed"),
        (IN_IGNORED, "", "the watch of the root was removed"),
    ],
)
def test_a_watch_the_kernel_removed_is_a_loss(
    tree: Path, opened: list[_Injecting], mask: int, folder: str, why: str
) -> None:
    # The kernel drops a watch itself when its file system is unmounted (IN_UNMOUNT,
    # then IN_IGNORED). Unmounting takes root, so the events are handed in as the kernel
    # queues them, through the real descriptor's reads.
    monitor = started(tree)
    point = monitor.seq
    (inotify,) = opened
    wd = inotify.wds[os.fspath(tree / folder) if folder else os.fspath(tree)]
    inotify.added = [Event(wd, mask, 0, b"")]
    monitor.drain()
    assert monitor.lost == why
    assert monitor.changed_since(point) is None
    monitor.close()


def test_a_folder_moved_by_a_way_not_watched_is_a_loss(
    tree: Path, opened: list[_Injecting]
) -> None:
    # A move inside the tree retires the folder's watch at its parent's IN_MOVED_FROM,
    # before its own IN_MOVE_SELF; one seen only by the folder came from elsewhere (a
    # bind mount of the tree, say): the journal cannot say where it went.
    monitor = started(tree)
    point = monitor.seq
    (inotify,) = opened
    inotify.added = [Event(inotify.wds[os.fspath(tree / "src")], IN_MOVE_SELF, 0, b"")]
    monitor.drain()
    assert monitor.lost == "src moved unseen"
    assert monitor.changed_since(point) is None
    monitor.close()


@pytest.mark.parametrize(
    ("moved", "to", "written"),
    [("src/pkg", "new/pkg", "new/pkg/mod.py"), ("src", "new/src", "new/src/pkg/mod.py")],
    ids=["the-folder", "its-parent"],
)
def test_a_folder_moved_into_a_new_one_is_watched_at_its_new_place(
    tree: Path, opened: list[_Injecting], moved: str, to: str, written: str
) -> None:
    # The new folder's listing finds the moved one, still watched under its old name
    # (the kernel gives the same watch back), before the move's own events are read:
    # its old parent's IN_MOVED_FROM must not take that watch from the new name, and
    # its own IN_MOVE_SELF is the move just read, no move by a way not watched.
    monitor = started(tree)
    (tree / "new").mkdir()
    os.rename(tree / moved, tree / to)
    monitor.drain()
    point = monitor.seq
    (tree / written).write_text("x = 2\n")
    monitor.drain()
    assert monitor.lost is None
    assert monitor.changed_since(point) == {written}
    # Only that once: a later IN_MOVE_SELF of the same folder came by a way not watched.
    (inotify,) = opened
    inotify.added = [Event(inotify.wds[os.fspath(tree / to)], IN_MOVE_SELF, 0, b"")]
    monitor.drain()
    assert monitor.lost == f"{to} moved unseen"
    monitor.close()


@pytest.mark.parametrize(("moved", "to"), [("src/pkg", "new/pkg"), ("src", "new/src")])
def test_a_second_move_of_that_folder_in_the_same_read_is_a_loss(
    tree: Path, opened: list[_Injecting], moved: str, to: str
) -> None:
    # Its move's own IN_MOVE_SELF is expected once; another, read in the same drain
    # right after it, came by a way not watched.
    monitor = started(tree)
    (inotify,) = opened
    inotify.added = [Event(inotify.wds[os.fspath(tree / moved)], IN_MOVE_SELF, 0, b"")]
    (tree / "new").mkdir()
    os.rename(tree / moved, tree / to)
    monitor.drain()
    assert monitor.lost == f"{to} moved unseen"
    monitor.close()


def test_an_event_of_a_watch_it_never_made_is_a_loss(tree: Path, opened: list[_Injecting]) -> None:
    monitor = started(tree)
    point = monitor.seq
    unknown = max(opened[0].wds.values()) + 100
    opened[0].added = [Event(unknown, IN_MODIFY, 0, b"f")]
    monitor.drain()
    assert monitor.lost == f"an event from an unknown watch ({unknown})"
    assert monitor.changed_since(point) is None
    monitor.close()


def test_too_many_directories_is_a_loss(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(monitor_module, "MOST_DIRECTORIES", 2)
    monitor = TreeMonitor.start(tree)
    assert monitor is not None
    assert monitor.lost is not None and "directories" in monitor.lost
    monitor.close()


def test_a_forked_copy_keeps_the_journal_and_reads_no_queue(tree: Path) -> None:
    monitor = started(tree)
    (tree / "before.txt").write_text("x\n")
    monitor.drain()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        monitor.forget_queue()
        if monitor.fileno() != -1:  # no descriptor left to read, or to wait on
            os._exit(2)
        (tree / "after.txt").write_text("x\n")
        monitor.drain()  # must not steal the parent's events
        os._exit(0 if monitor.changed_since(0) == {"before.txt"} else 1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    monitor.drain()
    assert monitor.changed_since(0) == {"before.txt", "after.txt"}
    monitor.close()


def test_a_symlink_to_a_folder_is_not_watched_through(tree: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (tree / "linked").symlink_to(outside)
    monitor = started(tree)
    point = monitor.seq
    (outside / "elsewhere.txt").write_text("not in the tree\n")
    monitor.drain()
    assert monitor.changed_since(point) == set()
    monitor.close()


def test_a_folder_moved_out_of_the_tree_is_no_longer_watched_below(
    tree: Path, tmp_path: Path
) -> None:
    monitor = started(tree)
    (tree / "src").rename(tmp_path / "gone")
    monitor.drain()
    point = monitor.seq
    (tmp_path / "gone" / "pkg" / "mod.py").write_text("x = 5\n")
    monitor.drain()
    assert monitor.changed_since(point) == set()
    assert monitor.lost is None
    monitor.close()


def test_a_deleted_folder_frees_its_place_among_the_watches(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monitor = started(tree)  # the root, src, src/pkg
    monkeypatch.setattr(monitor_module, "MOST_DIRECTORIES", 4)
    shutil.rmtree(tree / "src" / "pkg")
    monitor.drain()
    (tree / "a").mkdir()
    (tree / "b").mkdir()
    monitor.drain()
    assert monitor.lost is None
    (tree / "c").mkdir()
    monitor.drain()
    assert monitor.lost == "more than 4 directories to watch"
    monitor.close()


def test_a_folder_it_cannot_list_is_a_loss_and_one_gone_is_not(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = os.scandir
    failing: dict[str, OSError] = {}

    def scandir(path: os.PathLike[str]) -> object:
        error = failing.get(os.path.relpath(path, tree))
        if error is not None:
            raise error
        return iter(sorted(real(path), key=lambda entry: entry.name))  # "src" taken first

    monkeypatch.setattr(monitor_module.os, "scandir", scandir)
    (tree / "after").mkdir()
    failing["src"] = FileNotFoundError(2, "No such file or directory")
    monitor = started(tree)  # src vanished between its watch and its listing
    point = monitor.seq
    (tree / "after" / "f.txt").write_text("the others are watched all the same\n")
    monitor.drain()
    assert monitor.changed_since(point) == {"after/f.txt"}
    monitor.close()
    failing["src"] = PermissionError(13, "Permission denied")
    monitor = TreeMonitor.start(tree)
    assert monitor is not None and monitor.lost == "src cannot be listed: Permission denied"
    monitor.close()
    failing["."] = PermissionError(13, "Permission denied")
    monitor = TreeMonitor.start(tree)
    assert monitor is not None and monitor.lost == "the root cannot be listed: Permission denied"
    monitor.close()


@pytest.mark.parametrize(
    "gone",
    [FileNotFoundError(2, "No such file or directory"), NotADirectoryError(20, "Not a directory")],
    ids=["deleted", "a-file-now"],
)
def test_a_folder_gone_before_its_watch_is_passed_over_and_the_others_are_watched(
    tree: Path, monkeypatch: pytest.MonkeyPatch, gone: OSError
) -> None:
    # Between a folder's event (or its listing) and its watch it may be deleted, or a
    # file may take its name: its parent's next event names it, and nothing is lost.
    real_scandir, real_add_watch = os.scandir, Inotify.add_watch
    refused: dict[str, OSError] = {"src": gone}

    def scandir(path: os.PathLike[str]) -> object:
        return iter(sorted(real_scandir(path), key=lambda entry: entry.name))  # "src" first

    def add_watch(inotify: Inotify, path: str | os.PathLike[str], mask: int) -> int:
        error = refused.get(os.path.relpath(path, tree))
        if error is not None:
            raise error
        return real_add_watch(inotify, path, mask)

    monkeypatch.setattr(monitor_module.os, "scandir", scandir)
    monkeypatch.setattr(Inotify, "add_watch", add_watch)
    (tree / "after").mkdir()
    monitor = started(tree)
    point = monitor.seq
    (tree / "after" / "f.txt").write_text("watched all the same\n")
    monitor.drain()
    assert monitor.lost is None
    assert monitor.changed_since(point) == {"after/f.txt"}
    monitor.close()


@pytest.mark.parametrize(("folder", "named"), [("src", "src"), (".", "the root")])
def test_a_folder_the_kernel_will_not_watch_is_a_loss_that_names_it(
    tree: Path, monkeypatch: pytest.MonkeyPatch, folder: str, named: str
) -> None:
    # The user's watch limit (fs.inotify.max_user_watches, shared with editors) is
    # ENOSPC: the monitor cannot answer, and says which folder and why.
    real_add_watch = Inotify.add_watch

    def add_watch(inotify: Inotify, path: str | os.PathLike[str], mask: int) -> int:
        if os.path.relpath(path, tree) == folder:
            raise OSError(28, "No space left on device")
        return real_add_watch(inotify, path, mask)

    monkeypatch.setattr(Inotify, "add_watch", add_watch)
    monitor = TreeMonitor.start(tree)
    assert monitor is not None
    assert monitor.lost == f"{named} cannot be watched: No space left on device"
    assert monitor.changed_since(monitor.seq) is None
    monitor.close()


def test_a_queue_it_cannot_read_is_a_loss(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monitor = started(tree)
    point = monitor.seq

    def read(inotify: Inotify) -> list[Event]:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(Inotify, "read", read)
    monitor.drain()
    assert monitor.lost == "the queue cannot be read: Input/output error"
    assert monitor.changed_since(point) is None
    monitor.close()
