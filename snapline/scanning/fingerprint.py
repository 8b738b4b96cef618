"""File identity on disk: git-style modes, stat fingerprints and hashing.

A stat-cache entry remembers (size, mtime_ns, inode, ctime_ns, mode) → hash, as git's
index does. It is trusted only while the file's timestamps are safely older than the
moment it was hashed: a file written within the same timestamp tick as its hashing could
change again without changing its stat ("racy git"), so such entries are rehashed.
"""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path
from typing import NamedTuple

from snapline.errors import SnaplineError
from snapline.hashing import hash_bytes, hash_stream

__all__ = [
    "MODE_EXECUTABLE",
    "MODE_FILE",
    "MODE_SYMLINK",
    "RACY_WINDOW_NS",
    "DiskFile",
    "FileChangingError",
    "git_mode",
    "read_disk_file",
    "same_stat",
]

MODE_FILE = 0o100644
MODE_EXECUTABLE = 0o100755
MODE_SYMLINK = 0o120000

RACY_WINDOW_NS = 2_000_000_000
"""How much older than its hashing a file must be for its cache entry to be trusted.

Two seconds covers the coarsest timestamp granularity in common use (FAT)."""

_RETRIES = 3


class FileChangingError(SnaplineError):
    """A file kept changing while it was being read, so no consistent content exists."""

    path: str

    def _message(self) -> str:
        return (
            f"{self.path} changed while it was being read; wait for the writer to finish "
            "and record again"
        )


class DiskFile(NamedTuple):
    """One file as found on disk.

    ``content`` is ``None`` when the file is above the large-file limit (tracked by hash
    only) or when the caller did not ask for it.
    """

    path: str
    hash: str
    mode: int
    size: int
    content: bytes | None
    stat: os.stat_result
    large: bool = False


def git_mode(info: os.stat_result) -> int | None:
    """The git-style mode of a stat result, or ``None`` for anything we do not track."""
    if stat.S_ISLNK(info.st_mode):
        return MODE_SYMLINK
    if stat.S_ISREG(info.st_mode):
        return MODE_EXECUTABLE if info.st_mode & stat.S_IXUSR else MODE_FILE
    return None


def same_stat(a: os.stat_result, b: os.stat_result) -> bool:
    """Whether two ``lstat`` results describe the same unchanged file (git's rule)."""
    return (
        a.st_size == b.st_size
        and a.st_mtime_ns == b.st_mtime_ns
        and a.st_ino == b.st_ino
        and a.st_ctime_ns == b.st_ctime_ns
        and a.st_mode == b.st_mode
    )


def read_disk_file(
    path: str | Path, relpath: str, info: os.stat_result, *, large_limit: int, want_content: bool
) -> DiskFile:
    """Read and hash one file, retrying while it changes under us.

    Args:
        path: Where the file is.
        relpath: Its workspace-relative path (for messages).
        info: Its ``lstat`` taken before reading.
        large_limit: Files larger than this are hashed in a stream and not kept.
        want_content: Whether to keep the content in the result.

    Raises:
        FileChangingError: If the file changed during every attempt to read it.
        PermissionError: If it cannot be read.
        FileNotFoundError: If it vanished.
    """
    for _ in range(_RETRIES):
        mode = git_mode(info)
        if mode is None:
            raise FileNotFoundError(relpath)
        if mode == MODE_SYMLINK:
            content = os.fsencode(os.readlink(path))
            digest, size, large = hash_bytes(content), len(content), False
        elif info.st_size > large_limit:
            with open(path, "rb") as handle:
                digest, size = hash_stream(handle)
            content, large = None, True
        else:
            with open(path, "rb") as handle:
                content = handle.read()
            digest, size, large = hash_bytes(content), len(content), False
        after = os.lstat(path)
        # Stat before and after: a file rewritten while we read it would give torn
        # content under a hash nobody ever saw on disk.
        if same_stat(info, after) and size == after.st_size:
            return DiskFile(
                path=relpath,
                hash=digest,
                mode=mode,
                size=size,
                content=content if want_content else None,
                stat=after,
                large=large,
            )
        info = after
        time.sleep(0.01)
    raise FileChangingError(relpath)
