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

It is started by the third check in a process (a one-shot command checks twice at most:
as it opens, and a record under the writer lock; it never needs one), and closed with
the store. Where inotify is missing (another OS, no instances
left), there is no watch and every check lists, as before.
"""

from __future__ import annotations

import os
import threading
import weakref
from collections.abc import Collection

from snapline import atomic
from snapline.scanning.inotify import (
    IN_CREATE,
    IN_DELETE,
    IN_DELETE_SELF,
    IN_DONT_FOLLOW,
    IN_IGNORED,
    IN_MOVE_SELF,
    IN_MOVED_FROM,
    IN_MOVED_TO,
    IN_ONLYDIR,
    IN_Q_OVERFLOW,
    IN_UNMOUNT,
    Inotify,
)
from snapline.store.ledger.files import KINDS, Ledger

__all__ = ["LedgerWatch"]

_ENTRIES = IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO
_MASK = _ENTRIES | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR | IN_DONT_FOLLOW
_LOST = IN_DELETE_SELF | IN_MOVE_SELF | IN_UNMOUNT | IN_Q_OVERFLOW | IN_IGNORED
_ADDED = IN_CREATE | IN_MOVED_TO


class LedgerWatch:
    """An inotify watch on a ledger's folders of records; see the module docstring.

    Use :meth:`start`, then :meth:`quiet` before each check and :meth:`close` at the end.
    """

    def __init__(
        self, inotify: Inotify, ledger: Ledger, watched: dict[int, tuple[str, int, int]]
    ) -> None:
        self._inotify = inotify
        self._fd = inotify.fd
        self._ledger = ledger
        self._watched = watched  # watch descriptor -> (folder, st_dev, st_ino)
        self._pid = os.getpid()
        self._lock = threading.Lock()
        self._dirty = False
        # A workspace dropped without close() must not keep an inotify instance (a
        # user has 128 by default).
        self._finalizer = weakref.finalize(self, inotify.close)

    @classmethod
    def start(cls, ledger: Ledger) -> LedgerWatch | None:
        """Watch ``ledger``'s folders of records; ``None`` where that cannot be done.

        Start it *before* the listing it is to vouch for: a change between the two then
        shows as an event, and the next check lists again.
        """
        inotify = Inotify.open()
        if inotify is None:
            return None  # no inotify here, or no instances left: list
        watched: dict[int, tuple[str, int, int]] = {}
        try:
            for folder in ("", *KINDS):
                path = ledger.path / folder if folder else ledger.path
                try:
                    st = os.lstat(path)
                except FileNotFoundError:
                    continue  # its creation shows in ledger/
                wd = inotify.add_watch(path, _MASK)
                watched[wd] = (folder, st.st_dev, st.st_ino)
        except OSError:
            inotify.close()
            return None
        return cls(inotify, ledger, watched)

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
                events = self._inotify.read()
            except OSError:
                self._dirty = True
                return
            if not events:
                return
            for event in events:
                if not self._expected(event.wd, event.mask, os.fsdecode(event.name), ours):
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
