"""The guard command: run a check on the latest snapshot, keep its outcome, roll back on failure."""

from __future__ import annotations

import shlex
from typing import TYPE_CHECKING, Annotated

import typer

from snapline.cli.context import JsonOption, workspace
from snapline.cli.output import echo, echo_json, plural
from snapline.cli.render import model_json

if TYPE_CHECKING:
    from collections.abc import Callable

    from snapline import RollbackResult, Workspace
    from snapline.guard import GuardResult
    from snapline.guard.outcome import ForeignSnapshot

# A held snapshot's files named in full up to this many; past it, a count.
_FILES_SHOWN = 5

__all__ = ["guard"]


def guard(
    ctx: typer.Context,
    command: Annotated[
        list[str],
        typer.Argument(
            metavar="CMD", help="The check and its arguments (after --).", show_default=False
        ),
    ],
    rollback: Annotated[
        bool,
        typer.Option(
            "--rollback", help="On failure, roll back to the last snapshot that passed this check."
        ),
    ] = False,
    force: Annotated[
        bool,
        typer.Option(
            "--force",
            help="With --rollback, also take out a person's edit or another session's work "
            "without asking.",
        ),
    ] = False,
    session: Annotated[
        str | None,
        typer.Option("--session", metavar="ID", help="Id of the agent session or person."),
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """Run a check (the tests) on the latest snapshot and record whether it passed.

    Give the check after --; its output passes through (on stderr with --json). The
    outcome is kept in the history and shown by log, show and report. Exits 0 when the
    check passed, 1 when it failed; 127 or 126 when it cannot be started (nothing is
    recorded); 3 when the check deleted or replaced the store (nothing recorded).
    Refuses to start when the workspace differs from the latest snapshot.
    With --rollback, a failure rolls back to the last snapshot that passed the same
    check (recorded as a snapshot; `snapline undo` brings the failing change back).
    A rollback that would take out a person's edit or another session's work asks
    first on a terminal (showing what it changes) and is refused elsewhere (exit 1,
    naming those snapshots), unless --force.
    """
    from snapline.cli.preview import asking
    from snapline.guard import CheckOutput

    with workspace(ctx) as ws:
        output = CheckOutput.STDERR if as_json else CheckOutput.INHERIT
        ask = asking(yes=False, dry_run=False, as_json=as_json)
        result = ws.guard(
            command,
            rollback=rollback,
            session=session,
            output=output,
            force=force,
            confirm=_asker(ws) if ask else None,
        )
    if as_json:
        echo_json(
            {
                "passed": result.passed,
                "check": model_json(result.check),
                "last_pass": result.last_pass,
                "rollback": model_json(result.rollback),
                "held": [model_json(held) for held in result.held],
            }
        )
    else:
        _echo_result(result, rollback, asked=ask)
    if not result.passed:
        raise typer.Exit(1)


def _echo_result(result: GuardResult, rollback: bool, *, asked: bool) -> None:
    check = result.check
    shown = shlex.join(check.command)
    outcome = ("passed", "green") if check.passed else ("failed", "red")
    said = f" {shown}" if check.passed else f" {shown} (exit {check.exit_code})"
    echo("snapline: snapshot ", (str(check.snapshot), "bold yellow"), " ", outcome, said, err=True)
    if check.passed:
        return
    if not rollback:
        return
    if result.last_pass is None:
        echo("snapline: no earlier snapshot passed this check: nothing rolled back", err=True)
        return
    if result.held and asked:
        # The person saw what would go and said no.
        echo(
            f"snapline: nothing rolled back; `snapline rollback --to {result.last_pass}` "
            "when you want it",
            err=True,
        )
        return
    if result.held:
        _echo_held(result, shown)
        return
    made = result.rollback.snapshot if result.rollback is not None else None
    if made is None:
        echo(f"snapline: the files are already those of snapshot {result.last_pass}", err=True)
        return
    changed = plural(len(result.rollback.changed) if result.rollback else 0, "path")
    echo(
        f"snapline: rolled back to snapshot {result.last_pass}, the last that passed this "
        "check, as snapshot ",
        (str(made.number), "bold yellow"),
        f" ({changed} changed); `snapline undo` brings the failing change back",
        err=True,
    )


def _asker(ws: Workspace) -> Callable[[tuple[ForeignSnapshot, ...], RollbackResult], bool]:
    # A person at a terminal: what the rollback would take out that is not this
    # session's, then rollback's own preview and [y/N].
    from snapline.cli.preview import confirm

    def ask(held: tuple[ForeignSnapshot, ...], preview: RollbackResult) -> bool:
        echo(
            "the check failed; ",
            (f"rolling back to snapshot {preview.target}", "bold"),
            ", the last that passed it, also takes out work that is not this session's:",
        )
        _echo_held_list(held, err=False)
        return confirm(ws, preview, whole_diff=False)

    return ask


def _echo_held(result: GuardResult, shown: str) -> None:
    target = result.last_pass
    echo(
        f"snapline: not rolled back to snapshot {target}, the last that passed this check: "
        "that would also take out work that is not this session's:",
        err=True,
    )
    _echo_held_list(result.held, err=True)
    echo(
        f"snapline: to take it out anyway, run `snapline rollback --to {target}`, or "
        f"`snapline guard --rollback --force -- {shown}`",
        err=True,
    )


def _echo_held_list(held: tuple[ForeignSnapshot, ...], *, err: bool) -> None:
    from snapline.cli.quoting import quote_path

    for snapshot in held:
        names = [quote_path(path) for path in snapshot.files[:_FILES_SHOWN]]
        more = len(snapshot.files) - len(names)
        files = ", ".join(names) + (f" and {plural(more, 'more file')}" if more else "")
        echo(
            "  snapshot ",
            (str(snapshot.number), "bold yellow"),
            f" ({snapshot.tool}): {snapshot.reason}: {files or 'no files'}",
            err=err,
        )
