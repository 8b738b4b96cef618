"""The warm server's file-system monitors: one per workspace a check asked about.

The server (``daemon.py``) owns a :class:`~snapline.scanning.monitor.TreeMonitor` for
each workspace whose ``status`` or ``verify`` it served, and drains their inotify queues
in its one ``select`` loop (no thread: the server forks). Before each fork it drains
them all, so a worker inherits a journal holding every change finished before its client
connected. A worker reads that journal (``served.watched``), never the queue: its copy of
the descriptor is closed at the fork.

A worker whose workspace has no monitor yet (or only a lost one) asks the server for one
over a socket pair made for it at the fork (``served.py``: ``watch ROOT``), and is told the new
monitor's identity and point (``watching ID SEQ``): its own whole walk, made after the
watches were in place, then leaves a token the next command can build on.
"""

from __future__ import annotations

import contextlib
import os
import selectors
import socket
from collections.abc import Callable
from pathlib import Path

from snapline.cli.warm import served
from snapline.scanning.monitor import TreeMonitor

__all__ = ["MOST_MONITORS", "Monitors"]

MOST_MONITORS = 16
"""Workspaces watched at once; the one asked about least recently goes first."""


class Monitors:
    """The server's monitors by root, and the workers' channels to ask for one.

    Args:
        selector: The server's selector: queues and channels are waited on there.
        log: Where the server says what happened (a monitor lost, say).
    """

    def __init__(self, selector: selectors.BaseSelector, log: Callable[[str], None]) -> None:
        self._selector = selector
        self._log = log
        self._by_root: dict[str, TreeMonitor] = {}
        # Trees that could not be watched whole (the watch limit, too many directories,
        # a directory not readable): not tried again while this server runs, each try
        # would cost a watch per directory for nothing. Their checks walk.
        self._refused: set[str] = set()
        self._channels: dict[int, socket.socket] = {}

    def __len__(self) -> int:
        return len(self._by_root)

    def handle(self, key: selectors.SelectorKey) -> None:
        """A queue or a worker's channel is readable."""
        if key.data == "monitor":
            self.drain()
        else:
            self._answer(key.fileobj)  # type: ignore[arg-type]

    def drain(self) -> None:
        """Read every queue; a monitor that lost track goes (the next check walks)."""
        for root, monitor in list(self._by_root.items()):
            monitor.drain()
            if monitor.lost is not None:
                self._drop(root)

    def before_fork(self) -> socket.socket:
        """Drain every queue and make the next worker's channel; returns its end."""
        self.drain()
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        ours.set_inheritable(False)
        theirs.set_inheritable(False)
        self._channels[ours.fileno()] = ours
        self._selector.register(ours, selectors.EVENT_READ, "channel")
        return theirs

    def in_child(self, channel: socket.socket) -> None:
        """In the worker: keep the journals and its channel, nothing of the queues."""
        for ours in self._channels.values():
            ours.close()
        self._channels.clear()
        for monitor in self._by_root.values():
            monitor.forget_queue()
        served.adopt(dict(self._by_root), channel)

    def close(self) -> None:
        """Stop every monitor and channel."""
        for root in list(self._by_root):
            self._drop(root, quiet=True)
        for ours in list(self._channels.values()):
            self._close_channel(ours)

    def _answer(self, channel: socket.socket) -> None:
        try:
            line = channel.recv(65536)
        except OSError:
            line = b""
        if not line.startswith(b"watch ") or not line.endswith(b"\n"):
            self._close_channel(channel)  # the worker ended (or said nonsense)
            return
        monitor = self._monitor_for(Path(os.fsdecode(line[6:-1])))
        reply = (
            b"no\n" if monitor is None else b"watching %s %d\n" % (monitor.id.encode(), monitor.seq)
        )
        with contextlib.suppress(OSError):
            channel.sendall(reply)

    def _monitor_for(self, root: Path) -> TreeMonitor | None:
        key = str(root)
        monitor = self._by_root.pop(key, None)
        if monitor is not None:
            monitor.drain()
            if monitor.lost is None and served.identity(root) == monitor.identity:
                self._by_root[key] = monitor  # the most recently asked about, last
                return monitor
            self._drop_monitor(key, monitor)
        if not root.is_absolute() or key in self._refused:
            return None
        monitor = TreeMonitor.start(root)
        if monitor is None or monitor.lost is not None:
            if monitor is not None:
                self._log(f"not watching {root}: {monitor.lost}")
                self._refused.add(key)
                monitor.close()
            return None
        while len(self._by_root) >= MOST_MONITORS:
            self._drop(next(iter(self._by_root)), quiet=True)
        self._by_root[key] = monitor
        self._selector.register(monitor.fileno(), selectors.EVENT_READ, "monitor")
        return monitor

    def _drop(self, key: str, *, quiet: bool = False) -> None:
        monitor = self._by_root.pop(key)
        if not quiet:
            self._log(f"stopped watching {key}: {monitor.lost}")
        self._drop_monitor(key, monitor)

    def _drop_monitor(self, key: str, monitor: TreeMonitor) -> None:
        with contextlib.suppress(KeyError, ValueError):
            self._selector.unregister(monitor.fileno())
        monitor.close()

    def _close_channel(self, channel: socket.socket) -> None:
        self._channels.pop(channel.fileno(), None)
        with contextlib.suppress(KeyError, ValueError):
            self._selector.unregister(channel)
        channel.close()
