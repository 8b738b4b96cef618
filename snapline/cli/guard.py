"""The guard command: run a check on the latest snapshot, keep its outcome, roll back on failure."""

from __future__ import annotations

import shlex
from typing import TYPE_CHECKING, Annotated

import typer

from snapline.cli.context import JsonOption, workspace
from snapline.cli.output import echo, echo_json, plural
from snapline.cli.render import model_json

if TYPE_CHECKING:
    from snapline.guard import GuardResult

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
        typer.Option("--rollback", help="On failure, roll back to the last snapshot that passed."),
    ] = False,
    session: Annotated[
        str | None,
        typer.Option("--session", metavar="ID", help="Id of the agent session or person."),
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """Run a check (the tests) on the latest snapshot and record whether it passed.

    Give the check after --; its output passes through (on stderr with --json). The
    outcome is kept in the ledger and shown by log, show and report. Exits 0 when the
    check passed, 1 when it failed; 127 or 126 when it cannot be started (nothing is
    recorded). Refuses to start when the workspace differs from the latest snapshot.
    With --rollback, a failure rolls back to the last snapshot that passed (recorded
    as a snapshot; `snapline undo` brings the failing change back).
    """
    from snapline.guard import CheckOutput

    with workspace(ctx) as ws:
        output = CheckOutput.STDERR if as_json else CheckOutput.INHERIT
        result = ws.guard(command, rollback=rollback, session=session, output=output)
    if as_json:
        echo_json(
            {
                "passed": result.passed,
                "check": model_json(result.check),
                "last_pass": result.last_pass,
                "rollback": model_json(result.rollback),
            }
        )
    else:
        _echo_result(result, rollback)
    if not result.passed:
        raise typer.Exit(1)


def _echo_result(result: GuardResult, rollback: bool) -> None:
    check = result.check
    shown = shlex.join(check.command)
    if check.passed:
        echo(
            "snapline: snapshot ",
            (str(check.snapshot), "bold yellow"),
            " ",
            ("passed", "green"),
            f" {shown}",
            err=True,
        )
        return
    echo(
        "snapline: snapshot ",
        (str(check.snapshot), "bold yellow"),
        " ",
        ("failed", "red"),
        f" {shown} (exit {check.exit_code})",
        err=True,
    )
    if not rollback:
        return
    if result.last_pass is None:
        echo("snapline: no earlier snapshot passed a check: nothing rolled back", err=True)
        return
    made = result.rollback.snapshot if result.rollback is not None else None
    if made is None:
        echo(f"snapline: the files are already those of snapshot {result.last_pass}", err=True)
        return
    changed = plural(len(result.rollback.changed) if result.rollback else 0, "path")
    echo(
        f"snapline: rolled back to snapshot {result.last_pass}, the last that passed, as snapshot ",
        (str(made.number), "bold yellow"),
        f" ({changed} changed); `snapline undo` brings the failing change back",
        err=True,
    )
