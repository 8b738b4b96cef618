"""The ledger's folders of records watched by a long-lived process (Linux inotify).

A process that keeps a workspace open (an agent's library calls, the MCP server, watch)
asks before every record whether the ledger still holds exactly the files the index
names (``sync._in_step``). A listing answers exactly, in time proportional to the
history; a stamp of the folders cannot (every record changes the folder, and a change
by another program in the same clock tick would not show: see ``listed.py``). The
kernel's own account of the folders can: an inotify watch queues an event for every
entry created, deleted or renamed in a watched folder, by any program, before the
system call that made the change returns. A process that drained the queue and found
only its own publications knows the listing it last compared is still the listing.

The watch is trusted only while it can be:

- it watches ``ledger/`` and each folder of records that exists; a folder created or
  removed shows as an event in ``ledger/``;
- a watched folder deleted or moved, an overflowing queue, the watch removed: any of
  these events, and the answer is "look again" (a listing);
- the paths are checked to still name the watched folders (device and inode): a
  ``ledger/`` or ``.snapline/`` moved away and replaced sends no event to the old one;
- a forked child does not read its parent's queue (it would steal the parent's events).

It is started by the second check in a process (one-shot commands check once and never
need it), and closed with the store. Where inotify is missing (another OS, no instances
left), there is no watch and every check lists, as before.
"""

from __future__ import annotations

import contextlib
import os
import struct
import sys
import threading
import weakref
from collections.abc import Collection
from typing import Any

from snapline import atomic
from snapline.store.ledger.files import KINDS, Ledger

__all__ = ["LedgerWatch"]

_IN_MOVED_FROM = 0x00000040
_IN_MOVED_TO = 0x00000080
_IN_CREATE = 0x00000100
_IN_DELETE = 0x00000200
_IN_DELETE_SELF = 0x00000400
_IN_MOVE_SELF = 0x00000800
_IN_UNMOUNT = 0x00002000
_IN_Q_OVERFLOW = 0x00004000
_IN_IGNORED = 0x00008000
_IN_ONLYDIR = 0x01000000
_IN_DONT_FOLLOW = 0x02000000
_IN_NONBLOCK = os.O_NONBLOCK
_IN_CLOEXEC = os.O_CLOEXEC

_ENTRIES = _IN_CREATE | _IN_DELETE | _IN_MOVED_FROM | _IN_MOVED_TO
_MASK = _ENTRIES | _IN_DELETE_SELF | _IN_MOVE_SELF | _IN_ONLYDIR | _IN_DONT_FOLLOW
_LOST = _IN_DELETE_SELF | _IN_MOVE_SELF | _IN_UNMOUNT | _IN_Q_OVERFLOW | _IN_IGNORED
_ADDED = _IN_CREATE | _IN_MOVED_TO
_HEADER = struct.Struct("iIII")


def _libc() -> Any:
    if not sys.platform.startswith("linux"):
        return None
    # Imported here: only a process that checks twice (a long-lived one) watches, and
    # a one-shot command must not pay for ctypes (tests/cli/test_hot_paths.py).
    import ctypes

    try:
        # The interpreter's own symbols: libc is loaded already (no library search,
        # which would run ldconfig).
        libc = ctypes.CDLL(None, use_errno=True)
        libc.inotify_init1.argtypes = [ctypes.c_int]
        libc.inotify_add_watch.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_uint32]
    except (OSError, AttributeError):
        return None
    return libc


def _errno() -> int:
    import ctypes

    return ctypes.get_errno()


class LedgerWatch:
    """An inotify watch on a ledger's folders of records; see the module docstring.

    Use :meth:`start`, then :meth:`quiet` before each check and :meth:`close` at the end.
    """

    def __init__(self, fd: int, ledger: Ledger, watched: dict[int, tuple[str, int, int]]) -> None:
        self._fd = fd
        self._ledger = ledger
        self._watched = watched  # watch descriptor -> (folder, st_dev, st_ino)
        self._pid = os.getpid()
        self._lock = threading.Lock()
        self._dirty = False
        # A workspace dropped without close() must not keep an inotify instance (a
        # user has 128 by default).
        self._finalizer = weakref.finalize(self, _close_quietly, fd)

    @classmethod
    def start(cls, ledger: Ledger) -> LedgerWatch | None:
        """Watch ``ledger``'s folders of records; ``None`` where that cannot be done.

        Start it *before* the listing it is to vouch for: a change between the two then
        shows as an event, and the next check lists again.
        """
        libc = _libc()
        if libc is None:
            return None
        fd = libc.inotify_init1(_IN_NONBLOCK | _IN_CLOEXEC)
        if fd < 0:
            return None  # no instances left (fs.inotify.max_user_instances): list
        watched: dict[int, tuple[str, int, int]] = {}
        try:
            for folder in ("", *KINDS):
                path = ledger.path / folder if folder else ledger.path
                try:
                    st = os.lstat(path)
                except FileNotFoundError:
                    continue  # its creation shows in ledger/
                wd = libc.inotify_add_watch(fd, os.fsencode(path), _MASK)
                if wd < 0:
                    raise OSError(_errno(), "inotify_add_watch")
                watched[wd] = (folder, st.st_dev, st.st_ino)
        except OSError:
            os.close(fd)
            return None
        return cls(fd, ledger, watched)

    def quiet(self, ours: Collection[str]) -> bool:
        """Whether nothing but ``ours`` was added to the folders since :meth:`start`.

        Args:
            ours: Names this process published since (snapshot and milestone files).

        Returns:
            ``False`` when anything else changed, or when the watch cannot say: then
            list, and :meth:`start` a new watch.
        """
        if os.getpid() != self._pid:
            return False  # a forked child: the queue is its parent's
        with self._lock:
            if self._fd < 0:
                return False
            self._drain(ours)
            if self._dirty:
                return False
        for folder, dev, ino in self._watched.values():
            path = self._ledger.path / folder if folder else self._ledger.path
            try:
                st = os.lstat(path)
            except OSError:
                return False
            if (st.st_dev, st.st_ino) != (dev, ino):
                return False  # moved away and replaced: the watch sees the old one
        return True

    def _drain(self, ours: Collection[str]) -> None:
        while True:
            try:
                data = os.read(self._fd, 65536)
            except BlockingIOError:
                return
            except OSError:
                self._dirty = True
                return
            offset = 0
            while offset + _HEADER.size <= len(data):
                wd, mask, _cookie, length = _HEADER.unpack_from(data, offset)
                offset += _HEADER.size
                raw = data[offset : offset + length].rstrip(b"\0")
                offset += length
                if not self._expected(wd, mask, os.fsdecode(raw), ours):
                    self._dirty = True

    def _expected(self, wd: int, mask: int, name: str, ours: Collection[str]) -> bool:
        if mask & _LOST or wd not in self._watched:
            return False
        if self._watched[wd][0] == "":
            # In ledger/ itself only the folders of records matter to a listing.
            return name not in KINDS
        if atomic.is_temp_name(name):
            return True  # a write's temporary file: no listing counts it
        return bool(mask & _ADDED) and name in ours

    def close(self) -> None:
        """Stop watching (idempotent)."""
        with self._lock:
            self._finalizer()
            self._fd = -1


def _close_quietly(fd: int) -> None:
    with contextlib.suppress(OSError):
        os.close(fd)
