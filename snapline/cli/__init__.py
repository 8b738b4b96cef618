"""The ``snapline`` command line (typer). Imports stay lazy: ``--help`` loads no diff engine."""

from __future__ import annotations

__all__ = ["main"]


def main() -> None:
    """Entry point of the ``snapline`` console script."""
    from snapline.cli.app import run

    run()
