"""The ordinary command line: what ``snapline ARGS`` runs, in its own process or a worker's.

One function for both, so a command served warm (``cli/warm/worker.py``) runs exactly
what it runs without a server. The hook, a plain ``record`` and a plain ``verify`` are
sent to their lean paths before the typer application is built (see
docs/architecture.md); everything else goes through typer.
"""

from __future__ import annotations

import sys

__all__ = ["dispatch"]


def dispatch() -> None:
    """Run the command line in ``sys.argv``; exits with its code."""
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
