"""The walk itself: what it reports against the tracked files' stats, and what it skips, and why.

Every check of the workspace starts here: a file the walk wrongly vouches for is drift
nobody sees, a tracked file it forgets to call missing is a deletion nobody records. The
directory errors (unreadable, gone, too deep for the OS) are made with a ``scandir`` that
raises them, as root can read any directory.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from snapline.scanning import MODE_EXECUTABLE, MODE_FILE, MODE_SYMLINK, IgnoreRules, scan
from snapline.scanning.tracked import expected_stat, index_tracked
from snapline.temp_names import temp_name

_UNREADABLE = "unreadable directory"
_UNREACHABLE = "unreachable: the path is too long for the operating system"
_NOT_A_FILE = "not a regular file or symlink"


def _write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)


def _key(path: Path) -> tuple[int, int, int, int]:
    info = os.lstat(path)
    return (info.st_size, info.st_mtime_ns, info.st_ino, info.st_ctime_ns)


def test_against_the_tracked_stats_only_what_changed_is_reported(tmp_path: Path) -> None:
    root = tmp_path
    _write(root, {
        ".gitignore": "*.log\nbuild/\nout/\n", "out": "a file: out/ is for folders\n",
        "top-gone.txt": "gone\n", "same.txt": "same\n", "changed.txt": "v1\n",
        "sub/same.txt": "same\n", "sub/changed.txt": "v1\n", "sub/gone.txt": "gone\n",
        "sub/nowdir": "a file, then a directory\n", "tracked.log": "tracked, ignored\n",
        "edited.log": "v1\n", "untrusted.txt": "no stat vouches for it\n",
        "mode.sh": "echo\n",
    })  # fmt: skip
    (root / "link").symlink_to("same.txt")
    (root / "dirlink").symlink_to("sub")  # a file to the walk, never followed
    rows = [(".gitignore", MODE_FILE, _key(root / ".gitignore")),
            ("link", MODE_SYMLINK, _key(root / "link")),
            ("untrusted.txt", MODE_FILE, None),
            # Recorded as executable, still 0644 on disk: only its mode differs.
            ("mode.sh", MODE_EXECUTABLE, _key(root / "mode.sh"))]  # fmt: skip
    for path in ["same.txt", "changed.txt", "sub/same.txt", "sub/changed.txt", "sub/gone.txt",
                 "sub/nowdir", "tracked.log", "edited.log", "top-gone.txt"]:  # fmt: skip
        rows.append((path, MODE_FILE, _key(root / path)))
    tracked = index_tracked(rows)
    assert tracked[""]["same.txt"] == expected_stat(os.lstat(root / "same.txt"))
    assert tracked[""]["link"] == expected_stat(os.lstat(root / "link"))
    assert tracked[""]["untrusted.txt"] is None
    for path in ["changed.txt", "sub/changed.txt", "edited.log"]:
        (root / path).write_text("v2, longer\n")
    (root / "sub" / "gone.txt").unlink()
    (root / "top-gone.txt").unlink()
    (root / "sub" / "nowdir").unlink()
    _write(root, {"sub/nowdir/inside.txt": "x\n", "new.txt": "new\n", "ignored.log": "i\n",
                  "build/out.o": "o\n"})  # fmt: skip
    os.mkfifo(root / "fifo")

    found = scan(root, IgnoreRules(root), tracked=tracked)
    reported = ["changed.txt", "dirlink", "edited.log", "mode.sh", "new.txt",
                "out", "sub/changed.txt", "sub/nowdir/inside.txt", "untrusted.txt"]  # fmt: skip
    assert sorted(found.files) == reported
    for path, info in found.files.items():
        now = os.lstat(root / path)
        assert (info.st_ino, info.st_size, info.st_mode) == (now.st_ino, now.st_size, now.st_mode)
    assert sorted(found.missing) == ["sub/gone.txt", "sub/nowdir", "top-gone.txt"]
    # A tracked file is never matched against ignore rules, as in git.
    assert sorted(found.ignored) == ["build/", "ignored.log"]
    assert found.skipped == [("fifo", _NOT_A_FILE)]
    assert found.listed == {"", "sub", "sub/nowdir"}
    assert found.names == []

    # Without stats kept, the files found are only named; a tracked one that changed
    # keeps the stat the walk took to compare it.
    names = scan(root, IgnoreRules(root), tracked=tracked, keep_stats=False)
    assert sorted(names.names) == ["dirlink", "new.txt", "out", "sub/nowdir/inside.txt"]
    assert sorted(names.files) == sorted(set(reported) - set(names.names))
    untracked = scan(root, IgnoreRules(root))
    assert sorted(untracked.files) == [
        ".gitignore", "changed.txt", "dirlink", "link", "mode.sh", "new.txt", "out", "same.txt",
        "sub/changed.txt", "sub/nowdir/inside.txt", "sub/same.txt", "untrusted.txt",
    ]  # fmt: skip
    assert untracked.missing == []
    assert sorted(untracked.ignored) == ["build/", "edited.log", "ignored.log", "tracked.log"]


def test_a_walk_under_a_folder_applies_the_rules_of_the_folders_above(tmp_path: Path) -> None:
    _write(tmp_path, {
        ".gitignore": "*.tmp\n", "a/.gitignore": "!keep.tmp\n*.bak\n",
        "a/b/.gitignore": "!keep.bak\n", "a/b/c/x.tmp": "", "a/b/c/keep.tmp": "",
        "a/b/c/y.bak": "", "a/b/c/keep.bak": "", "a/b/c/d/e.txt": "", "a/other.txt": "",
    })  # fmt: skip
    found = scan(tmp_path, IgnoreRules(tmp_path), under="a/b/c")
    assert sorted(found.files) == ["a/b/c/d/e.txt", "a/b/c/keep.bak", "a/b/c/keep.tmp"]
    assert sorted(found.ignored) == ["a/b/c/x.tmp", "a/b/c/y.bak"]
    assert found.listed == {"a/b/c", "a/b/c/d"}


class _Entry:
    """A directory entry whose ``stat`` raises what the test asks for."""

    def __init__(self, entry: os.DirEntry[str], error: OSError | None) -> None:
        self._entry = entry
        self._error = error
        self.name = entry.name

    def is_dir(self, *, follow_symlinks: bool = True) -> bool:
        return self._entry.is_dir(follow_symlinks=follow_symlinks)

    def stat(self, *, follow_symlinks: bool = True) -> os.stat_result:
        if self._error is not None:
            raise self._error
        return self._entry.stat(follow_symlinks=follow_symlinks)


def _failing_scandir(
    monkeypatch: pytest.MonkeyPatch,
    root: Path,
    listing: dict[str, OSError],
    stats: dict[str, OSError] | None = None,
) -> None:
    """``os.scandir`` of the folders in ``listing`` raises; entries in ``stats`` fail to stat.

    Entries come in reverse name order, so the walk's stack takes the first name first.
    """
    real = os.scandir

    def scandir(path: Any) -> Iterator[Any]:
        rel = os.path.relpath(path, root).replace(os.sep, "/")
        rel = "" if rel == "." else rel
        if rel in listing:
            raise listing[rel]
        entries = sorted(real(path), key=lambda e: e.name, reverse=True)
        failing = stats or {}
        return iter([_Entry(e, failing.get(f"{rel}/{e.name}" if rel else e.name)) for e in entries])

    monkeypatch.setattr(os, "scandir", scandir)


def _too_long(path: str) -> OSError:
    return OSError(errno.ENAMETOOLONG, os.strerror(errno.ENAMETOOLONG), path)


def test_folders_it_cannot_list_are_named_and_the_walk_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _write(tmp_path, {"a/locked/f": "", "b/gone/f": "", "c/deep/f": "", "d/f": "", "top": ""})
    _failing_scandir(monkeypatch, tmp_path, {
        "a/locked": PermissionError(errno.EACCES, "Permission denied"),
        "b/gone": FileNotFoundError(errno.ENOENT, "No such file or directory"),
        "c/deep": _too_long("c/deep"),
    })  # fmt: skip
    found = scan(tmp_path, IgnoreRules(tmp_path))
    assert sorted(found.files) == ["d/f", "top"]
    assert found.skipped == [("a/locked", _UNREADABLE), ("c/deep", _UNREACHABLE)]
    assert found.listed == {"", "a", "b", "c", "d"}


def test_the_root_it_cannot_list_is_named_as_dot(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _failing_scandir(monkeypatch, tmp_path, {"": PermissionError(errno.EACCES, "denied")})
    assert scan(tmp_path, IgnoreRules(tmp_path)).skipped == [(".", _UNREADABLE)]
    _failing_scandir(monkeypatch, tmp_path, {"": _too_long(os.fspath(tmp_path))})
    assert scan(tmp_path, IgnoreRules(tmp_path)).skipped == [(".", _UNREACHABLE)]


def test_any_other_error_listing_a_folder_is_raised(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "d").mkdir()
    _failing_scandir(monkeypatch, tmp_path, {"d": OSError(errno.EIO, "I/O error")})
    with pytest.raises(OSError, match="I/O error"):
        scan(tmp_path, IgnoreRules(tmp_path))


def test_entries_it_cannot_stat(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Listed in reverse order of name (_failing_scandir): a-after comes after b-vanished.
    _write(tmp_path, {"d/y-deep": "", "d/b-vanished": "", "d/c-kept": "", "d/d-tracked-deep": "",
                      "d/e-tracked-vanished": "", "d/f-tracked": "", "top-deep": "",
                      "d/a-after": ""})  # fmt: skip
    rows = [(f"d/{name}", MODE_FILE, _key(tmp_path / "d" / name))
            for name in ("d-tracked-deep", "e-tracked-vanished", "f-tracked")]  # fmt: skip
    rows.append(("top-deep", MODE_FILE, _key(tmp_path / "top-deep")))
    gone = FileNotFoundError(errno.ENOENT, "No such file or directory")
    _failing_scandir(monkeypatch, tmp_path, {}, {
        "d/y-deep": _too_long("d/y-deep"), "d/b-vanished": gone,
        "d/d-tracked-deep": _too_long("d/d-tracked-deep"), "d/e-tracked-vanished": gone,
        "top-deep": _too_long("top-deep"),
    })  # fmt: skip
    found = scan(tmp_path, IgnoreRules(tmp_path), tracked=index_tracked(rows))
    # A name that vanished leaves the folder's later names to read.
    assert sorted(found.files) == ["d/a-after", "d/c-kept"]
    assert found.skipped == [
        ("top-deep", _UNREACHABLE), ("d/y-deep", _UNREACHABLE), ("d/d-tracked-deep", _UNREACHABLE),
    ]  # fmt: skip
    # Out of reach is not gone: only the one that vanished is missing.
    assert found.missing == ["d/e-tracked-vanished"]

    for broken in ("d/y-deep", "d/d-tracked-deep"):
        _failing_scandir(monkeypatch, tmp_path, {}, {broken: OSError(errno.EIO, "I/O error")})
        with pytest.raises(OSError, match="I/O error"):
            scan(tmp_path, IgnoreRules(tmp_path), tracked=index_tracked(rows))


def test_built_in_entries_are_left_out_unreported_and_look_alikes_are_kept(tmp_path: Path) -> None:
    ours = temp_name("app.py")  # what an atomic write left behind (a crash)
    _write(tmp_path, {
        "sub/.git/HEAD": "", "sub/.snapline/lock": "", f"sub/{ours}": "",
        # A user's files that merely look like ours.
        "sub/.a.snapline-tmp-0123456789abcdef": "", "sub/notes.snapline-tmp-x.txt": "",
        "sub/app.py": "",
    })  # fmt: skip
    rules = IgnoreRules(tmp_path)
    found = scan(tmp_path, rules)
    assert sorted(found.files) == [
        "sub/.a.snapline-tmp-0123456789abcdef", "sub/app.py", "sub/notes.snapline-tmp-x.txt",
    ]  # fmt: skip
    assert found.ignored == []
    assert rules.builtin("sub/.git") and rules.builtin(f"sub/{ours}")
    assert not rules.builtin("sub/notes.snapline-tmp-x.txt")
    assert rules.is_ignored(f"sub/{ours}") and not rules.is_ignored("sub/app.py")
