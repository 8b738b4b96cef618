"""Is the store this process opened still the one at its path?

SQLite keeps writing into an open file after its name is deleted or pointed elsewhere
(``snapline run -- rm -rf .snapline``, a restore from a backup meanwhile): a commit would
then report a snapshot that no later command can see. Writers check before committing.

The store is named by its ``(device, inode)``, and the inode is held open from the start:
a file system reuses a freed inode number at once (``rm -rf .snapline && cp -r copy
.snapline`` on ext4 can give the copy the old directory's number), which would make a
replacement look like the store itself. An inode held open is never freed, so no other
file can take its number meanwhile; and one deleted while held has no links left.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from snapline.errors import SnaplineError
from snapline.store.dbfile import identity
from snapline.store.errors import store_folder

__all__ = ["StorePresence", "StoreVanishedError"]

_WAY_OUT = {
    "deleted": (
        "restore .snapline/ from a copy or from git, or, since the store is gone, run "
        "`snapline init` to start a new history"
    ),
    # On git's refs the file is the index under the git directory, a cache of the refs:
    # the history is whole, and a new one (`init`) is never the way out there.
    "deleted on refs": (
        "the history on git's refs (refs/snapline/) is untouched and the next command "
        "builds the index again from it; `snapline status` then names the changes on disk "
        "and how to keep them"
    ),
    "replaced": (
        "the store now at that path is another one: check it with `snapline verify`, and "
        "record the changes on disk with `snapline resync` if they belong in its history"
    ),
}


class StoreVanishedError(SnaplineError):
    """The store file was deleted or replaced while an operation held it open.

    SQLite keeps writing into the open (now nameless) file, so a commit would report a
    snapshot that no later command can see: the operation fails instead, and nothing
    is recorded.

    Attributes:
        path: The store file.
        what: ``deleted`` or ``replaced``.
    """

    exit_code = 3

    def __init__(self, path: Path, what: str) -> None:
        self.path = str(path)
        self.what = what
        super().__init__(
            f"the store {path} was {what} during the operation (by the command run, or "
            "another process), so nothing was recorded and the changes are only on disk; "
            + _way_out(path, what)
        )


def _way_out(path: Path, what: str) -> str:
    if what == "deleted" and store_folder(path) is None:
        return _WAY_OUT["deleted on refs"]
    return _WAY_OUT[what]


class StorePresence:
    """Holds the store path's file open, to tell later whether the path still names it.

    Args:
        path: The store (its ledger directory, or its database file), just opened.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None
        # Nothing there to hold: there is nothing to commit into either. O_PATH holds the
        # inode without read permission on it (a store opened read-only); CLOEXEC keeps
        # it from the commands ``run`` starts.
        with contextlib.suppress(OSError):
            self._fd = os.open(path, getattr(os, "O_PATH", os.O_RDONLY) | os.O_CLOEXEC)

    def __del__(self) -> None:
        self.close()

    def close(self) -> None:
        """Let the held inode go (done when the object is collected)."""
        fd, self._fd = self._fd, None
        if fd is not None:
            with contextlib.suppress(OSError):
                os.close(fd)

    def check(self) -> None:
        """Refuse when the path no longer names the file that was opened.

        Raises:
            StoreVanishedError: If it was deleted or replaced.
        """
        if self._fd is None:
            return
        held = os.fstat(self._fd)
        now = identity(self.path)
        # A held inode cannot be reused, so an equal (device, inode) is the same file;
        # no links left means it was deleted whatever the path now names.
        if held.st_nlink == 0 or now != (held.st_dev, held.st_ino):
            raise StoreVanishedError(self.path, "deleted" if now is None else "replaced")
