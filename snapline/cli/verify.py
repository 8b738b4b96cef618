"""Commands that check and maintain the store: ``verify`` (for CI) and ``gc``."""

from __future__ import annotations

import os
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from snapline.cli.context import JsonOption, state, workspace
from snapline.cli.errors import EXIT_CORRUPT, EXIT_FAILURE, describe, error_json, exit_code_for
from snapline.cli.output import echo, echo_json, format_bytes, github_annotation, plural
from snapline.cli.quoting import quote_text
from snapline.cli.render import echo_problems
from snapline.cli.report import ReportOption, note_untracked, untracked_inside

if TYPE_CHECKING:
    from snapline import Report

__all__ = ["Format", "register"]


class Format(str, Enum):
    """How ``verify`` prints problems."""

    text = "text"
    github = "github"


def register(app: typer.Typer) -> None:
    """Add this module's commands to ``app``."""
    app.command("verify")(verify)
    app.command("gc")(gc)


def verify(
    ctx: typer.Context,
    as_json: JsonOption = False,
    output_format: Annotated[
        Format,
        typer.Option(
            "--format",
            case_sensitive=False,
            help="text, or github for ::error annotations in GitHub Actions.",
        ),
    ] = Format.text,
    full: Annotated[
        bool,
        typer.Option(
            "--full",
            help="Check the whole history, not only what is new since the last check.",
        ),
    ] = False,
    deep: Annotated[
        bool,
        typer.Option(
            "--deep",
            help="Also rebuild every recorded version (reads all content; implies --full).",
        ),
    ] = False,
    report_path: ReportOption = None,
) -> None:
    """Check the history and the workspace (for CI).

    Checks the store, the snapshot sequence and chain, milestone continuity, every
    ledger file, and that the workspace matches the latest snapshot. The first check
    (and every check in a fresh clone) reads the whole history; after one that found
    nothing wrong, the next checks what is new since, plus any ledger file changed
    since. --full always reads the whole history.

    Exits 0 when everything holds, 1 when there are problems, 3 when the store is
    corrupt. Meant for CI; --report also writes the review page (same exit codes).
    """
    from snapline import Problem, SnaplineError

    try:
        with workspace(ctx) as ws:
            report = ws.verify(full=full, deep=deep)
            latest = ws.latest
    except SnaplineError as error:
        if not as_json and output_format is Format.text:
            raise
        # CI reads the annotations and the JSON: an unreadable store is reported the
        # same way as any other problem, then exits with the error's own code.
        message, code = describe(error)
        exit_code_for(error, debug=state(ctx).debug)
        problem = Problem(
            kind="store",
            message=str(error),
            severity="corrupt" if code == EXIT_CORRUPT else "error",
        )
        if as_json:
            # The report's shape, plus what every command prints for an error.
            echo_json(
                {
                    "ok": False,
                    "problems": [problem.model_dump(mode="json")],
                    **error_json(message, type(error).__name__, code),
                }
            )
        else:
            echo(github_annotation(problem))
        raise typer.Exit(code) from None
    if as_json:
        echo_json(report.to_json())
    elif output_format is Format.github:
        for problem in report.problems:
            echo(github_annotation(problem))
        _echo_summary(report, latest, list_problems=False)
    else:
        _echo_summary(report, latest, list_problems=True)
    if report_path is not None:
        _write_page(ctx, report_path, report)
    if report.corrupt:
        raise typer.Exit(EXIT_CORRUPT)
    if not report.ok:
        raise typer.Exit(EXIT_FAILURE)


def _write_page(ctx: typer.Context, path: Path, report: Report) -> None:
    # Outside verify's own error handling: a page that cannot be written is an error of
    # its own, not a problem of the store. The page shows this very result (--deep's
    # too) rather than checking a second time.
    with workspace(ctx) as ws:
        ws.report(path, verification=report)
        untracked = untracked_inside(ws, os.path.abspath(path))
    echo(f"wrote the review page {quote_text(os.path.abspath(path))}", err=True)
    if untracked:
        note_untracked(os.path.abspath(path))


def _echo_summary(report: Report, latest: int, *, list_problems: bool) -> None:
    if report.ok:
        checked = _checked(report.since, latest)
        echo(("ok", "bold green"), f": {checked}, the workspace matches the latest snapshot")
        return
    what = "the store is corrupt" if report.corrupt else "verification failed"
    # With annotations the problems are already on stdout; the headline is for people.
    echo((f"{what}: {plural(len(report.problems), 'problem')}", "bold red"), err=not list_problems)
    if list_problems:
        echo_problems(report.problems)


def _checked(since: int | None, latest: int) -> str:
    if since is None:
        return f"snapshots 0..{latest} verified"
    earlier = "all" if since >= latest else f"0..{since}"
    return f"snapshots 0..{latest} verified ({earlier} by an earlier check; --full rereads them)"


def gc(ctx: typer.Context, as_json: JsonOption = False) -> None:
    """Remove stored content no snapshot refers to.

    Also compacts the store. Reports the bytes freed.
    """
    with workspace(ctx) as ws:
        result = ws.gc()
    if as_json:
        echo_json({"blobs_removed": result.blobs_removed, "bytes_freed": result.bytes_freed})
        return
    echo(
        f"removed {plural(result.blobs_removed, 'unreferenced blob')}, "
        f"freed {format_bytes(result.bytes_freed)}"
    )
