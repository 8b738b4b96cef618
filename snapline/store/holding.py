"""The store's lock file held for a block; a lock held elsewhere too long is a busy store."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

from snapline.store.errors import StoreBusyError
from snapline.store.lockfile import FileLock, LockTimeout

__all__ = ["holding"]


@contextlib.contextmanager
def holding(lock_path: Path, location: Path, timeout: float) -> Iterator[None]:
    """Hold the lock file ``lock_path`` for the block, waiting up to ``timeout`` for it.

    Args:
        lock_path: The lock file.
        location: What the lock guards, as the error names it (the store, the index).
        timeout: Seconds to wait for another process holding the lock.

    Raises:
        StoreBusyError: If another process held the lock past ``timeout``.
    """
    lock = FileLock(str(lock_path), timeout=timeout)
    try:
        lock.acquire()
    except LockTimeout:
        raise StoreBusyError(location, timeout) from None
    try:
        yield
    finally:
        lock.release()
