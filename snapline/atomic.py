"""The one primitive that writes into the workspace.

Every file snapline puts into a workspace goes through :func:`write_file` (or a
:class:`WriteBatch`): a temporary file in the same directory, write, fsync, rename,
then fsync the directory so the rename is durable. An abort removes the temporary file,
so a reader sees either the old content or the new one, never a torn file.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from pathlib import Path
from typing import NamedTuple

from snapline.overlap import in_parallel
from snapline.temp_names import TEMP_MARKER, is_temp_name, temp_name, temp_prefix

__all__ = [
    "TEMP_MARKER",
    "Staged",
    "WriteBatch",
    "is_temp_name",
    "move_file",
    "remove_file",
    "sync_directory",
    "temp_name",
    "temp_prefix",
    "write_file",
    "write_local",
]

# Git-style file modes: the only ones a snapshot records.
_EXECUTABLE = 0o100755
_SYMLINK = 0o120000


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
    for directory in dict.fromkeys(_write_in_place(path, data, mode).changed):
        _fsync(directory)


def write_local(path: Path, data: bytes) -> None:
    """Replace ``path`` with ``data`` atomically but not durably: temp file, rename.

    For a file of a clone's local state that is only ever a shortcut (the monitor's
    token): after a crash a reader finds the old content, the new, or none, never a
    torn file, and each of those only makes it look at more. Not for history or content.
    """
    temp = _write_temp(path, data, 0o100644, sync=False)
    _rename_or_remove(temp, path)


def _rename_or_remove(temp: Path, path: Path) -> None:
    # The temporary file takes the name, or goes: never left behind beside the file.
    try:
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp)
        raise


def _write_in_place(path: Path, data: bytes, mode: int) -> _Changes:
    # write_file but for the fsync of the directories, which is the caller's.
    changes = _make_parents(path)
    if _replace_directory_with_file(path):
        changes.removed.append(path)
    temp = _write_temp(path, data, mode, sync=True)
    _rename_or_remove(temp, path)
    changes.changed.append(path.parent)
    return changes


def _write_temp(path: Path, data: bytes, mode: int, *, sync: bool) -> Path:
    temp = _temp_name(path)
    if mode == _SYMLINK:
        os.symlink(os.fsdecode(data), temp)
        return temp
    perms = _permissions(path, executable=mode == _EXECUTABLE)
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _O_NOFOLLOW, perms)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            if sync:
                os.fsync(handle.fileno())
        # O_CREAT's mode is only applied to new inodes and filtered by the umask; set
        # it explicitly so the executable bit round-trips exactly.
        os.chmod(temp, perms)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp)
        raise
    return temp


def move_file(source: Path, target: Path) -> None:
    """Rename a file or symlink (never what it points to) to ``target``, durably.

    Both must be on one filesystem (the journal parks files inside the workspace's own
    store directory). Missing parents of ``target`` are created; whatever file stood at
    ``target`` is replaced.
    """
    changes = _make_parents(target)
    _replace_directory_with_file(target)
    os.replace(source, target)
    for directory in changes.changed:
        _fsync(directory)
    _fsync(target.parent)
    if source.parent != target.parent:
        _fsync(source.parent)


def remove_file(path: Path, *, root: Path | None = None) -> None:
    """Remove a file or symlink durably, then prune directories it leaves empty.

    Args:
        path: The file to remove; a missing file is not an error.
        root: When given, empty parent directories are removed up to (not including) it.
    """
    for directory in _remove(path, root).changed:
        _fsync(directory)


class _Changes:
    """What one write or removal did to directories: those to fsync, those it removed."""

    __slots__ = ("changed", "removed")

    def __init__(self) -> None:
        self.changed: list[Path] = []
        self.removed: list[Path] = []


def _remove(path: Path, root: Path | None) -> _Changes:
    """:func:`remove_file` but for the fsync: the directory to fsync, and those removed."""
    changes = _Changes()
    try:
        os.unlink(path)
    except FileNotFoundError:
        return changes
    parent = path.parent
    while root is not None and parent != root and root in parent.parents:
        try:
            os.rmdir(parent)
        except OSError:
            break
        changes.removed.append(parent)
        parent = parent.parent
    changes.changed.append(parent)
    return changes


class Staged(NamedTuple):
    """A file written under a temporary name (``temp``) beside its target (``path``)."""

    path: Path
    temp: Path


class WriteBatch:
    """Many files written as git's ``core.fsyncMethod=batch`` writes objects.

    A batch writes every content under a temporary name (:meth:`stage`), fsyncs them
    all at once (:meth:`sync`), renames them into place in the caller's order
    (:meth:`place`, :meth:`remove`, :meth:`write` for a file not staged) and fsyncs each
    changed directory once (:meth:`finish`): temp, fsync, rename, fsync the directory,
    as :func:`write_file`, but sharing the waits. A journal covers a crash meanwhile.
    """

    def __init__(self) -> None:
        self._staged: list[Staged] = []
        self._directories: dict[Path, None] = {}

    def stage(self, path: Path, data: bytes, mode: int) -> Staged | None:
        """Write ``data`` under a temporary name beside ``path``; nothing visible changes.

        Args:
            path: The destination (its parent is checked, never created).
            data: The new content.
            mode: A git-style mode, as :func:`write_file` takes.

        Returns:
            The staged file; ``None`` when something must change first (the parent is
            not a directory yet, a directory stands at ``path``): use :meth:`write`.
        """
        if not stat.S_ISDIR(_lstat_mode(path.parent)) or stat.S_ISDIR(_lstat_mode(path)):
            return None
        staged = Staged(path, _write_temp(path, data, mode, sync=False))
        self._staged.append(staged)
        return staged

    def sync(self) -> None:
        """Fsync every staged file, several at a time; call before the first :meth:`place`."""
        in_parallel(_fsync, [s.temp for s in self._staged if not s.temp.is_symlink()])

    def place(self, *staged: Staged) -> None:
        """Rename staged files into place, several at a time (so in no particular order)."""
        in_parallel(lambda item: os.replace(item.temp, item.path), staged)
        for item in staged:
            self._staged.remove(item)
            self._directories[item.path.parent] = None

    def write(self, path: Path, data: bytes, mode: int) -> None:
        """Write a file that could not be staged now, as :func:`write_file` does."""
        self._note(_write_in_place(path, data, mode))

    def remove(self, path: Path, *, root: Path | None = None) -> None:
        """Remove a file, as :func:`remove_file` does."""
        self._note(_remove(path, root))

    def _note(self, changes: _Changes) -> None:
        # A directory the batch removed (emptied by a removal, or replaced by a file)
        # is no longer there to fsync: its parent, noted instead, makes the removal
        # durable. One created again later in the batch is noted again by that write.
        for directory in changes.removed:
            self._directories.pop(directory, None)
        for directory in changes.changed:
            self._directories[directory] = None

    def finish(self) -> None:
        """Fsync every directory a rename or removal changed, once each (``OSError``)."""
        in_parallel(_fsync, list(self._directories))
        self._directories.clear()

    def abort(self) -> None:
        """Remove every staged file not placed yet (after a failure)."""
        for staged in self._staged:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(staged.temp)
        self._staged.clear()


def sync_directory(directory: str | Path) -> None:
    """Make the entries of ``directory`` (a rename into it) durable: fsync the directory.

    The one directory sync of snapline, the workspace's writer's and the store's: a
    filesystem that cannot fsync a directory at all (``EINVAL``, ``ENOTSUP``: some
    network and FUSE ones) is no write error.

    Args:
        directory: The directory whose entries changed.

    Raises:
        OSError: If the filesystem reports a failure (not merely no support for it).
    """
    _fsync(directory)


_O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


def _lstat_mode(path: Path) -> int:
    try:
        return os.lstat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):
        return 0


def _temp_name(path: Path) -> Path:
    return path.with_name(temp_name(path.name))


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


def _make_parents(path: Path) -> _Changes:
    """Create the missing parents of ``path``; the directories whose entries changed."""
    changes = _Changes()
    parent = path.parent
    if parent.is_dir():
        return changes
    missing = [parent]
    while not missing[-1].parent.is_dir():
        missing.append(missing[-1].parent)
    with contextlib.suppress(FileNotFoundError):
        # A file (or a link to nothing) standing where a directory must go: the version
        # being written has a directory there. Only the topmost missing directory can
        # exist as something else, since nothing lies beneath a file.
        if not stat.S_ISDIR(os.lstat(missing[-1]).st_mode):
            os.unlink(missing[-1])
    parent.mkdir(parents=True, exist_ok=True)
    # Each new directory is an entry in the one above it: durable once that is fsynced.
    changes.changed.extend(directory.parent for directory in reversed(missing))
    return changes


def _replace_directory_with_file(path: Path) -> bool:
    """Remove an (empty) directory standing at ``path``; whether there was one."""
    # A directory standing where a file must go can only be replaced when it is empty:
    # anything inside it is data that the caller must deal with first.
    with contextlib.suppress(FileNotFoundError):
        if stat.S_ISDIR(os.lstat(path).st_mode):
            os.rmdir(path)
            return True
    return False


# What a filesystem answers when it cannot open or fsync a directory (or file) at all
# (some network and FUSE filesystems); nothing better can be done there than to go on.
_DIR_SYNC_UNSUPPORTED = frozenset(
    {errno.EINVAL, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EBADF, errno.EACCES, errno.EPERM}
)


def _fsync(path: str | Path) -> None:
    # Durable only once fsynced. Other failures (EIO, ENOSPC) are raised, as SQLite does:
    # the caller's journal then puts the file back rather than report a lost write.
    try:
        fd = os.open(path, os.O_RDONLY)
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
