"""What the git layer of the refs store raises (:mod:`snapline.store.refs.git`)."""

from __future__ import annotations

from pathlib import Path

from snapline.errors import SnaplineError
from snapline.store.errors import StoreCorruptError

__all__ = ["DamagedRefError", "MissingObjectError", "NotAGitRepositoryError", "RefConflictError"]


class DamagedRefError(StoreCorruptError):
    """A ref git cannot read (a loose ref file of bytes git never writes): exit 3.

    Attributes:
        ref: The ref's name.
    """

    def __init__(self, ref: str, detail: str) -> None:
        self.ref = self.path = ref
        self.detail = detail
        SnaplineError.__init__(
            self,
            f"snapline's ref {ref} is damaged or crafted ({detail}); nothing was written. "
            "Run `snapline verify` for what else is; the ref can be set back to the line's "
            f"tip that another clone holds with `git update-ref {ref} ID`",
        )


class NotAGitRepositoryError(SnaplineError):
    """No git repository holds the directory.

    Attributes:
        path: The directory looked from.
    """

    def __init__(self, path: Path) -> None:
        self.path = str(path)
        super().__init__(f"{path} is not inside a git repository")


class MissingObjectError(LookupError):
    """An object a commit, tree or ref names is absent or of another type.

    Also one git finds damaged (its bytes do not hash to its id).

    Attributes:
        id: The object's id.
        expected: The type it should have had (``blob``, ``tree``, ``commit``).
    """

    def __init__(self, id_: str, expected: str, damage: str | None = None) -> None:
        self.id = id_
        self.expected = expected
        if damage is None:
            super().__init__(f"no {expected} {id_} in the repository")
        else:
            super().__init__(f"the {expected} {id_} in the repository is damaged: {damage}")


class RefConflictError(SnaplineError):
    """A ref moved by another writer: the compare of compare-and-swap failed.

    Nothing was lost: the commit this writer made stays in the object store, and the
    ref keeps the other writer's snapshot.

    Attributes:
        ref: The ref's name.
        expected: The value this writer read before it wrote (``None``: no ref).
        actual: The value found under the lock (``None``: no ref; also when the lock
            itself was held by another writer).
    """

    def __init__(self, ref: str, expected: str | None, actual: str | None) -> None:
        self.ref = ref
        self.expected = expected
        self.actual = actual
        found = "someone else holding its lock" if actual is None else actual[:12]
        wanted = "no ref" if expected is None else expected[:12]
        super().__init__(
            f"{ref} moved while this snapshot was written (expected {wanted}, found "
            f"{found}); nothing was lost: read the line again and record on its new tip"
        )
