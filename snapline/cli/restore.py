"""Commands that put old content back: ``rollback``, ``revert``, ``undo`` and ``redo``.

Both record what they do as a new snapshot, so they can themselves be rolled back.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from snapline.cli.context import JsonOption, user_paths, workspace
from snapline.cli.errors import EXIT_FAILURE
from snapline.cli.output import echo, echo_json, plural
from snapline.cli.render import echo_restore, model_json

if TYPE_CHECKING:
    from snapline import RevertResult, RollbackResult

__all__ = ["DryRunOption", "ForceOption", "register", "render_result"]

DryRunOption = Annotated[
    bool, typer.Option("--dry-run", help="Only show what would change; exit 1 on conflicts.")
]
MessageOption = Annotated[
    str,
    typer.Option("-m", "--message", metavar="TEXT", help="Description (default: what it does)."),
]
ForceOption = Annotated[
    bool,
    typer.Option(
        "--force",
        help="Overwrite files changed outside snapline (their content is recorded first).",
    ),
]


def register(app: typer.Typer) -> None:
    """Add this module's commands to ``app``."""
    app.command("rollback")(rollback)
    app.command("revert")(revert)
    app.command("undo")(undo)
    app.command("redo")(redo)


def render_result(result: RollbackResult | RevertResult, *, as_json: bool, force: bool) -> None:
    """Print a rollback or revert result; a dry run that would be refused exits 1."""
    if as_json:
        echo_json(model_json(result))
    else:
        echo_restore(result)
    # Exit 1 exactly when the real run would be refused: with --force, only for the
    # conflicts that recording the outside changes does not settle (a dry run is a
    # promise; it said yes to an untracked file in the way before issue 25).
    blocking = result.blocking(force=force)
    if result.dry_run and blocking:
        if not as_json:
            from snapline.snapshots.results import FORCEABLE

            outside = any(c.kind in FORCEABLE for c in blocking)
            advice = (
                "record the outside changes with `snapline resync -m TEXT` first, or pass --force"
                if outside
                else "see the conflicts above: move what stands in the way"
            )
            echo(
                f"snapline: error: the real run would be refused: "
                f"{plural(len(blocking), 'conflict')}; {advice}",
                err=True,
            )
        raise typer.Exit(EXIT_FAILURE)


def rollback(
    ctx: typer.Context,
    to: Annotated[
        str,
        typer.Option(
            "--to", metavar="N", help="The snapshot to go back to: a number, latest or latest~N."
        ),
    ],
    paths: Annotated[
        list[str] | None,
        typer.Argument(
            metavar="PATH",
            help="Only these files or directories (default: all).",
            show_default=False,
        ),
    ] = None,
    dry_run: DryRunOption = False,
    force: ForceOption = False,
    message: MessageOption = "",
    as_json: JsonOption = False,
) -> None:
    """Restore the state after snapshot N.

    The whole workspace, or only PATHS. The rollback is itself a new snapshot, so it
    can be rolled back. Refuses to overwrite files changed outside snapline unless
    --force.
    """
    with workspace(ctx) as ws:
        result = ws.rollback(
            to,
            user_paths(ws, paths),
            dry_run=dry_run,
            force=force,
            description=message,
        )
    render_result(result, as_json=as_json, force=force)


def revert(
    ctx: typer.Context,
    number: Annotated[
        str, typer.Argument(metavar="N", help="The snapshot to undo: a number, latest or latest~N.")
    ],
    dry_run: DryRunOption = False,
    message: MessageOption = "",
    as_json: JsonOption = False,
) -> None:
    """Undo the changes of one snapshot.

    Keeps everything recorded after N; recorded as a new snapshot.
    """
    with workspace(ctx) as ws:
        result = ws.revert(number, dry_run=dry_run, description=message)
    render_result(result, as_json=as_json, force=False)


def undo(
    ctx: typer.Context,
    dry_run: DryRunOption = False,
    force: ForceOption = False,
    message: MessageOption = "",
    as_json: JsonOption = False,
) -> None:
    """Roll back what the latest change did, as a new snapshot.

    Again to go one change further back; `snapline redo` puts it back. Refuses to
    overwrite files changed outside snapline unless --force.
    """
    with workspace(ctx) as ws:
        result = ws.undo(dry_run=dry_run, force=force, description=message)
    render_result(result, as_json=as_json, force=force)


def redo(
    ctx: typer.Context,
    dry_run: DryRunOption = False,
    force: ForceOption = False,
    message: MessageOption = "",
    as_json: JsonOption = False,
) -> None:
    """Roll back the last undo, as a new snapshot.

    Several levels, like an editor; a new change after an undo clears what can be
    redone.
    """
    with workspace(ctx) as ws:
        result = ws.redo(dry_run=dry_run, force=force, description=message)
    render_result(result, as_json=as_json, force=force)
