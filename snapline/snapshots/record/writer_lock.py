"""The writer lock: one file lock in the local state directory that serialises every writer.

An advisory lock on ``lock`` there (``.snapline/lock``, or ``.git/snapline/lock`` for a
history on git's refs: :func:`snapline.state_dir.state_dir`); flock: held per open file,
released by the operating system when its process dies. Thread-local, so threads of one
process take turns as processes do, and re-entry is counted per thread.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

from snapline.state_dir import state_dir
from snapline.store import StoreAccessError, StoreBusyError, StoreCorruptError, access_problem
from snapline.store.lockfile import FileLock, LockTimeout

__all__ = ["LOCK_NAME", "held", "writer_lock"]

LOCK_NAME = "lock"


def writer_lock(root: Path, timeout: float) -> FileLock:
    """The writer lock of the workspace at ``root``, waiting at most ``timeout`` seconds."""
    # Held per thread: each thread holds the lock on its own open file description, so
    # threads of one process take turns like processes do (flock), and re-entry
    # counts per thread. Shared across threads, a second thread would "re-enter"
    # another's lock and two writers would race for the same number.
    return FileLock(str(state_dir(root) / LOCK_NAME), timeout=timeout)


@contextlib.contextmanager
def held(lock: FileLock, store_path: Path, timeout: float) -> Iterator[None]:
    """Hold ``lock`` for the block, saying what went wrong in the store's terms.

    Raises:
        StoreBusyError: If another process holds the lock past the timeout.
        StoreCorruptError: If something replaced the lock file (a directory).
        StoreAccessError: If the operating system refuses it (permissions, space).
    """
    try:
        lock.acquire()
    except LockTimeout:
        raise StoreBusyError(store_path, timeout) from None
    except OSError as error:
        location = Path(lock.lock_file)
        if isinstance(error, IsADirectoryError):
            raise StoreCorruptError(location, str(error)) from None
        # Not writable, no space: the OS refused, the store is not known damaged.
        raise StoreAccessError(location, access_problem(error), str(error)) from None
    try:
        yield
    finally:
        lock.release()
