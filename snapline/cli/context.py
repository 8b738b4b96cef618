"""What every command shares: the global options, opening the workspace, user paths."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

if TYPE_CHECKING:
    from snapline import Workspace

__all__ = [
    "DEFAULT_TIMEOUT",
    "JSON_REQUESTED",
    "JsonOption",
    "State",
    "state",
    "user_paths",
    "workspace",
]

DEFAULT_TIMEOUT = 30.0

JSON_REQUESTED = "snapline.json"
"""The key in ``ctx.meta`` (shared by every context of a run) set when ``--json`` was given."""


def _remember_json(ctx: typer.Context, value: bool) -> bool:
    # The error handler runs in the root group, which cannot see a subcommand's
    # options: it reads this instead, to print errors as JSON too.
    if value:
        ctx.meta[JSON_REQUESTED] = True
    return value


JsonOption = Annotated[
    bool, typer.Option("--json", help="Print the result as JSON.", callback=_remember_json)
]
"""``--json``, on every command that reads or records (shapes: docs/cli.md)."""


@dataclass(frozen=True)
class State:
    """The global options (``snapline --root PATH --timeout S --debug COMMAND``)."""

    root: Path | None = None
    timeout: float = DEFAULT_TIMEOUT
    debug: bool = False


def state(ctx: typer.Context) -> State:
    """The global options of the running command."""
    obj = ctx.find_root().obj
    return obj if isinstance(obj, State) else State()


@contextlib.contextmanager
def workspace(ctx: typer.Context) -> Iterator[Workspace]:
    """Open the workspace: ``--root`` when given, else found upwards from the current directory."""
    from snapline import Workspace
    from snapline.cli.output import ProgressBar

    options = state(ctx)
    # A fresh clone's first command builds the local index from the ledger.
    progress = ProgressBar("building the local index from the ledger", minimum=_REBUILD_BAR)
    try:
        if options.root is not None:
            ws = Workspace.open(options.root, timeout=options.timeout, progress=progress)
        else:
            ws = Workspace.find(Path.cwd(), timeout=options.timeout, progress=progress)
    finally:
        progress.close()
    with ws:
        yield ws


# Snapshots: below this many a rebuild is over before a bar would be seen.
_REBUILD_BAR = 200


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
