"""The ``snapline`` command line (typer). Imports stay lazy: ``--help`` loads no diff engine."""

from __future__ import annotations

import sys

__all__ = ["main"]


def main() -> None:
    """Entry point of the ``snapline`` console script."""
    if sys.argv[1:] == ["--version"]:
        # Asked by installers and hosts to check what runs: answered without typer.
        from snapline import __version__

        sys.stdout.write(f"snapline {__version__}\n")
        return
    if sys.argv[1:2] == ["hook"]:
        # A hook runs once per agent event: skip building the typer app and rich.
        from snapline.cli.hook import fast_path

        code = fast_path(sys.argv[2:])
        if code is not None:
            sys.exit(code)
    if sys.argv[1:2] == ["record"]:
        # Run after every edit: a plain record skips building the typer app too.
        from snapline.cli.fast import fast_record

        code = fast_record(sys.argv[2:])
        if code is not None:
            sys.exit(code)
    if sys.argv[1:2] == ["verify"]:
        # Run by CI and after edits: a plain verify skips building the typer app too.
        from snapline.cli.checking import fast_verify

        code = fast_verify(sys.argv[2:])
        if code is not None:
            sys.exit(code)
    from snapline.cli.app import run

    run()
