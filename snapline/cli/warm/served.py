"""A warm worker's side of the server's monitors: the journal it inherited, and a request.

Kept apart from ``monitors.py`` (the server's side) so that a command run without a
server, which asks here and is told ``None``, imports nothing more for it.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import socket

    from snapline.scanning.monitor import TreeMonitor

__all__ = ["adopt", "identity", "watched"]

_served: tuple[dict[str, TreeMonitor], socket.socket] | None = None
"""In a worker: the monitors as the server had them at the fork, and the way to ask it."""


def adopt(monitors: dict[str, TreeMonitor], channel: socket.socket) -> None:
    """In a worker just forked: the server's monitors by root, and its channel to ask."""
    global _served
    _served = (monitors, channel)


class _Fresh:
    """A monitor the server has just started for this worker: a point, no journal yet."""

    def __init__(self, monitor_id: str, seq: int) -> None:
        self.id = monitor_id
        self.seq = seq

    def changed_since(self, seq: int) -> set[str] | None:
        return None  # no token can be of a journal this worker has not seen


class _Walking:
    """A monitor's identity and point, its journal not trusted: the check walks whole.

    The check still leaves a token at this point (the paths found different, the files
    with more than one link), so a later check builds on what this walk found.
    """

    def __init__(self, monitor: TreeMonitor | _Fresh) -> None:
        self.id = monitor.id
        self.seq = monitor.seq

    def changed_since(self, seq: int) -> set[str] | None:
        return None


def watched(root: Path, *, trust: bool = True) -> TreeMonitor | _Fresh | _Walking | None:
    """In a warm worker, the server's view of what changed under ``root``.

    Args:
        root: The workspace root a ``status`` or ``verify`` checks.
        trust: ``False`` for a check that must walk the whole tree (``verify --full``):
            the view then names no change, only the point its token is left at.

    Returns:
        The monitor as the server had it at the fork; a new one's identity when the
        server had none (it starts one now); ``None`` outside a worker, or when the
        server cannot watch it.
    """
    if _served is None:
        return None
    view = _view(root, *_served)
    return view if trust or view is None else _Walking(view)


def _view(
    root: Path, monitors: dict[str, TreeMonitor], channel: socket.socket
) -> TreeMonitor | _Fresh | None:
    monitor = monitors.get(str(root))
    if monitor is not None and monitor.lost is None and identity(root) == monitor.identity:
        return monitor
    try:
        channel.sendall(b"watch " + os.fsencode(root) + b"\n")
        reply = channel.recv(4096).split()
    except OSError:
        return None
    if len(reply) != 3 or reply[0] != b"watching":
        return None
    return _Fresh(reply[1].decode(), int(reply[2]))


def identity(root: Path) -> tuple[int, int] | None:
    """``root``'s device and inode (``None``: gone): a root replaced is another tree."""
    try:
        st = os.stat(root)
    except OSError:
        return None
    return (st.st_dev, st.st_ino)
