"""The branch command: a git branch from a snapshot, the checkout left alone."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from snapline.cli.context import JsonOption, SnapshotArgument, workspace
from snapline.cli.output import echo, echo_json

__all__ = ["branch"]


def branch(
    ctx: typer.Context,
    ref: SnapshotArgument,
    name: Annotated[
        str | None,
        typer.Argument(
            metavar="NAME", help="The branch (default: snapline/N).", show_default=False
        ),
    ] = None,
    worktree: Annotated[
        Path | None,
        typer.Option(
            "--worktree",
            metavar="PATH",
            file_okay=False,
            help="Also check the branch out in a new git work tree at PATH.",
        ),
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """Make a git branch whose files are the workspace's after snapshot N.

    The checkout, HEAD and git's index are not touched: the branch gets one commit on
    top of HEAD, with HEAD's tree and every file the history recorded as it was after
    snapshot N (absent when N did not have it).
    --worktree also checks it out in a new work tree (git worktree add).
    """
    with workspace(ctx) as ws:
        made = ws.branch(ref, name, worktree=worktree)
    if as_json:
        echo_json(
            {
                "branch": made.name,
                "commit": made.commit,
                "snapshot": made.number,
                "parent": made.parent,
                "worktree": made.worktree,
            }
        )
        return
    echo(
        ("made branch ", "green"),
        f"{made.name} at {made.commit[:12]}: the files of snapshot {made.number}",
    )
    if made.worktree is not None:
        echo(f"  checked out in {made.worktree}")
