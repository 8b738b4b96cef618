"""Agent hosts: the ways snapline runs inside coding-agent tools (hooks, watch, MCP).

Each host module imports only what its own path needs, so a per-event host (a Claude
Code hook) starts lean; a long-lived one (the MCP server) keeps one ``Workspace`` open
and needs an optional dependency (``snapline[mcp]``). Nothing is re-exported here.
"""

from __future__ import annotations

__all__: list[str] = []
