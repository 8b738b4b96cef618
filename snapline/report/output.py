"""Where a page may be written: anywhere but inside the store."""

from __future__ import annotations

import os
from pathlib import Path

from snapline.errors import SnaplineError
from snapline.paths import STORE_DIR

__all__ = ["ReportOutputError", "output_path"]


class ReportOutputError(SnaplineError):
    """A page was to be written inside ``.snapline/``, which only snapline writes."""

    exit_code = 2

    def __init__(self, path: Path, store: Path) -> None:
        self.path = str(path)
        self.store = str(store)
        super().__init__(
            f"refusing to write the report to {path}: it is inside the store {store}; "
            "write it somewhere else (for example the default ./snapline-report.html)"
        )


def output_path(root: Path, path: str | os.PathLike[str]) -> Path:
    """The absolute path to write a page of the workspace at ``root`` to.

    Args:
        root: The workspace root.
        path: Where the page should go (relative to the current directory).

    Returns:
        ``path`` made absolute.

    Raises:
        ReportOutputError: If ``path`` is in the store directory, also through a symlink.
    """
    target = Path(os.path.abspath(path))
    store = Path(os.path.realpath(root / STORE_DIR))
    # The directory is resolved, not the file: a symlink named like the page but
    # pointing into the store is replaced by the atomic write, never followed.
    real = Path(os.path.realpath(target.parent)) / target.name
    if real == store or store in real.parents:
        raise ReportOutputError(target, store)
    return target
