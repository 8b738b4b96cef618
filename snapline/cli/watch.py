"""``snapline watch``: record changes on disk as they happen, for agents without hooks."""

from __future__ import annotations

import signal
import sys
import threading
from typing import TYPE_CHECKING, Annotated

import typer

from snapline.cli.context import workspace
from snapline.cli.output import echo, plural

if TYPE_CHECKING:
    from snapline import Snapshot

__all__ = ["watch"]


def watch(
    ctx: typer.Context,
    quiet_ms: Annotated[
        int,
        typer.Option(
            "--quiet-ms",
            metavar="MS",
            min=1,
            help="Record after this many milliseconds without a new change.",
        ),
    ] = 300,
) -> None:
    """Watch the workspace and record each burst of changes as one snapshot (tool `watch`).

    For agents and editors without hooks (aider, Codex CLI, an editor). Ignored paths
    never trigger a snapshot; a burst of changes (a git checkout) becomes one. Other
    snapline commands and hooks keep working beside it. Ctrl-C records what is pending,
    then stops. Needs watchdog: pip install 'snapline[watch]'.
    """
    from snapline.cli.warm.control import autostart
    from snapline.hosts.watch import Watcher

    # The agent's own `snapline` commands beside the watcher answer from a warm server
    # (never in CI, nor with SNAPLINE_SERVER=0; docs/cli.md).
    trouble = autostart()
    if trouble is not None:
        echo(f"snapline: warning: {trouble}", err=True)
    stop = threading.Event()
    with workspace(ctx) as ws:
        watcher = Watcher(ws, quiet=quiet_ms / 1000, on_snapshot=_said)
        # Ctrl-C and SIGTERM only ask the loop to stop, so a recording in progress
        # finishes and what is pending is recorded before the process exits.
        for signum in (signal.SIGINT, signal.SIGTERM):
            signal.signal(signum, lambda *_: stop.set())

        def ready() -> None:
            echo(("watching ", "green"), f"{ws.root} (Ctrl-C to stop)", err=True)
            sys.stderr.flush()

        watcher.run(stop, on_ready=ready)
    echo("stopped watching", err=True)


def _said(snapshot: Snapshot) -> None:
    echo(
        (f"snapshot {snapshot.number}", "green"),
        f": {snapshot.description} [{plural(len(snapshot.files), 'file')}]",
    )
    sys.stdout.flush()
