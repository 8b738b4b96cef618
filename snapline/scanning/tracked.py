"""The tracked files a walk compares against, indexed by directory.

A whole-workspace check looks at every tracked file, and almost all of them are
unchanged. Handing the walk each directory's tracked names with the ``lstat`` they are
expected to have lets it vouch for an unchanged file on the spot: no path string, no
ignore matching (git applies ignore rules to untracked files only), nothing kept.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from pathlib import Path

from snapline.scanning.fingerprint import MODE_EXECUTABLE, MODE_FILE, MODE_SYMLINK

__all__ = [
    "STAT_MODE_BITS",
    "Expected",
    "TrackedTree",
    "expected_stat",
    "index_tracked",
    "sweep",
]

STAT_MODE_BITS = stat.S_IFMT(0o177777) | stat.S_IXUSR
"""The ``st_mode`` bits a git-style mode depends on: the file type and the owner's x bit."""

_MODE_BITS = {
    MODE_FILE: stat.S_IFREG,
    MODE_EXECUTABLE: stat.S_IFREG | stat.S_IXUSR,
    # lstat reports a symlink's permissions as 0777 where they cannot be set (Linux);
    # where they can differ, the file is merely hashed again, never trusted wrongly.
    MODE_SYMLINK: stat.S_IFLNK | stat.S_IXUSR,
}

Expected = tuple[int, int, int, int, int]
"""``(size, mtime_ns, ino, ctime_ns, st_mode & STAT_MODE_BITS)`` of an unchanged file."""

TrackedTree = dict[str, dict[str, Expected | None]]
"""Directory (``""`` for the root) -> tracked name -> the stat that vouches for it
(``None``: tracked, but its stat is not trusted, so it must be read)."""


def expected_stat(info: os.stat_result) -> Expected:
    """What :data:`Expected` a file with this ``lstat`` matches."""
    return (
        info.st_size,
        info.st_mtime_ns,
        info.st_ino,
        info.st_ctime_ns,
        info.st_mode & STAT_MODE_BITS,
    )


def index_tracked(
    rows: Iterable[tuple[str, int, tuple[int, int, int, int] | None]],
) -> TrackedTree:
    """Index ``(path, git mode, trusted (size, mtime_ns, ino, ctime_ns) or None)`` rows."""
    tree: TrackedTree = {}
    for path, mode, key in rows:
        reldir, _, name = path.rpartition("/")
        bits = _MODE_BITS.get(mode)
        expected = None if key is None or bits is None else (*key, bits)
        names = tree.get(reldir)
        if names is None:
            names = tree[reldir] = {}
        names[name] = expected
    return tree


def sweep(
    root: Path, rows: Iterable[tuple[str, int | None, int | None]]
) -> tuple[set[str], set[str]]:
    """``lstat`` every tracked file by its path (no directory read): which to look at.

    The check of a file-system monitor's journal misses what no event in the tree
    reports: a write through a hard link made from outside the tree (the kernel reports
    a link count's change to the file's own watches only, never to its directory's). The
    file's own ``lstat`` shows it all the same (a write, a change of mode and a new or
    removed link each move its ctime; a file put in its place has another inode), as
    git's index compares every tracked file's stat.

    Args:
        root: The workspace root.
        rows: ``(path, ino, ctime_ns)`` of every tracked file, ``None`` where no stat
            vouches for it (``StatCacheTable.stamps``).

    Returns:
        ``(moved, linked)``: the paths whose ``lstat`` is not the one that vouches for
        them (changed, gone, replaced, or with no trusted stat), and those with more
        than one link (a write through another name may come with no event).
    """
    top = os.fspath(root) + os.sep
    moved: set[str] = set()
    linked: set[str] = set()
    lstat = os.lstat
    for path, ino, ctime_ns in rows:
        try:
            info = lstat(top + path)
        except OSError:
            moved.add(path)  # gone, or its parent is no directory now: the check says which
            continue
        if info.st_nlink > 1:
            linked.add(path)
        if info.st_ctime_ns != ctime_ns or info.st_ino != ino:
            moved.add(path)
    return moved, linked
