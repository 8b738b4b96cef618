"""Path safety: nothing recorded or given by a caller may leave the root."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from snapline.paths import UnsafePathError, check_relpath, disk_path, relpath_from_user


@pytest.mark.parametrize(
    "path",
    [
        "",
        "/etc/passwd",
        "../x",
        "a/../../x",
        "a//b",
        "./a",
        ".snapline/store.db",
        "a/\x00",
    ],
)
def test_unsafe_recorded_paths_are_refused(path: str) -> None:
    with pytest.raises(UnsafePathError) as caught:
        check_relpath(path)
    assert caught.value.path == path


@pytest.mark.parametrize(
    "path",
    # Backslashes and drive-like colons are ordinary characters in a POSIX name (issue 14).
    ["a", "a/b.txt", ".gitignore", "a/.snapline", "ü/ß", "a\\b", "C:/x", "c:notes.txt", "..\\x"],
)
def test_safe_paths_pass(path: str) -> None:
    assert check_relpath(path) == path


def test_user_paths_are_made_relative(tmp_path: Path) -> None:
    assert relpath_from_user(tmp_path, tmp_path / "a" / "b") == "a/b"
    assert relpath_from_user(tmp_path, "a/./c/../b") == "a/b"
    with pytest.raises(UnsafePathError):
        relpath_from_user(tmp_path, tmp_path.parent / "elsewhere")
    with pytest.raises(UnsafePathError):
        relpath_from_user(tmp_path, "../outside")
    with pytest.raises(UnsafePathError):
        relpath_from_user(tmp_path, ".")


def test_disk_path_refuses_a_symlinked_parent(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    root = tmp_path / "root"
    root.mkdir()
    os.symlink(outside, root / "link")
    with pytest.raises(UnsafePathError):
        disk_path(root, "link/file")
    assert disk_path(root, "real/file") == root / "real" / "file"
