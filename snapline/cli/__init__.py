"""The ``snapline`` command line (typer). Imports stay lazy: ``--help`` loads no diff engine.

A command goes to the warm server when one runs (``cli/warm/``), else runs here; either
way it is :func:`snapline.cli.dispatch.dispatch` that runs it.
"""

from __future__ import annotations

import sys

__all__ = ["main"]


def main() -> None:
    """Entry point of the ``snapline`` console script."""
    from snapline.cli.warm.client import forward

    code = forward(sys.argv[1:])
    if code is not None:
        sys.exit(code)
    from snapline.cli.dispatch import dispatch

    dispatch()
