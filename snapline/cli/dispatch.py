"""The ordinary command line: what ``snapline ARGS`` runs, in its own process or a worker's.

One function for both, so a command served warm (``cli/warm/worker.py``) runs exactly
what it runs without a server. A hot command whose spec in the table (``cli/commands.py``)
names a lean path (the hook, ``record``, ``verify``) is offered to it before the typer
application is built; the lean path runs the plain forms the lean parser reads
(``cli/lean.py``) and hands everything else back. Everything else goes through typer.
"""

from __future__ import annotations

import sys

from snapline.cli import lean

__all__ = ["dispatch"]


def dispatch() -> None:
    """Run the command line of this process; exits with its code."""
    args = lean.words()
    if args == ["--version"]:
        # Asked by installers and hosts to check what runs: answered without typer.
        from snapline import __version__

        _say(f"snapline {__version__}\n")
        return
    if len(args) == 1 and args[0] in lean.HELP:
        # The first thing a newcomer types: the root's page, written from the table.
        from snapline.cli.root_help import page

        _say(page())
        return
    hot = lean.spec(args[0]) if args else None
    if hot is not None and hot.lean:
        # Run after every edit or agent event: skip building the typer app and rich.
        module, _, function = hot.lean.rpartition(".")
        __import__(f"snapline.cli.{module}")  # not importlib's: one module less on the way in
        code = getattr(sys.modules[f"snapline.cli.{module}"], function)(args[1:])
        if code is not None:
            sys.exit(code)
    from snapline.cli.app import run

    run()


def _say(text: str) -> None:
    """Write ``text`` to the output, or exit quietly when its reader went away."""
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:
        sys.exit(lean.reader_gone())
