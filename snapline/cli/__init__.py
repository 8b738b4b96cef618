"""The ``snapline`` command line (typer). Imports stay lazy: ``--help`` loads no diff engine.

A command goes to the warm server when one runs (``cli/warm/``), else runs here; either
way it is :func:`snapline.cli.dispatch.dispatch` that runs it.
"""

from __future__ import annotations

__all__ = ["main"]


def main() -> None:
    """Entry point of the ``snapline`` console script."""
    from snapline.cli.lean import words
    from snapline.cli.warm.client import run

    run(words())
