"""Exact pictures of a workspace tree, for comparing before and after a rollback or revert."""

from __future__ import annotations

import os
import stat
from pathlib import Path

Entry = tuple[str, bytes]
"""(``link``, ``exec`` or ``file``; content, or the link target)."""


def files(root: Path, skip: tuple[str, ...] = (".snapline", ".git")) -> dict[str, Entry]:
    """Every file and symlink under ``root`` with its type and bytes (links not followed)."""
    result: dict[str, Entry] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        rel_dir = Path(dirpath).relative_to(root).as_posix()
        if rel_dir == ".":
            dirnames[:] = [d for d in dirnames if d not in skip]
        names = [*filenames, *(d for d in dirnames if os.path.islink(os.path.join(dirpath, d)))]
        for name in names:
            path = os.path.join(dirpath, name)
            rel = name if rel_dir == "." else f"{rel_dir}/{name}"
            info = os.lstat(path)
            if stat.S_ISLNK(info.st_mode):
                result[rel] = ("link", os.fsencode(os.readlink(path)))
            else:
                kind = "exec" if info.st_mode & stat.S_IXUSR else "file"
                result[rel] = (kind, Path(path).read_bytes())
    return dict(sorted(result.items()))


def stats(root: Path, skip: tuple[str, ...] = (".snapline",)) -> dict[str, tuple[int, int, int]]:
    """(mtime_ns, inode, mode) of every entry under ``root``, directories included."""
    result = {}
    for dirpath, dirnames, filenames in os.walk(root):
        rel_dir = Path(dirpath).relative_to(root).as_posix()
        if rel_dir == ".":
            dirnames[:] = [d for d in dirnames if d not in skip]
        for name in [*dirnames, *filenames]:
            info = os.lstat(os.path.join(dirpath, name))
            rel = name if rel_dir == "." else f"{rel_dir}/{name}"
            result[rel] = (info.st_mtime_ns, info.st_ino, info.st_mode)
    return result
