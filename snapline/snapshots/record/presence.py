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
    """Remembers which file a store path named when it was opened.

    Args:
        path: The store file, just opened.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._identity = identity(path)

    def check(self) -> None:
        """Refuse when the path no longer names the file that was opened.

        Raises:
            StoreVanishedError: If it was deleted or replaced.
        """
        if self._identity is None:
            return
        now = identity(self.path)
        if now != self._identity:
            raise StoreVanishedError(self.path, "deleted" if now is None else "replaced")
