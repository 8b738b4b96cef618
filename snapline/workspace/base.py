"""What every part of the :class:`~snapline.workspace.Workspace` facade shares.

The facade is split by concern (recording, restoring, reading) into classes that all
build on :class:`WorkspaceBase`: the parts of the open workspace and the way a user's
paths become checked, workspace-relative ones. The workspace hands its parts down to
the functions that do the work and never queries the store itself.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from snapline.opening import Opened
from snapline.paths import relpath_from_user, writable_relpath

if TYPE_CHECKING:
    from typing_extensions import Self

    from snapline.milestones import Milestones

__all__ = ["DEFAULT_TIMEOUT", "PathArg", "WorkspaceBase"]

DEFAULT_TIMEOUT = 30.0
"""Seconds to wait for another process holding the store."""

PathArg = str | os.PathLike[str]
"""A path as users pass it: relative to the root, or absolute inside it."""


class WorkspaceBase:
    """The parts of an open workspace, and path handling. Internal: use ``Workspace``.

    Args:
        opened: What :func:`~snapline.opening.open_store` assembled.
    """

    def __init__(self, opened: Opened) -> None:
        self.root = opened.root
        self._opened = opened
        # Handed down to the functions that do the work; never queried here.
        self._store = opened.store
        self._recorder = opened.recorder
        self._reconstructor = opened.reconstructor
        self._milestones: Milestones | None = None

    def close(self) -> None:
        """Close the store."""
        self._opened.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _relpath(self, path: PathArg) -> str:
        return relpath_from_user(self.root, path)

    def _writable(self, path: PathArg) -> str:
        """A path a writer is about to change: refused inside ``.git/`` or ``.snapline/``."""
        return writable_relpath(self.root, path)

    def _scope(self, paths: Iterable[PathArg] | PathArg | None) -> list[str] | None:
        """Paths to limit an operation to; ``None`` (everything) when one is the root."""
        if paths is None:
            return None
        items = [paths] if isinstance(paths, (str, os.PathLike)) else list(paths)
        if any(Path(os.path.abspath(self.root / p)) == self.root for p in items):
            return None
        return self._relpaths(items)

    def _relpaths(self, paths: Iterable[PathArg] | PathArg) -> list[str]:
        if isinstance(paths, (str, os.PathLike)):
            paths = [paths]
        return sorted({self._relpath(p) for p in paths})
