"""Commands that put old content back: ``rollback``, ``revert``, ``undo`` and ``redo``.

Both record what they do as a new snapshot, so they can themselves be rolled back.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Literal

import typer

from snapline.cli import click_api as click
from snapline.cli.context import JsonOption, paths_argument, user_paths, workspace
from snapline.cli.errors import EXIT_FAILURE, FORCE_OFFERED, restore_advice
from snapline.cli.output import echo, echo_json, plural
from snapline.cli.preview import DiffOption, YesOption, asking, confirm, pick_snapshot
from snapline.cli.render import echo_restore, model_json

if TYPE_CHECKING:
    from snapline import RevertResult, RollbackResult, Workspace

__all__ = [
    "DryRunOption",
    "ForceOption",
    "confirmed",
    "echo_resume",
    "redo",
    "render_result",
    "revert",
    "rollback",
    "taken_back",
    "undo",
]

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


def render_result(
    result: RollbackResult | RevertResult, *, as_json: bool, force: bool, can_force: bool = True
) -> None:
    """Print a rollback or revert result; a dry run that would be refused exits 1.

    Args:
        result: What the restore did or would do.
        as_json: Print it as JSON.
        force: Whether ``--force`` was given.
        can_force: Whether the command has ``--force`` (a revert has not), so that the
            advice names only options it has.
    """
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
            advice = restore_advice(blocking, can_force=can_force)
            echo(
                f"snapline: error: the real run would be refused: "
                f"{plural(len(blocking), 'conflict')}; "
                f"{advice or 'each conflict above says what to do'}",
                err=True,
            )
        raise typer.Exit(EXIT_FAILURE)


def confirmed(
    ws: Workspace,
    preview: RollbackResult | RevertResult,
    *,
    as_json: bool,
    force: bool,
    whole_diff: bool,
    can_force: bool = True,
) -> bool:
    """Show a person at a terminal what the restore's own dry run will change; True: go on.

    A dry run that the real run would refuse, or that changes nothing, is shown as
    ``--dry-run`` shows it (and exits as it does) without a question.
    """
    if (preview.conflicts and not force) or not _changes(preview):
        render_result(preview, as_json=as_json, force=force, can_force=can_force)
        if not _changes(preview):
            echo("nothing to change")
        return False
    if confirm(ws, preview, whole_diff=whole_diff):
        return True
    echo("cancelled: nothing changed")
    return False


def _changes(result: RollbackResult | RevertResult) -> bool:
    return bool(
        result.restored or result.deleted or result.recreated or getattr(result, "moved", ())
    )


def rollback(
    ctx: typer.Context,
    to: Annotated[
        str | None,
        typer.Option(
            "--to",
            metavar="N",
            help="The snapshot to go back to: a number, latest, latest~N, "
            "before-prompt:N@SESSION or id:PREFIX (any line; on a terminal, without it: "
            "pick one).",
            show_default=False,
        ),
    ] = None,
    paths: Annotated[
        list[str] | None,
        paths_argument("Only these files or directories (default: all)."),
    ] = None,
    dry_run: DryRunOption = False,
    force: ForceOption = False,
    message: MessageOption = "",
    yes: YesOption = False,
    whole_diff: DiffOption = False,
    as_json: JsonOption = False,
) -> None:
    """Restore the state after snapshot N.

    The whole workspace, or only PATHS. The rollback is itself a new snapshot, so it
    can be rolled back. Refuses to overwrite files changed outside snapline unless
    --force. On a terminal it shows what will change and asks first (--yes: do not).
    """
    ctx.meta[FORCE_OFFERED] = True  # its refusals may advise --force
    ask = asking(yes=yes, dry_run=dry_run, as_json=as_json)
    if to is None and not ask:
        raise click.MissingParameter(ctx=ctx, param=_param(ctx, "to"))
    with workspace(ctx) as ws:
        if to is None:
            to = pick_snapshot(ws)
            if to is None:
                echo("cancelled: nothing changed")
                return
        from snapline.workspace.restoring import rollback_watched

        scope = user_paths(ws, paths)
        changes = None
        if ask:
            preview = ws.rollback(to, scope, dry_run=True, force=force, description=message)
            if not confirmed(ws, preview, as_json=as_json, force=force, whole_diff=whole_diff):
                return
        else:
            from snapline.cli.warm.served import watched

            # Served warm, only what the server's monitor saw change (cli/warm/served.py);
            # not after a question, as the worker's view of the monitor is of its fork.
            changes = watched(ws.root)
        result = rollback_watched(
            ws, changes, to, scope, dry_run=dry_run, force=force, description=message
        )
        sessions = [] if dry_run or as_json else taken_back(ws, result, ws.conversation(to))
    render_result(result, as_json=as_json, force=force)
    echo_resume(sessions)


def taken_back(ws: Workspace, result: RollbackResult, named: str | None = None) -> list[str]:
    """The Claude Code conversations whose recorded work a rollback took back.

    Args:
        ws: The open workspace.
        result: The rollback done (not a dry run).
        named: The session a ``before-prompt:N@SESSION`` reference named, first.

    Returns:
        Full session ids, each once: ``named``, then every session that recorded a
        change of a path the rollback changed, between its target and itself.
    """
    from snapline.hosts.claude_sessions import VIA, conversations
    from snapline.workspace.rows import stamped_snapshots

    sessions = [] if named is None else [named]
    made = result.snapshot
    if made is None or result.target_id is not None:
        return sessions  # nothing taken back, or a target on another line: no run of ours
    last = (made.number if result.external is None else result.external.number) - 1
    if last <= result.target:
        return sessions
    went = stamped_snapshots(ws, result.target + 1, last, VIA)
    return sessions + [s for s in conversations(went, result.changed) if s not in sessions]


def echo_resume(sessions: list[str]) -> None:
    """The line that resumes each conversation a rollback took work from, for the person."""
    for session in sessions:
        echo("resume that conversation: ", (f"claude --resume {session}", "bold"))


def _param(ctx: typer.Context, name: str) -> click.Option:
    found = next(p for p in ctx.command.params if p.name == name)
    assert isinstance(found, click.Option)  # typer builds every option as its TyperOption
    return found


def revert(
    ctx: typer.Context,
    number: Annotated[
        str,
        typer.Argument(
            metavar="N", help="The snapshot to undo: a number, latest, latest~N or id:PREFIX."
        ),
    ],
    dry_run: DryRunOption = False,
    message: MessageOption = "",
    yes: YesOption = False,
    whole_diff: DiffOption = False,
    as_json: JsonOption = False,
) -> None:
    """Undo the changes of one snapshot.

    Keeps everything recorded after N; recorded as a new snapshot. On a terminal it
    shows what will change and asks first (--yes: do not).
    """
    with workspace(ctx) as ws:
        if asking(yes=yes, dry_run=dry_run, as_json=as_json):
            preview = ws.revert(number, dry_run=True, description=message)
            if not confirmed(
                ws, preview, as_json=as_json, force=False, whole_diff=whole_diff, can_force=False
            ):
                return
        result = ws.revert(number, dry_run=dry_run, description=message)
    render_result(result, as_json=as_json, force=False, can_force=False)


def _undo_or_redo(name: Literal["undo", "redo"], doc: str) -> Callable[..., None]:
    # `undo` and `redo` take the same options, by construction: one command, made twice.
    def command(
        ctx: typer.Context,
        dry_run: DryRunOption = False,
        force: ForceOption = False,
        message: MessageOption = "",
        yes: YesOption = False,
        whole_diff: DiffOption = False,
        as_json: JsonOption = False,
    ) -> None:
        # The same preview, question and rendering around either method.
        ctx.meta[FORCE_OFFERED] = True  # its refusals may advise --force
        with workspace(ctx) as ws:
            step = ws.undo if name == "undo" else ws.redo
            if asking(yes=yes, dry_run=dry_run, as_json=as_json):
                preview = step(dry_run=True, force=force, description=message)
                if not confirmed(ws, preview, as_json=as_json, force=force, whole_diff=whole_diff):
                    return
            result = step(dry_run=dry_run, force=force, description=message)
            # An undo can take back another conversation's work; a redo gives it back.
            undone = name == "undo" and not (dry_run or as_json)
            sessions = taken_back(ws, result) if undone else []
        render_result(result, as_json=as_json, force=force)
        echo_resume(sessions)

    command.__name__ = command.__qualname__ = name
    command.__doc__ = doc
    return command


undo = _undo_or_redo(
    "undo",
    """Roll back what the latest change did, as a new snapshot.

    Again to go one change further back; `snapline redo` puts it back. Refuses to
    overwrite files changed outside snapline unless --force. On a terminal it shows
    what will change and asks first (--yes: do not).
    """,
)
redo = _undo_or_redo(
    "redo",
    """Roll back the last undo, as a new snapshot.

    Several levels, like an editor; a new change after an undo clears what can be
    redone. On a terminal it shows what will change and asks first (--yes: do not).
    """,
)
