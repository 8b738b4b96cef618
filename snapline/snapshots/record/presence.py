"""Is the store this process opened still the one at its path?

SQLite keeps writing into an open file after its name is deleted or pointed elsewhere
(``snapline run -- rm -rf .snapline``, a restore from a backup meanwhile): a commit would
then report a snapshot that no later command can see. Writers check before committing.
"""

from __future__ import annotations

from pathlib import Path

from snapline.errors import SnaplineError
from snapline.store.dbfile import identity

__all__ = ["StorePresence", "StoreVanishedError"]

_WAY_OUT = {
    "deleted": (
        "restore .snapline/ from a copy or from git, or, since the store is gone, run "
        "`snapline init` to start a new history"
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
            + _WAY_OUT[what]
        )


class StorePresence:
    """Remembers which files a store's paths named when it was opened.

    A directory's inode is free for reuse as soon as it is deleted, so a ledger directory
    deleted and copied back can come back under the same ``(device, inode)``: the store's
    identity also takes the index file, which this process holds open, so its inode
    cannot be handed to the copy.

    Args:
        path: The store (the ledger directory), just opened.
        held: A file of the store this process holds open (the index), if any.
    """

    def __init__(self, path: Path, held: Path | None = None) -> None:
        self.path = path
        self._held = held
        self._identity = self._now()

    def _now(self) -> tuple[tuple[int, int], tuple[int, int] | None] | None:
        first = identity(self.path)
        if first is None:
            return None
        return first, None if self._held is None else identity(self._held)

    def check(self) -> None:
        """Refuse when the path no longer names the file that was opened.

        Raises:
            StoreVanishedError: If it was deleted or replaced.
        """
        if self._identity is None:
            return
        now = self._now()
        if now != self._identity:
            raise StoreVanishedError(self.path, "deleted" if now is None else "replaced")
