"""The typer application: parse arguments, call the library, render, map errors to exit codes."""

from __future__ import annotations

import typer

__all__ = ["app", "run"]

app = typer.Typer(
    name="snapline",
    help="Snapshot manager for coding agents: every change numbered, verifiable, reversible.",
    no_args_is_help=True,
    add_completion=False,
)


@app.callback()
def _root() -> None:
    """snapline: numbered snapshots, milestones and continuity checks for a workspace."""


def run() -> None:
    app()
