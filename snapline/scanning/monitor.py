"""A work tree watched without a gap: the paths that changed since a point, or "unknown".

As git's fsmonitor daemon and Watchman: a long-lived process (the warm server) watches
every directory of a workspace with inotify and keeps a journal of the paths the kernel
reported, each with a sequence number. A check that knows the number it last looked at
(its *token*, kept by ``snapshots/record/monitored.py``) asks :meth:`TreeMonitor.changed_since`
and gets every path that may differ since then, or ``None``: then it walks the whole tree.

A path in the journal stands for itself and everything below it (a directory created,
moved in or deleted is checked whole). The watch is trusted only while it can be:

- every directory is watched before it is listed, so an entry created in between shows
  as an event, and a directory created or moved in is watched, then listed, the same way;
- ``.git`` and ``.snapline`` directories are not watched: no walk looks inside them
  (their own names, created or removed, still show in their parent);
- the monitor is *lost* for good (every answer ``None``), and its owner starts a new one,
  on an overflowing queue, a watch the kernel removed without a deletion (an unmount),
  the root deleted or moved, a directory that cannot be watched (the user's watch limit,
  a directory without read permission, more than :data:`MOST_DIRECTORIES`), an event
  from a watch it does not know, or a journal trimmed past the point asked about.

It never reads the queue in a forked child (the queue is its parent's): a child keeps the
journal as it was at the fork (:meth:`TreeMonitor.forget_queue`). It starts no thread.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

from snapline.paths import STORE_DIR
from snapline.scanning.inotify import (
    IN_ATTRIB,
    IN_CLOSE_WRITE,
    IN_CREATE,
    IN_DELETE,
    IN_DELETE_SELF,
    IN_DONT_FOLLOW,
    IN_IGNORED,
    IN_ISDIR,
    IN_MODIFY,
    IN_MOVE_SELF,
    IN_MOVED_FROM,
    IN_MOVED_TO,
    IN_ONLYDIR,
    IN_Q_OVERFLOW,
    IN_UNMOUNT,
    Event,
    Inotify,
)
from snapline.temp_names import TEMP_MARKER, is_temp_name

__all__ = ["JOURNAL_LIMIT", "MOST_DIRECTORIES", "TreeMonitor"]

JOURNAL_LIMIT = 200_000
"""Journal entries kept; beyond it the older half goes, and so do tokens before it."""
MOST_DIRECTORIES = 50_000
"""Watches one monitor may hold: a watch is the user's to share with every other program
(editors watch too; 8,192 in all on some systems), so a bigger tree is walked instead."""

_MASK = (
    IN_MODIFY
    | IN_ATTRIB
    | IN_CLOSE_WRITE
    | IN_CREATE
    | IN_DELETE
    | IN_MOVED_FROM
    | IN_MOVED_TO
    | IN_DELETE_SELF
    | IN_MOVE_SELF
    | IN_ONLYDIR
    | IN_DONT_FOLLOW
)
_UNWATCHED = frozenset({".git", STORE_DIR})
# Gone while being watched: its parent's event covers it.
_GONE = (errno.ENOENT, errno.ENOTDIR)


class TreeMonitor:
    """The inotify watch of one work tree and the journal of what changed in it.

    Use :meth:`start`; register :meth:`fileno` for reading and call :meth:`drain` when it
    is readable and before every fork; :meth:`close` at the end.

    Attributes:
        root: The watched work tree.
        id: This monitor's identity: a token of any other is never trusted.
        seq: The journal's last sequence number (a token is such a number).
        lost: Why it can no longer answer (``None`` while it can).
    """

    def __init__(self, root: Path, inotify: Inotify) -> None:
        self.root = root
        self.id = os.urandom(12).hex()
        self.seq = 0
        self.lost: str | None = None
        self._inotify = inotify
        self._dirs: dict[int, str] = {}  # watch descriptor -> directory ("" the root)
        self._wds: dict[str, int] = {}
        self._retired: set[int] = set()  # removed by us or deleted: IN_IGNORED expected
        # A folder listed at its new place before its move's events were read: the kernel
        # gave its watch back (old path -> watch); its old parent's IN_MOVED_FROM then
        # makes its IN_MOVE_SELF expected. Both were queued before that listing, so both
        # are read in the same drain, and neither outlives it.
        self._adopted: dict[str, int] = {}
        self._moving: set[int] = set()
        self._journal: list[tuple[int, str]] = []
        self._floor = 0  # tokens below this were trimmed away
        # The journal's point when the current drain began: only an entry after it may
        # absorb the same path again (a point is handed out between drains, never in one).
        self._drain_from = 0
        st = os.stat(root)
        self.identity = (st.st_dev, st.st_ino)

    @classmethod
    def start(cls, root: Path) -> TreeMonitor | None:
        """Watch every directory under ``root``; ``None`` where inotify cannot be had.

        The monitor may be :attr:`lost` from the start (a watch limit): its answers are
        then ``None``, as they would be without it.
        """
        inotify = Inotify.open()
        if inotify is None:
            return None
        try:
            monitor = cls(root, inotify)
        except OSError:
            inotify.close()
            return None
        monitor._watch_tree("")
        return monitor

    def fileno(self) -> int:
        """The inotify descriptor, to wait on (-1 once closed or forked)."""
        return self._inotify.fd

    def changed_since(self, seq: int) -> set[str] | None:
        """Every path that may have changed after point ``seq`` of this journal.

        Args:
            seq: A point this monitor gave (:attr:`seq` at the time).

        Returns:
            The paths, relative to the root (``""``: the root itself, so everything);
            ``None`` when the monitor cannot say (lost, trimmed, a point it never gave).
        """
        if self.lost is not None or seq < self._floor or seq > self.seq:
            return None
        changed: set[str] = set()
        for number, path in reversed(self._journal):
            if number <= seq:
                break
            changed.add(path)
        return changed

    def drain(self) -> None:
        """Read every event queued now into the journal (new directories watched).

        Its owner hands out :attr:`seq` (a check's token) only between two drains, so a
        path changed again after a drain is always a new entry, whatever came last.
        """
        self._drain_from = self.seq
        try:
            while self.lost is None and self._inotify.fd >= 0:
                try:
                    events = self._inotify.read()
                except OSError as error:
                    self._lose(f"the queue cannot be read: {error.strerror}")
                    return
                if not events:
                    return
                for event in events:
                    self._take(event)
                    if self.lost is not None:
                        return
        finally:
            self._adopted.clear()
            self._moving.clear()

    def forget_queue(self) -> None:
        """In a forked child: close the descriptor, keep the journal as it is."""
        os.close(self._inotify.fd)
        self._inotify.fd = -1

    def close(self) -> None:
        """Stop watching (idempotent): every watch goes with the instance."""
        self._inotify.close()
        self._journal.clear()
        if self.lost is None:
            self.lost = "closed"

    def _take(self, event: Event) -> None:
        mask = event.mask
        if mask & IN_Q_OVERFLOW:
            self._lose("the event queue overflowed")
            return
        if event.wd in self._retired:
            if mask & IN_IGNORED:
                self._retired.discard(event.wd)
            return  # a moved or deleted directory: its parent's event names it
        directory = self._dirs.get(event.wd)
        if directory is None:
            self._lose(f"an event from an unknown watch ({event.wd})")
            return
        if mask & (IN_IGNORED | IN_UNMOUNT):
            self._lose(f"the watch of {directory or 'the root'} was removed")
            return
        if mask & (IN_DELETE_SELF | IN_MOVE_SELF):
            if not directory:
                self._lose("the root was deleted or moved")
            elif mask & IN_MOVE_SELF:
                # Its parent's IN_MOVED_FROM retires it first, or made this expected: a
                # move seen only here came by a way not watched.
                if event.wd in self._moving:
                    self._moving.discard(event.wd)
                else:
                    self._lose(f"{directory} moved unseen")
            else:
                self._note(directory)
                self._retire_one(event.wd, directory)
            return
        if not event.name:
            self._note(directory)  # the directory's own attributes (a chmod)
            return
        name = os.fsdecode(event.name)
        if name in _UNWATCHED:
            return  # no walk looks inside: ignore rules and the store are checked apart
        if TEMP_MARKER in name and is_temp_name(name):
            # An atomic write's temporary name, which every walk passes over as ignored
            # (scanning/ignore.py): naming it only made each warm check look it up (a
            # rollback of 100 files named 100 of them).
            return
        path = f"{directory}/{name}" if directory else name
        if mask & IN_ISDIR:
            if mask & IN_MOVED_FROM:
                self._retire(path)
            elif mask & (IN_CREATE | IN_MOVED_TO):
                self._watch_tree(path)
        self._note(path)

    def _note(self, path: str) -> None:
        journal = self._journal
        if journal and journal[-1][1] == path and journal[-1][0] > self._drain_from:
            # The same path again in one drain (each write of a file): once is enough.
            # An entry from an earlier drain may be older than a token handed out since:
            # a change after that token must have a number after it.
            return
        self.seq += 1
        journal.append((self.seq, path))
        if len(journal) > JOURNAL_LIMIT:
            cut = len(journal) // 2
            self._floor = journal[cut - 1][0]
            del journal[:cut]

    def _watch_tree(self, top: str) -> None:
        # Watch first, list after: an entry made in between still shows as an event.
        stack = [top]
        while stack and self.lost is None:
            directory = stack.pop()
            location = self.root / directory if directory else self.root
            if len(self._wds) >= MOST_DIRECTORIES:
                self._lose(f"more than {MOST_DIRECTORIES:,} directories to watch")
                return
            try:
                wd = self._inotify.add_watch(location, _MASK)
            except OSError as error:
                if error.errno in _GONE:
                    continue
                self._lose(f"{directory or 'the root'} cannot be watched: {error.strerror}")
                return
            self._retired.discard(wd)
            old = self._dirs.get(wd)
            if old is not None and self._wds.get(old) == wd:
                del self._wds[old]
                if old != directory:
                    self._adopted[old] = wd
            self._dirs[wd] = directory
            self._wds[directory] = wd
            try:
                entries = list(os.scandir(location))
            except OSError as error:
                if error.errno in _GONE:
                    continue
                self._lose(f"{directory or 'the root'} cannot be listed: {error.strerror}")
                return
            for entry in entries:
                if entry.name not in _UNWATCHED and entry.is_dir(follow_symlinks=False):
                    stack.append(f"{directory}/{entry.name}" if directory else entry.name)

    def _retire(self, top: str) -> None:
        # A directory moved away or deleted: stop watching it and everything below it;
        # a move inside the tree is watched again from its new place.
        prefix = top + "/"
        for old in [o for o in self._adopted if o == top or o.startswith(prefix)]:
            wd = self._adopted.pop(old)
            if old == top:  # listed at its new place already, and watched there
                self._moving.add(wd)
        for directory in [d for d in self._wds if d == top or d.startswith(prefix)]:
            wd = self._wds.pop(directory)
            self._dirs.pop(wd, None)
            self._retired.add(wd)
            self._inotify.rm_watch(wd)

    def _retire_one(self, wd: int, directory: str) -> None:
        # A directory deleted: only its own watch goes. Its path may already name a new
        # directory, watched (a rename over it), whose watches stay.
        self._dirs.pop(wd, None)
        if self._wds.get(directory) == wd:
            del self._wds[directory]
        self._retired.add(wd)
        self._inotify.rm_watch(wd)

    def _lose(self, why: str) -> None:
        self.lost = why
