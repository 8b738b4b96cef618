"""``snapline report``: the review page of the history, one self-contained HTML file."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from snapline.cli.context import JsonOption, SessionFilterOption, workspace
from snapline.cli.output import echo, echo_json
from snapline.cli.quoting import quote_text
from snapline.sizes import format_bytes

if TYPE_CHECKING:
    from snapline import Workspace

__all__ = ["ReportOption", "note_untracked", "report", "untracked_inside"]

ReportOption = Annotated[
    Path | None,
    typer.Option(
        "--report",
        metavar="FILE",
        dir_okay=False,
        help="Also write the review page (HTML) there, for CI to publish.",
    ),
]
"""``--report FILE`` on ``snapline verify``."""


def report(
    ctx: typer.Context,
    output: Annotated[
        Path | None,
        typer.Option(
            "-o",
            "--output",
            metavar="FILE",
            dir_okay=False,
            help=(
                "Where to write the page (default: report.html in the local state, "
                ".git/snapline/ or .snapline/; never committed)."
            ),
        ),
    ] = None,
    milestone: Annotated[
        int | None,
        typer.Option("--milestone", metavar="M", min=1, help="Only this milestone."),
    ] = None,
    start_ref: Annotated[
        str | None,
        typer.Option(
            "--from", metavar="A", help="Only snapshots from A on (N, latest~N, id:PREFIX)."
        ),
    ] = None,
    end_ref: Annotated[
        str | None, typer.Option("--to", metavar="B", help="Only snapshots up to B.")
    ] = None,
    session: SessionFilterOption = None,
    as_json: JsonOption = False,
) -> None:
    """Write the review page: milestones, snapshots and diffs in one HTML file.

    The page opens from disk in any browser and needs no network. It leads with the
    verification result (as `snapline verify`) and the totals. Exits 0 whatever the
    verification found; `snapline verify --report FILE` fails CI as verify does.
    A merge snapshot shows the lines it joined, each of their snapshots with its own
    diff; such a snapshot (id:PREFIX) as A or B stands for the merge that joined it.
    """
    from snapline.report import local_path

    with workspace(ctx) as ws:
        start = None if start_ref is None else _on_page(ws, start_ref)
        end = None if end_ref is None else _on_page(ws, end_ref)
        page = ws.report(
            output,
            milestone=milestone,
            start=start,
            end=end,
            session=session,
            local=output is None,
        )
        path = os.path.abspath(local_path(ws.root) if output is None else output)
        untracked = output is not None and untracked_inside(ws, path)
    size = len(page.encode("utf-8"))
    if as_json:
        echo_json({"path": path, "bytes": size})
    else:
        echo(("wrote the review page ", "green"), f"{quote_text(path)} ({format_bytes(size)})")
    if untracked:
        note_untracked(path)


def _on_page(ws: Workspace, ref: str) -> int:
    """The main-line snapshot under which the page shows the snapshot ``ref`` names."""
    side = ws.side_snapshot(ref)
    if side is None or side.joined_by is None:
        # A line not joined yet is under no merge: resolving refuses it, saying so.
        return ws.resolve(ref)
    return side.joined_by


def untracked_inside(ws: Workspace, path: str) -> bool:
    """Whether the page at ``path`` lies in the workspace, not ignored (so it is drift)."""
    root = os.path.realpath(ws.root)
    real = os.path.realpath(path)
    if not real.startswith(root.rstrip(os.sep) + os.sep):
        return False
    return any(problem.kind == "untracked" for problem in ws.check_sync([path]).problems)


def note_untracked(path: str) -> None:
    """Say on stderr that a page written into the workspace will show as untracked."""
    echo(
        ("note: ", "yellow"),
        f"{quote_text(path)} is inside the workspace and not ignored: `snapline verify` will "
        "report it as untracked; add it to .gitignore or write the page elsewhere",
        err=True,
    )
