"""What keeps the warm server from serving: code changed on disk, a thread in the server."""

from __future__ import annotations

import contextlib
import os
import sys

__all__ = ["code_stamp", "thread_count"]


def code_stamp() -> tuple[object, ...]:
    """What says the code a server imported is still the code on disk.

    Every ``.py`` file of the installed package (its name, size, mtime and inode) and
    the directories of the import path (an installed or removed distribution changes
    its ``site-packages``' mtime).
    """
    from snapline import __file__ as package_init

    package = os.path.dirname(os.path.abspath(package_init))
    files = []
    for directory, subdirectories, names in os.walk(package):
        subdirectories[:] = sorted(d for d in subdirectories if d != "__pycache__")
        for name in sorted(names):
            if name.endswith(".py"):
                info = os.stat(os.path.join(directory, name))
                files.append((directory, name, info.st_size, info.st_mtime_ns, info.st_ino))
    folders = []
    for entry in sys.path[1:]:
        with contextlib.suppress(OSError):
            folders.append((entry, os.stat(entry).st_mtime_ns))
    return (tuple(files), tuple(folders))


def thread_count() -> int:
    """The threads of this process, as the kernel counts them (C threads included)."""
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        import threading

        return threading.active_count()
