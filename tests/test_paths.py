"""Path safety: nothing recorded or given by a caller may leave the root."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from snapline.paths import (
    UnsafePathError,
    check_relpath,
    disk_path,
    inside_git_dir,
    relpath_from_user,
)


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


def _inside_git_dir_by_parts(path: str) -> bool:
    """The rule itself: a part that is ``.git`` once case and trailing dots are ignored."""
    return any(part.rstrip(" .").casefold() == ".git" for part in path.split("/"))


def test_inside_git_dir_is_the_rule_for_any_code_point_in_any_place() -> None:
    # Every code point of the first planes in each place of ".git" and beside it (the
    # answer is found without splitting a path whose folding holds no ".git").
    for point in [*range(0x3000), 0x130, 0x131, 0x17F, 0x212A, 0xFF27, 0x10400]:
        char = chr(point)
        for path in (
            f".{char}it", f".g{char}t", f".gi{char}", f"{char}.git", f".git{char}",
            f"a/.GIT{char}/b", f"a/{char}/.Git. /b",
        ):  # fmt: skip
            assert inside_git_dir(path) == _inside_git_dir_by_parts(path), (hex(point), path)
    assert inside_git_dir("src/.GIT. /config")
    assert not inside_git_dir("src/.github/workflows/ci.yml")
