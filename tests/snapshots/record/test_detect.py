"""The whole-workspace check: the stat cache vouches for unchanged files, and only for them.

Files written by a test are younger than the racy window, so the stat cache would never
trust them; these tests shrink the window to zero to exercise the trusted path.
"""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from snapline import ChangeKind, Workspace
from snapline.scanning.tracked import TrackedTree, index_tracked
from snapline.snapshots.record import detect as detect_module


@pytest.fixture
def trusting(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """A zero racy window, and the paths the check reads (hashes) meanwhile."""
    monkeypatch.setattr(detect_module, "RACY_WINDOW_NS", 0)
    read: list[str] = []
    original = detect_module.read_disk_file

    def counting(path: str | Path, relpath: str, *args: object, **kwargs: object):  # type: ignore[no-untyped-def]
        read.append(relpath)
        return original(path, relpath, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(detect_module, "read_disk_file", counting)
    yield read


@pytest.fixture
def wide(root: Path) -> Iterator[Workspace]:
    """A workspace of a few directories, an ignored one holding a tracked file."""
    for index in range(12):
        (root / f"pkg{index % 3}").mkdir(exist_ok=True)
        (root / f"pkg{index % 3}/mod{index}.py").write_text(f"value = {index}\n")
    (root / "build").mkdir()
    (root / "build/kept.txt").write_text("tracked before the rule\n")
    workspace = Workspace.init(root)
    (root / ".gitignore").write_text("build/\n")
    workspace.record()
    yield workspace
    workspace.close()


def _settle(ws: Workspace, read: list[str]) -> None:
    """One check to hash what is new in the stat cache, then start counting afresh."""
    assert ws.check_sync().ok
    read.clear()


def test_unchanged_files_are_not_read(wide: Workspace, trusting: list[str]) -> None:
    _settle(wide, trusting)
    assert wide.check_sync().ok
    assert wide.record() is None
    assert trusting == []


def test_a_same_size_rewrite_is_read_and_recorded(wide: Workspace, trusting: list[str]) -> None:
    _settle(wide, trusting)
    target = wide.root / "pkg1/mod4.py"
    before = target.stat()
    target.write_text("value = 9\n")  # the same size as before
    os.utime(target, ns=(before.st_atime_ns, before.st_mtime_ns + 1_000_000_000))
    assert [p.path for p in wide.check_sync().problems] == ["pkg1/mod4.py"]
    assert trusting == ["pkg1/mod4.py"]
    snap = wide.record()
    assert snap is not None and [f.path for f in snap.files] == ["pkg1/mod4.py"]


def test_a_changed_mode_is_recorded(wide: Workspace, trusting: list[str]) -> None:
    _settle(wide, trusting)
    target = wide.root / "pkg0/mod0.py"
    target.chmod(target.stat().st_mode | stat.S_IXUSR)
    snap = wide.record()
    assert snap is not None
    assert [(f.path, f.kind) for f in snap.files] == [("pkg0/mod0.py", ChangeKind.MODIFIED)]


def test_a_tracked_file_in_an_ignored_directory_is_still_checked(
    wide: Workspace, trusting: list[str]
) -> None:
    _settle(wide, trusting)
    assert wide.check_sync().ok and trusting == []  # vouched for, though not walked
    (wide.root / "build/kept.txt").write_text("changed under an ignore rule\n")
    (wide.root / "build/new.txt").write_text("ignored\n")
    assert [p.path for p in wide.check_sync().problems] == ["build/kept.txt"]


def test_a_file_replaced_by_a_directory_is_deleted(wide: Workspace, trusting: list[str]) -> None:
    _settle(wide, trusting)
    os.remove(wide.root / "pkg2/mod5.py")
    (wide.root / "pkg2/mod5.py").mkdir()
    (wide.root / "pkg2/mod5.py/inner.py").write_text("x = 1\n")
    os.remove(wide.root / "pkg0/mod3.py")
    snap = wide.record()
    assert snap is not None
    assert {f.path: f.kind for f in snap.files} == {
        "pkg0/mod3.py": ChangeKind.DELETED,
        "pkg2/mod5.py": ChangeKind.DELETED,
        "pkg2/mod5.py/inner.py": ChangeKind.ADDED,
    }
    assert wide.check_sync().ok


def test_a_scoped_check_of_a_file_replaced_by_a_directory_says_it_is_deleted(
    wide: Workspace,
) -> None:
    # What the warm server's monitor names after such a replacement: the path alone.
    # The whole walk says the file is deleted; a check of that path said only what
    # lies inside the directory.
    os.remove(wide.root / "pkg2/mod5.py")
    (wide.root / "pkg2/mod5.py").mkdir()
    (wide.root / "pkg2/mod5.py/inner.py").write_text("x = 1\n")
    whole = [(p.kind, p.path) for p in wide.check_sync().problems]
    assert whole == [("deleted", "pkg2/mod5.py"), ("untracked", "pkg2/mod5.py/inner.py")]
    assert [(p.kind, p.path) for p in wide.check_sync(["pkg2/mod5.py"]).problems] == whole


def test_a_commit_by_another_process_is_seen(wide: Workspace, trusting: list[str]) -> None:
    _settle(wide, trusting)
    other = Workspace.open(wide.root)
    try:
        other.delete_file("pkg1/mod1.py")
        other.write_file("pkg1/extra.py", "added = True\n")
    finally:
        other.close()
    # A tree kept from before would call pkg1/mod1.py deleted and extra.py untracked.
    assert wide.check_sync().ok
    assert wide.record() is None


def test_a_commit_of_its_own_is_seen(wide: Workspace, trusting: list[str]) -> None:
    _settle(wide, trusting)
    wide.delete_file("pkg2/mod2.py")
    wide.write_file("pkg2/extra.py", "added = True\n")
    assert wide.check_sync().ok
    assert wide.record() is None


def test_a_scoped_check_vouches_too(wide: Workspace, trusting: list[str]) -> None:
    _settle(wide, trusting)
    assert wide.check_sync(["pkg0", "pkg1/mod1.py"]).ok
    assert trusting == []
    (wide.root / "pkg0/mod6.py").write_text("value = 'six'\n")
    os.remove(wide.root / "pkg1/mod1.py")
    problems = {p.path: p.kind for p in wide.check_sync(["pkg0", "pkg1/mod1.py"]).problems}
    assert problems == {"pkg0/mod6.py": "modified", "pkg1/mod1.py": "deleted"}


def test_the_kept_tree_matches_a_fresh_one_after_every_operation(
    wide: Workspace, trusting: list[str]
) -> None:
    recorder = wide._recorder  # the cache is internal; this compares it with the store
    store = recorder.store

    def fresh() -> TrackedTree:
        return index_tracked(store.stat_cache.fingerprints(detect_module.RACY_WINDOW_NS))

    def check() -> None:
        assert wide.check_sync().ok
        with store.read():
            assert recorder.tracked.tree(store, detect_module.RACY_WINDOW_NS) == fresh()

    check()
    wide.write_file("pkg0/new.py", "new = 1\n")
    check()
    wide.move_file("pkg0/new.py", "pkg1/moved.py")
    check()
    wide.delete_file("pkg2/mod2.py")
    check()
    (wide.root / "pkg1/mod1.py").write_text("outside = True\n")
    os.remove(wide.root / "pkg0/mod0.py")
    assert wide.record() is not None
    check()
    wide.rollback(1)
    check()
    other = Workspace.open(wide.root)
    try:
        other.write_file("pkg2/by_other.py", "other = 1\n")
        other.delete_file("pkg1/mod4.py")
    finally:
        other.close()
    check()
    time.sleep(0.01)
    check()
