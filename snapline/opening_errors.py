"""What creating, finding and opening a workspace refuses: the errors of ``snapline.opening``.

Each is a usage error (exit 2) with one line saying what to do.
"""

from __future__ import annotations

from pathlib import Path

from snapline.errors import SnaplineError
from snapline.paths import STORE_DIR

__all__ = [
    "AlreadyInitializedError",
    "NotInitializedError",
    "RootNotADirectoryError",
    "UnsafeRootError",
]


class NotInitializedError(SnaplineError):
    """There is no snapline store at (or above) the given root."""

    exit_code = 2

    def __init__(self, root: Path) -> None:
        self.path = str(root)
        super().__init__(
            f"{root} has no snapline history: run `snapline fetch` if it was pushed, or "
            "`snapline init` to start one"
        )


class AlreadyInitializedError(SnaplineError):
    """``init`` was called on a root that already has a store."""

    exit_code = 2

    def __init__(self, root: Path, where: str = f"{STORE_DIR}/") -> None:
        self.path = str(root)
        super().__init__(
            f"{root} already has a snapline store in {where}; use it (`snapline "
            "status`, `snapline log`), or run init in another directory for a new history"
        )


class RootNotADirectoryError(SnaplineError, NotADirectoryError):
    """``init`` was pointed at a path that is not a directory (or does not exist).

    A usage error (exit 2); it is also a ``NotADirectoryError``, as it always was.

    Attributes:
        path: The root.
    """

    exit_code = 2

    def __init__(self, root: Path) -> None:
        self.path = str(root)
        super().__init__(f"{root} is not a directory; create it first")

    def __str__(self) -> str:
        # OSError's own str() would show the arguments as a tuple.
        return str(self.args[0])


class UnsafeRootError(SnaplineError):
    """``init`` was pointed at the filesystem root or a home directory.

    Attributes:
        path: The root.
        problem: The message without its advice, which names ``force=True`` (the
            command line names ``--force``).
    """

    exit_code = 2

    def __init__(self, root: Path, what: str) -> None:
        self.path = str(root)
        self.problem = f"refusing to snapshot {root}: it is {what}; choose a project directory"
        super().__init__(f"{self.problem}, or pass force=True if you really mean it")
