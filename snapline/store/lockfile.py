"""A lock file: an exclusive ``flock`` on one file, held per thread, re-entrant.

What snapline used the ``filelock`` package for, with the same semantics: the lock is
an advisory ``flock`` on an open file (so it interoperates with ``filelock.FileLock``
on the same path, and the operating system releases it when its process dies); each
thread holds it on its own open file description, so threads of one process take
turns as processes do, and re-entry is counted per thread; waiting polls every 50 ms
until the timeout. The lock file is created when missing (with its directory) and
left in place on release. That package's import costs a one-command process about
as much as opening the store does (48M instructions, callgrind), for the one call
used here.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import threading
import time

__all__ = ["FileLock", "LockTimeout"]

_POLL = 0.05
"""Seconds between attempts while another holder has the lock."""

# Some filesystems say EACCES rather than EWOULDBLOCK for a lock held elsewhere.
_HELD_ELSEWHERE = frozenset({errno.EACCES, errno.EAGAIN, errno.EWOULDBLOCK})

# O_NOFOLLOW: a symlink planted at the lock's name is refused, never followed.
# O_NONBLOCK: a lease on the file would otherwise block the open past the timeout.
_OPEN_FLAGS = os.O_RDWR | os.O_CREAT | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0)


class LockTimeout(TimeoutError):
    """The lock was held by another process (or thread) for longer than the timeout.

    Attributes:
        lock_file: The path of the lock file.
    """

    def __init__(self, lock_file: str) -> None:
        self.lock_file = lock_file
        super().__init__(f"the lock {lock_file} could not be acquired")


class FileLock:
    """An exclusive lock on ``lock_file``, re-entrant and held per thread.

    Args:
        lock_file: The path of the lock file.
        timeout: Seconds :meth:`acquire` waits by default (negative: forever).
    """

    def __init__(self, lock_file: str, timeout: float) -> None:
        self.lock_file = lock_file
        self.timeout = timeout
        self._local = threading.local()
        self._pid = os.getpid()

    @property
    def lock_counter(self) -> int:
        """How many times the calling thread holds the lock (0: not at all)."""
        counter: int = getattr(self._local, "counter", 0)
        return counter

    @property
    def is_locked(self) -> bool:
        """Whether the calling thread holds the lock."""
        return getattr(self._local, "fd", None) is not None

    def acquire(self, timeout: float | None = None) -> _Acquired:
        """Take the lock (again, if this thread holds it already).

        Args:
            timeout: Seconds to wait for another holder (default: the lock's own;
                0: one attempt; negative: forever).

        Returns:
            A context manager that releases it once at the end of the block.

        Raises:
            LockTimeout: If another holder kept it past the timeout.
            OSError: If the lock file cannot be opened or locked (a directory in its
                place, permissions, a filesystem without ``flock``).
            RuntimeError: In a child process that inherited this lock through ``fork``.
        """
        if os.getpid() != self._pid:
            raise RuntimeError(
                f"the lock on {self.lock_file} was inherited across fork; make a new one"
            )
        local = self._local
        if getattr(local, "fd", None) is not None:
            local.counter += 1
            return _Acquired(self)
        wait = self.timeout if timeout is None else timeout
        os.makedirs(os.path.dirname(self.lock_file) or ".", exist_ok=True)
        start = time.perf_counter()
        while True:
            fd = self._attempt()
            if fd is not None:
                local.fd, local.counter = fd, 1
                return _Acquired(self)
            waited = time.perf_counter() - start
            if 0 <= wait <= waited:
                raise LockTimeout(self.lock_file)
            time.sleep(_POLL if wait < 0 else min(_POLL, wait - waited))

    def release(self) -> None:
        """Release the lock once; the file is unlocked when the thread's count reaches 0."""
        local = self._local
        fd = getattr(local, "fd", None)
        if fd is None:
            return
        local.counter -= 1
        if local.counter > 0:
            return
        fcntl.flock(fd, fcntl.LOCK_UN)
        local.fd = None
        # Once unlocked, a failing close (EIO on some mounts) does not hold the lock.
        with contextlib.suppress(OSError):
            os.close(fd)

    def __enter__(self) -> FileLock:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()

    def _attempt(self) -> int | None:
        """One try: the locked descriptor, or ``None`` when another holder has the lock."""
        try:
            fd = os.open(self.lock_file, _OPEN_FLAGS, 0o666)
        except BlockingIOError:
            return None  # a lease is being broken: someone else's, so wait
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as error:
            os.close(fd)
            if error.errno in _HELD_ELSEWHERE:
                return None
            raise
        if os.fstat(fd).st_nlink == 0:
            # The file was unlinked between the open and the lock: it guards no name.
            os.close(fd)
            return None
        return fd


class _Acquired:
    """What :meth:`FileLock.acquire` returns: ``with lock.acquire(): ...`` releases once."""

    def __init__(self, lock: FileLock) -> None:
        self._lock = lock

    def __enter__(self) -> FileLock:
        return self._lock

    def __exit__(self, *exc: object) -> None:
        self._lock.release()
