"""Opening the workspace a command works on, and the paths typed for it, without typer.

Shared by the typer commands (through ``cli/context.py``) and the lean path of
``snapline record`` (``cli/fast.py``), which runs without building the typer app.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from snapline import Workspace

__all__ = ["DEFAULT_TIMEOUT", "open_workspace", "user_paths"]

DEFAULT_TIMEOUT = 30.0
"""Seconds a command waits for another snapline process holding the store (``--timeout``)."""

# Snapshots: below this many a rebuild is over before a bar would be seen.
_REBUILD_BAR = 200


@contextlib.contextmanager
def open_workspace(root: Path | None, timeout: float) -> Iterator[Workspace]:
    """Open the workspace: ``root`` when given, else found upwards from the current directory.

    Args:
        root: ``--root``, or ``None``.
        timeout: ``--timeout``.

    Yields:
        The open workspace, closed when the block ends.
    """
    from snapline import Workspace
    from snapline.cli.output import ProgressBar

    # A fresh clone's first command builds the local index from the ledger.
    progress = ProgressBar("building the local index from the ledger", minimum=_REBUILD_BAR)
    try:
        if root is not None:
            ws = Workspace.open(root, timeout=timeout, progress=progress)
        else:
            ws = Workspace.find(Path.cwd(), timeout=timeout, progress=progress)
    finally:
        progress.close()
    with ws:
        yield ws


def user_paths(ws: Workspace, paths: list[str] | None) -> list[str] | None:
    """Paths typed on the command line, as absolute paths the library accepts.

    Relative paths are relative to the current directory when it is inside the
    workspace (as in git), else to the workspace root. ``None`` (no paths, or one that
    names the root itself) means the whole workspace.
    """
    if not paths:
        return None
    root = os.path.realpath(ws.root)
    cwd = os.getcwd()
    real_cwd = os.path.realpath(cwd)
    inside = real_cwd == root or real_cwd.startswith(root.rstrip(os.sep) + os.sep)
    base = cwd if inside else str(ws.root)
    resolved = [os.path.normpath(os.path.join(base, path)) for path in paths]
    if any(_names_root(path, str(ws.root), root) for path in resolved):
        return None
    return resolved


def _names_root(path: str, given_root: str, real_root: str) -> bool:
    # The last component is never resolved: a symlink to the root (``here -> .``) is a
    # tracked file, and naming it must not widen the command to the whole workspace.
    if path == os.path.normpath(given_root):
        return True
    parent, name = os.path.split(path)
    return os.path.join(os.path.realpath(parent), name) == real_root
