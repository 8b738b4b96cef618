"""Commands that check and maintain the store: ``verify`` (for CI) and ``gc``.

``verify``'s work is in ``cli/checking.py``, shared with its lean path without typer.
"""

from __future__ import annotations

from enum import Enum
from typing import Annotated

import typer

from snapline.cli.checking import verify_command
from snapline.cli.context import JsonOption, state, workspace
from snapline.cli.output import echo, echo_json, plural
from snapline.cli.report import ReportOption
from snapline.sizes import format_bytes

__all__ = ["Format", "gc", "verify"]


class Format(str, Enum):
    """How ``verify`` prints problems."""

    text = "text"
    github = "github"


def verify(
    ctx: typer.Context,
    as_json: JsonOption = False,
    output_format: Annotated[
        Format,
        typer.Option(
            "--format",
            metavar="[text|github]",  # typer 0.26 writes <text|github>
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
    options = state(ctx)
    code = verify_command(
        options.root,
        options.timeout,
        as_json=as_json,
        github=output_format is Format.github,
        full=full,
        deep=deep,
        report_path=report_path,
        debug=options.debug,
    )
    if code:
        raise typer.Exit(code)


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
