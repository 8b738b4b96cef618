"""``snapline blame --summary``: the line counts, as a table or JSON."""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer

from snapline.cli.context import user_paths, workspace
from snapline.cli.output import echo, echo_json, plural
from snapline.cli.quoting import quote_path

if TYPE_CHECKING:
    from snapline.blame.summary import LineCounts

__all__ = ["summarize"]

_KINDS = ("agent", "person", "baseline", "unrecorded")


def summarize(ctx: typer.Context, paths: list[str] | None, *, as_json: bool) -> None:
    """Print who wrote how many lines of the tracked files under ``paths`` (all: none given)."""
    with workspace(ctx) as ws:
        found = ws.blame_summary(user_paths(ws, paths))
    if as_json:
        echo_json(found.to_json())
        return
    width = max([len("total"), *(len(quote_path(path)) for path in found.files)])
    echo(f"{'':<{width}} {'lines':>7} " + " ".join(f"{kind:>10}" for kind in _KINDS))
    for path, counts in found.files.items():
        echo(_row(quote_path(path), counts, width))
    echo((_row("total", found.total, width), "bold"))
    for title, counted in (
        ("agent sessions", found.total.sessions),
        ("people", found.total.people),
    ):
        if counted:
            echo(
                f"{title}: "
                + ", ".join(f"{who} {plural(n, 'line')}" for who, n in counted.most_common())
            )
    for path, why in found.skipped.items():
        echo(("skipped ", "yellow"), f"{quote_path(path)}: {why}", err=True)


def _row(name: str, counts: LineCounts, width: int) -> str:
    return f"{name:<{width}} {counts.lines:>7} " + " ".join(
        f"{counts.kinds[kind]:>10}" for kind in _KINDS
    )
