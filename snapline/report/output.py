"""Where a page may be written: anywhere but inside the store, or the store's own copy."""

from __future__ import annotations

import os
from pathlib import Path

from snapline import paths

__all__ = ["LOCAL_REPORT", "ReportOutputError", "local_path", "output_path"]

LOCAL_REPORT = "report.html"
"""The page ``snapline report`` writes by default, inside ``.snapline/``: local to the
clone (``.snapline/.gitignore`` keeps everything but the ledger out of git) and, being in
the store directory, never untracked drift in the workspace."""


class ReportOutputError(paths.OutputInStoreError):
    """A page was to be written inside ``.snapline/``, which only snapline writes."""

    def __init__(self, path: Path, store: Path) -> None:
        super().__init__(path, store, "the report")


def output_path(root: Path, path: str | os.PathLike[str]) -> Path:
    """The absolute path to write a page of the workspace at ``root`` to.

    Args:
        root: The workspace root.
        path: Where the page should go (relative to the current directory).

    Returns:
        ``path`` made absolute.

    Raises:
        ReportOutputError: If ``path`` is in the store directory (however spelled; see
            :func:`snapline.paths.output_path`).
    """
    try:
        return paths.output_path(root, path, "the report")
    except paths.OutputInStoreError as error:
        raise ReportOutputError(Path(error.path), Path(error.store)) from None


def local_path(root: Path) -> Path:
    """Where the clone's own copy of the page goes: ``report.html`` in the local state.

    ``<root>/.snapline/report.html``, or ``.git/snapline/report.html`` for a history on
    git's refs (:func:`snapline.state_dir.state_dir`).
    """
    from snapline.state_dir import state_dir

    return state_dir(root) / LOCAL_REPORT
