"""``snapline server start|stop|status``: the warm command server (``cli/warm/``)."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from snapline.cli.context import JsonOption, command_group
from snapline.cli.output import echo, echo_json

__all__ = ["server_group"]

server_group = command_group("server")


@server_group.command("start")
def start(
    idle_timeout: Annotated[
        float,
        typer.Option(
            "--idle-timeout",
            metavar="SECONDS",
            min=1.0,
            help="Exit after this many seconds without a command.",
        ),
    ] = 3600.0,
    as_json: JsonOption = False,
) -> None:
    """Start the warm server for this snapline, unless it runs already.

    It keeps snapline imported and forks a worker per command, which runs the ordinary
    command line with the caller's terminal, directory and environment. Any `snapline`
    command then uses it; without it, or when it is stale, commands run as before.
    """
    from snapline.cli.warm.control import start as start_server

    running, started = start_server(idle_timeout)
    if as_json:
        echo_json({**running, "running": True, "started_now": started})
    elif started:
        echo(("server started", "green"), f" (pid {running['pid']}): {running['socket']}")
    else:
        echo("server already running", f" (pid {running['pid']}): {running['socket']}")


@server_group.command("stop")
def stop(as_json: JsonOption = False) -> None:
    """Stop the warm server; commands it is running finish first, on their own."""
    from snapline.cli.warm.control import stop as stop_server

    pid = stop_server()
    if as_json:
        echo_json({"stopped": pid is not None, "pid": pid})
    elif pid is None:
        echo("no server running")
    else:
        echo(("server stopped", "green"), f" (pid {pid})")


@server_group.command("status")
def status(as_json: JsonOption = False) -> None:
    """Say whether the warm server runs, and what it has done. Exit 0 either way."""
    from snapline.cli.warm import protocol
    from snapline.cli.warm.control import status as server_status

    running = server_status()
    if as_json:
        echo_json(
            {"running": running is not None, "socket": protocol.paths().socket, **(running or {})}
        )
        return
    if running is None:
        echo(f"no server running (socket: {protocol.paths().socket})")
        return
    echo(("server running", "green"), f" (pid {running['pid']}): {running['socket']}")
    echo(_summary(running))


def _summary(running: dict[str, Any]) -> str:
    return (
        f"  snapline {running['version']}, {running['requests']} commands served, "
        f"{running['workers']} running, idle timeout {running['idle_timeout']:g} s"
    )
