"""Linux inotify through ctypes: the kernel's queue of directory events, no thread.

The low-level wrapper the work tree's watcher uses (``scanning/monitor.py``). It
starts no thread (watchdog's observer does, and the warm server forks: a forked
thread's locks are held by nobody), reads without blocking, and says ``None`` where
inotify is missing (another OS, no instances left); its callers then look at the disk
instead, as they would without it.
"""

from __future__ import annotations

import contextlib
import os
import struct
import sys
from typing import Any, NamedTuple

__all__ = [
    "IN_ATTRIB",
    "IN_CLOSE_WRITE",
    "IN_CREATE",
    "IN_DELETE",
    "IN_DELETE_SELF",
    "IN_DONT_FOLLOW",
    "IN_IGNORED",
    "IN_ISDIR",
    "IN_MODIFY",
    "IN_MOVED_FROM",
    "IN_MOVED_TO",
    "IN_MOVE_SELF",
    "IN_ONLYDIR",
    "IN_Q_OVERFLOW",
    "IN_UNMOUNT",
    "Event",
    "Inotify",
]

IN_MODIFY = 0x00000002
IN_ATTRIB = 0x00000004
IN_CLOSE_WRITE = 0x00000008
IN_MOVED_FROM = 0x00000040
IN_MOVED_TO = 0x00000080
IN_CREATE = 0x00000100
IN_DELETE = 0x00000200
IN_DELETE_SELF = 0x00000400
IN_MOVE_SELF = 0x00000800
IN_UNMOUNT = 0x00002000
IN_Q_OVERFLOW = 0x00004000
IN_IGNORED = 0x00008000
IN_ONLYDIR = 0x01000000
IN_DONT_FOLLOW = 0x02000000
IN_ISDIR = 0x40000000

_HEADER = struct.Struct("iIII")


class Event(NamedTuple):
    """One queued event: the watch, what happened, the rename cookie, the entry's name."""

    wd: int
    mask: int
    cookie: int
    name: bytes


def _libc() -> Any:
    if not sys.platform.startswith("linux"):
        return None
    # Imported here: only a process that watches loads ctypes, and a one-shot command
    # must not pay for it (tests/cli/test_hot_paths.py).
    import ctypes

    try:
        # The interpreter's own symbols: libc is loaded already (no library search,
        # which would run ldconfig).
        libc = ctypes.CDLL(None, use_errno=True)
        libc.inotify_init1.argtypes = [ctypes.c_int]
        libc.inotify_add_watch.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_uint32]
        libc.inotify_rm_watch.argtypes = [ctypes.c_int, ctypes.c_int]
    except (OSError, AttributeError):
        return None
    return libc


class Inotify:
    """One inotify instance, non-blocking and closed on exec.

    Use :meth:`open`; then :meth:`add_watch`, :meth:`read` until it returns nothing,
    and :meth:`close`.
    """

    def __init__(self, libc: Any, fd: int) -> None:
        self._libc = libc
        self.fd = fd

    @classmethod
    def open(cls) -> Inotify | None:
        """A new instance; ``None`` where inotify cannot be had."""
        libc = _libc()
        if libc is None:
            return None
        fd = libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
        if fd < 0:
            return None  # no instances left (fs.inotify.max_user_instances)
        return cls(libc, fd)

    def add_watch(self, path: str | os.PathLike[str], mask: int) -> int:
        """Watch ``path`` for ``mask``; the watch descriptor (the same for the same inode).

        Raises:
            OSError: With the kernel's errno (``ENOSPC``: the user's watch limit).
        """
        wd = int(self._libc.inotify_add_watch(self.fd, os.fsencode(path), mask))
        if wd < 0:
            import ctypes

            number = ctypes.get_errno()
            raise OSError(number, os.strerror(number), os.fspath(path))
        return wd

    def rm_watch(self, wd: int) -> None:
        """Stop a watch (an ``IN_IGNORED`` event for it follows); gone already is fine."""
        self._libc.inotify_rm_watch(self.fd, wd)

    def read(self) -> list[Event]:
        """The events queued now, without waiting (empty: none).

        Raises:
            OSError: The instance cannot be read (closed, say).
        """
        try:
            data = os.read(self.fd, 65536)
        except BlockingIOError:
            return []
        events = []
        offset = 0
        while offset + _HEADER.size <= len(data):
            wd, mask, cookie, length = _HEADER.unpack_from(data, offset)
            offset += _HEADER.size
            events.append(Event(wd, mask, cookie, data[offset : offset + length].rstrip(b"\0")))
            offset += length
        return events

    def close(self) -> None:
        """Close the instance (idempotent)."""
        if self.fd >= 0:
            with contextlib.suppress(OSError):
                os.close(self.fd)
            self.fd = -1
