"""``snapline mcp``: serve the workspace as Model Context Protocol tools over stdio.

The server lives in :mod:`snapline.hosts.mcp_server` and needs the optional ``mcp``
SDK (``pip install 'snapline[mcp]'``); it is imported only when the command runs.
"""

from __future__ import annotations

import typer

from snapline.cli.context import state
from snapline.cli.errors import EXIT_USAGE
from snapline.cli.output import echo

__all__ = ["mcp"]


def mcp(ctx: typer.Context) -> None:
    """Serve this workspace to an MCP client (Claude, editors, agents) over stdio.

    One workspace stays open for the server's life. The root is --root, or found from
    the working directory upwards. Needs the MCP SDK: pip install 'snapline[mcp]'.
    """
    try:
        from snapline.hosts.mcp_server import serve
    except ModuleNotFoundError as error:
        if (error.name or "").split(".")[0] != "mcp":
            raise
        echo(
            "snapline: error: `snapline mcp` needs the MCP SDK, which is not installed; "
            "run: pip install 'snapline[mcp]'",
            err=True,
        )
        raise typer.Exit(EXIT_USAGE) from None
    options = state(ctx)
    serve(options.root, timeout=options.timeout)
