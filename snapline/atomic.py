"""The one primitive that writes into the workspace.

Every file snapline puts into a workspace goes through :func:`write_file`: a temporary
file in the same directory, write, flush, fsync, ``os.replace``, then fsync the
directory so the rename itself is durable. An abort removes the temporary file, so a
reader sees either the old content or the new one, never a torn file.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from pathlib import Path

__all__ = [
    "TEMP_MARKER",
    "is_temp_name",
    "move_file",
    "remove_file",
    "sync_directory",
    "write_file",
    "write_symlink",
]

TEMP_MARKER = ".snapline-tmp-"

# Git-style file modes: the only ones a snapshot records.
_EXECUTABLE = 0o100755
_SYMLINK = 0o120000


def is_temp_name(name: str) -> bool:
    """Whether a directory entry is one of our temporary files (left by a crash)."""
    return TEMP_MARKER in name


def write_file(path: Path, data: bytes, mode: int) -> None:
    """Atomically replace ``path`` with ``data``.

    Args:
        path: Destination; its parent directories are created when missing.
        data: The new content.
        mode: A git-style mode (``0o100644``, ``0o100755`` or ``0o120000`` for a symlink,
            whose target is ``data``).

    A regular file that is replaced keeps its permission bits (a 0600 ``.env`` stays
    0600, a 0700 script 0700); only the executable bits follow ``mode``, as git's do:
    added where the file is readable, or all removed. A new file gets the umask's
    defaults (0666 or 0777 filtered by the umask).
    """
    if mode == _SYMLINK:
        write_symlink(path, os.fsdecode(data))
        return
    _make_parents(path)
    _replace_directory_with_file(path)
    temp = _temp_name(path)
    perms = _permissions(path, executable=mode == _EXECUTABLE)
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _O_NOFOLLOW, perms)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        # O_CREAT's mode is only applied to new inodes and filtered by the umask; set
        # it explicitly so the executable bit round-trips exactly.
        os.chmod(temp, perms)
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp)
        raise
    _fsync_dir(path.parent)


def write_symlink(path: Path, target: str) -> None:
    """Atomically make ``path`` a symlink to ``target`` (never following an old link)."""
    _make_parents(path)
    _replace_directory_with_file(path)
    temp = _temp_name(path)
    os.symlink(target, temp)
    try:
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp)
        raise
    _fsync_dir(path.parent)


def move_file(source: Path, target: Path) -> None:
    """Rename a file or symlink (never what it points to) to ``target``, durably.

    Both must be on one filesystem (the journal parks files inside the workspace's own
    store directory). Missing parents of ``target`` are created; whatever file stood at
    ``target`` is replaced.
    """
    _make_parents(target)
    _replace_directory_with_file(target)
    os.replace(source, target)
    _fsync_dir(target.parent)
    if source.parent != target.parent:
        _fsync_dir(source.parent)


def remove_file(path: Path, *, root: Path | None = None) -> None:
    """Remove a file or symlink durably, then prune directories it leaves empty.

    Args:
        path: The file to remove; a missing file is not an error.
        root: When given, empty parent directories are removed up to (not including) it.
    """
    try:
        os.unlink(path)
    except FileNotFoundError:
        return
    _fsync_dir(path.parent)
    if root is None:
        return
    parent = path.parent
    while parent != root and root in parent.parents:
        try:
            os.rmdir(parent)
        except OSError:
            break
        parent = parent.parent


def sync_directory(directory: Path) -> None:
    """Make the entries of ``directory`` (a rename into it) durable: fsync the directory.

    Raises:
        OSError: If the filesystem reports a failure (not merely no support for it).
    """
    _fsync_dir(directory)


_O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


def _temp_name(path: Path) -> Path:
    return path.with_name(f".{path.name}{TEMP_MARKER}{secrets.token_hex(4)}")


def _permissions(path: Path, *, executable: bool) -> int:
    try:
        info = os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        info = None
    if info is None or not stat.S_ISREG(info.st_mode):
        return (0o777 if executable else 0o666) & ~_umask()
    bits = stat.S_IMODE(info.st_mode)
    if executable == bool(bits & stat.S_IXUSR):
        return bits
    if executable:
        # Executable by whoever may read it, as ``chmod +x`` does under a 0 umask.
        return bits | ((bits & 0o444) >> 2)
    return bits & ~0o111


def _make_parents(path: Path) -> None:
    parent = path.parent
    if not parent.is_dir():
        with contextlib.suppress(FileNotFoundError):
            # A file standing where a directory must go (the file was replaced by a
            # directory in the version being written).
            if not stat.S_ISDIR(os.lstat(parent).st_mode):
                os.unlink(parent)
        parent.mkdir(parents=True, exist_ok=True)


def _replace_directory_with_file(path: Path) -> None:
    # A directory standing where a file must go can only be replaced when it is empty:
    # anything inside it is data that the caller must deal with first.
    with contextlib.suppress(FileNotFoundError):
        if stat.S_ISDIR(os.lstat(path).st_mode):
            os.rmdir(path)


# What a filesystem answers when it cannot open or fsync a directory at all (some
# network and FUSE filesystems); nothing better can be done there than to go on.
_DIR_SYNC_UNSUPPORTED = frozenset(
    {errno.EINVAL, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EBADF, errno.EACCES, errno.EPERM}
)


def _fsync_dir(directory: Path) -> None:
    # The rename is only durable once the directory entry is on disk. Any other failure
    # (EIO, ENOSPC) is raised, as SQLite treats a failed fsync: the caller's journal then
    # puts the file back instead of reporting a write that may never reach the disk.
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError as error:
        if error.errno in _DIR_SYNC_UNSUPPORTED:
            return
        raise
    try:
        os.fsync(fd)
    except OSError as error:
        if error.errno not in _DIR_SYNC_UNSUPPORTED:
            raise
    finally:
        os.close(fd)


def _umask() -> int:
    # os.umask can only be read by setting it; this is safe at our call sites because
    # it is restored immediately and snapline does not create files from threads.
    mask = os.umask(0o022)
    os.umask(mask)
    return mask
