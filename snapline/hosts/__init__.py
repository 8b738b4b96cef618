"""Agent hosts built on the library: long-lived servers that keep one ``Workspace`` open.

Each module here needs an optional dependency (``snapline[mcp]`` for
:mod:`~snapline.hosts.mcp_server`) and is imported only by the command that runs it.
"""

__all__: list[str] = []
