"""Where a page may be written: anywhere but inside the store."""

from __future__ import annotations

import os
from pathlib import Path

from snapline import paths

__all__ = ["ReportOutputError", "output_path"]


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
