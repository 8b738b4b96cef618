"""Files on disk as git sees them: path -> (git mode, bytes), a symlink's bytes its target.

Shared by the replay (tests/replay/, against git's trees) and the tree state machine
(tests/reliability/test_tree_machine.py, against its model).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import NamedTuple

__all__ = ["EXECUTABLE", "REGULAR", "SYMLINK", "Entry", "disk_tree"]

REGULAR = 0o100644
EXECUTABLE = 0o100755
SYMLINK = 0o120000


class Entry(NamedTuple):
    """One file: its git mode and its bytes (a symlink's bytes are its target)."""

    mode: int
    content: bytes


def disk_tree(root: Path) -> dict[str, Entry]:
    """Every file and symlink under ``root``, with its git mode (exec bit, symlink) and bytes.

    ``.snapline/`` and ``.git/`` at the top are skipped; symlinks are never followed;
    directories, empty or not, are not entries (git has none).
    """
    found: dict[str, Entry] = {}
    for directory, dirs, files in os.walk(root):
        base = Path(directory)
        if base == root:
            dirs[:] = [d for d in dirs if d not in (".snapline", ".git")]
        for name in [d for d in dirs if (base / d).is_symlink()]:
            dirs.remove(name)
            files.append(name)
        for name in files:
            path = base / name
            rel = path.relative_to(root).as_posix()
            info = path.lstat()
            if stat.S_ISLNK(info.st_mode):
                found[rel] = Entry(SYMLINK, os.fsencode(os.readlink(path)))
            else:
                mode = EXECUTABLE if info.st_mode & stat.S_IXUSR else REGULAR
                found[rel] = Entry(mode, path.read_bytes())
    return found
