"""What every command shares: the global options, opening the workspace, user paths."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from snapline.cli.commands import named
from snapline.cli.workspaces import DEFAULT_TIMEOUT, open_workspace, user_paths

if TYPE_CHECKING:
    from snapline import Workspace

__all__ = [
    "DEFAULT_TIMEOUT",
    "JSON_REQUESTED",
    "JsonOption",
    "SessionFilterOption",
    "SnapshotArgument",
    "State",
    "command_group",
    "paths_argument",
    "state",
    "user_paths",
    "workspace",
]

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

SessionFilterOption = Annotated[
    str | None, typer.Option("--session", metavar="ID", help="Only snapshots of this session.")
]
"""``--session ID``, on the commands that list snapshots (``log``, ``report``)."""

SnapshotArgument = Annotated[
    str,
    typer.Argument(
        metavar="N", help="The snapshot: a number, latest, latest~N or id:PREFIX (any line)."
    ),
]
"""``N``, the one snapshot a command is about, on any line (``show``, ``branch``)."""


def paths_argument(help: str) -> Any:
    """``[PATH]...``: the files or directories a command is limited to, none by default.

    Args:
        help: What the paths are to this command.

    Returns:
        The ``typer.Argument`` that annotates a ``list[str] | None`` parameter.
    """
    return typer.Argument(metavar="[PATH]...", help=help, show_default=False)


def command_group(name: str) -> typer.Typer:
    """The group ``snapline NAME``: its help is its summary in the table of commands.

    Args:
        name: The group's name, as its row in ``cli/commands.py`` has it.

    Returns:
        The group, which shows its commands when called without one.
    """
    row = named(name)
    assert row is not None, name  # every group has its row (tests/cli/test_commands.py)
    return typer.Typer(name=name, help=row.summary, no_args_is_help=True, rich_markup_mode=None)


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


def workspace(ctx: typer.Context) -> contextlib.AbstractContextManager[Workspace]:
    """Open the workspace: ``--root`` when given, else found upwards from the current directory."""
    options = state(ctx)
    return open_workspace(options.root, options.timeout)
