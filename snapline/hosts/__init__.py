"""Agent hosts: the ways snapline runs inside coding-agent tools (hooks, watch).

Each host module imports only what its own path needs, so a per-event host (a Claude
Code hook) starts lean; nothing is re-exported here.
"""

from __future__ import annotations

__all__: list[str] = []
