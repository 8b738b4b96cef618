"""``snapline mcp``: the library as Model Context Protocol tools, over stdio.

Built on the official ``mcp`` Python SDK (2.x, ``MCPServer``). One :class:`Workspace`
stays open for the server's life, so every call runs at library speed; the SDK runs
each (synchronous) tool in a worker thread, which the library allows. A snapline error
comes back as an MCP tool error carrying its one-line message; results are JSON
objects built from the library's models (``model_dump(mode="json")``). Snapshot
arguments take numbers or references (``"latest"``, ``"latest~2"``).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from snapline.errors import SnaplineError
from snapline.snapshots.snapshot import Snapshot
from snapline.workspace import Workspace

__all__ = ["SERVER_NAME", "build_server", "serve"]

SERVER_NAME = "snapline"

_INSTRUCTIONS = (
    "snapline keeps a numbered, verifiable history of every change to this workspace. "
    "Change files through write_file / edit_file / delete_file / move_file so each change "
    "is recorded as a snapshot; call record after a shell command changed files. "
    "Snapshots are numbers or 'latest' / 'latest~N'. rollback is a dry run unless "
    "apply=true; undo and redo step through your own changes like an editor."
)

Ref = int | str
"""A snapshot argument: a number, ``"latest"`` or ``"latest~N"``."""


@contextlib.contextmanager
def _tool_errors() -> Iterator[None]:
    """Turn a snapline error (or an OS error) into an MCP tool error with its message."""
    try:
        yield
    except SnaplineError as error:
        raise ToolError(str(error)) from error
    except OSError as error:
        raise ToolError(f"{error.strerror or error}: {error.filename or ''}".strip()) from error


def _snapshot(snapshot: Snapshot | None, *, deltas: bool = False) -> dict[str, Any] | None:
    if snapshot is None:
        return None
    exclude = None if deltas else {"files": {"__all__": {"forward", "reverse"}}}
    return snapshot.model_dump(mode="json", exclude=exclude)


def build_server(ws: Workspace) -> MCPServer:
    """An MCP server whose tools act on ``ws``.

    Args:
        ws: The open workspace; it must stay open while the server runs.

    Returns:
        The server, ready for ``run("stdio")``.
    """
    # Warnings only: the SDK logs every tool error at INFO on stderr otherwise.
    server: MCPServer = MCPServer(SERVER_NAME, instructions=_INSTRUCTIONS, log_level="WARNING")
    via = {"via": "mcp"}

    @server.tool()
    def status(paths: list[str] | None = None) -> dict[str, Any]:
        """The latest snapshot and every file that differs from the history (drift)."""
        with _tool_errors():
            report = ws.check_sync(paths).to_json()
            return {
                "root": str(ws.root),
                "latest": ws.latest,
                "in_sync": report["ok"],
                "problems": report["problems"],
            }

    @server.tool()
    def write_file(
        path: str, content: str, description: str = "", session: str | None = None
    ) -> dict[str, Any]:
        """Write a file (text, UTF-8) and record it as one snapshot."""
        with _tool_errors():
            snapshot = ws.write_file(
                path, content, description=description, session=session, metadata=via
            )
            return {"snapshot": _snapshot(snapshot)}

    @server.tool()
    def edit_file(
        path: str,
        old_text: str,
        new_text: str,
        description: str = "",
        session: str | None = None,
    ) -> dict[str, Any]:
        """Replace the one exact occurrence of old_text by new_text and record it.

        Refused when the file changed outside snapline, or old_text is missing or occurs
        more than once (include more context).
        """
        with _tool_errors():
            snapshot = ws.edit_file(
                path, old_text, new_text, description=description, session=session, metadata=via
            )
            return {"snapshot": _snapshot(snapshot)}

    @server.tool()
    def delete_file(path: str, description: str = "", session: str | None = None) -> dict[str, Any]:
        """Delete a tracked file and record it."""
        with _tool_errors():
            snapshot = ws.delete_file(path, description=description, session=session, metadata=via)
            return {"snapshot": _snapshot(snapshot)}

    @server.tool()
    def move_file(
        source: str,
        destination: str,
        overwrite: bool = False,
        description: str = "",
        session: str | None = None,
    ) -> dict[str, Any]:
        """Move or rename a tracked file and record it as a rename."""
        with _tool_errors():
            snapshot = ws.move_file(
                source,
                destination,
                overwrite=overwrite,
                description=description,
                session=session,
                metadata=via,
            )
            return {"snapshot": _snapshot(snapshot)}

    @server.tool()
    def record(
        paths: list[str] | None = None, description: str = "", session: str | None = None
    ) -> dict[str, Any]:
        """Record what changed on disk (after a shell command): these paths, or everything."""
        with _tool_errors():
            snapshot = ws.record(
                paths, tool="mcp", description=description, session=session, metadata=via
            )
            return {"snapshot": _snapshot(snapshot)}

    @server.tool()
    def log(limit: int = 20, file: str | None = None, session: str | None = None) -> dict[str, Any]:
        """The latest snapshots, newest first (without their diffs)."""
        with _tool_errors():
            found = ws.snapshots(file=file, session=session, limit=limit, newest_first=True)
            return {"snapshots": [_snapshot(s) for s in found]}

    @server.tool()
    def show(snapshot: Ref = "latest") -> dict[str, Any]:
        """One snapshot: its fields, the files it changed and its unified diff."""
        with _tool_errors():
            found = ws.snapshot(snapshot)
            text = ws.diff(found.number - 1, found.number) if found.number else ""
            return {"snapshot": _snapshot(found), "diff": text}

    @server.tool()
    def diff(
        from_snapshot: Ref, to_snapshot: Ref = "latest", paths: list[str] | None = None
    ) -> dict[str, Any]:
        """The unified diff between two snapshots (for git apply), optionally of some paths."""
        with _tool_errors():
            return {"diff": ws.diff(from_snapshot, to_snapshot, paths=paths)}

    @server.tool()
    def modified_files(from_snapshot: Ref = 0, to_snapshot: Ref = "latest") -> dict[str, Any]:
        """Each file changed between two snapshots, with its status and the snapshots."""
        with _tool_errors():
            files = ws.modified_files(from_snapshot, to_snapshot)
            return {"files": [f.model_dump(mode="json") for f in files]}

    @server.tool()
    def file_diff(path: str, from_snapshot: Ref, to_snapshot: Ref = "latest") -> dict[str, Any]:
        """The unified diff of one file between two snapshots."""
        with _tool_errors():
            return {"diff": ws.diff(from_snapshot, to_snapshot, paths=[path])}

    @server.tool()
    def rollback(
        to: Ref,
        paths: list[str] | None = None,
        apply: bool = False,
        force: bool = False,
        description: str = "",
        session: str | None = None,
    ) -> dict[str, Any]:
        """Restore the state after snapshot `to`: a dry run unless apply is true."""
        with _tool_errors():
            result = ws.rollback(
                to,
                paths,
                dry_run=not apply,
                force=force,
                description=description,
                session=session,
                metadata=via,
            )
            return result.model_dump(mode="json")

    @server.tool()
    def revert(
        snapshot: Ref, dry_run: bool = False, description: str = "", session: str | None = None
    ) -> dict[str, Any]:
        """Undo the changes of one snapshot, keeping later ones (as git revert)."""
        with _tool_errors():
            result = ws.revert(
                snapshot, dry_run=dry_run, description=description, session=session, metadata=via
            )
            return result.model_dump(mode="json")

    @server.tool()
    def undo(
        dry_run: bool = False, description: str = "", session: str | None = None
    ) -> dict[str, Any]:
        """Roll back what the latest change did; again to go further back."""
        with _tool_errors():
            result = ws.undo(
                dry_run=dry_run, description=description, session=session, metadata=via
            )
            return result.model_dump(mode="json")

    @server.tool()
    def redo(
        dry_run: bool = False, description: str = "", session: str | None = None
    ) -> dict[str, Any]:
        """Roll back the last undo."""
        with _tool_errors():
            result = ws.redo(
                dry_run=dry_run, description=description, session=session, metadata=via
            )
            return result.model_dump(mode="json")

    @server.tool()
    def milestone_create(
        title: str, description: str = "", to: Ref = "latest", tags: list[str] | None = None
    ) -> dict[str, Any]:
        """Close the snapshots since the last milestone (up to `to`) as the next milestone."""
        with _tool_errors():
            milestone = ws.milestones.create(title, description, to=to, tags=tags or ())
            return milestone.model_dump(mode="json")

    @server.tool()
    def milestone_list() -> dict[str, Any]:
        """Every milestone, in order."""
        with _tool_errors():
            return {"milestones": [m.model_dump(mode="json") for m in ws.milestones.list()]}

    @server.tool()
    def verify(full: bool = False, deep: bool = False) -> dict[str, Any]:
        """Check the history (sequence, links, chain hashes) and the disk against it.

        After a clean check, the next checks what is new since it (``since`` in the
        result); ``full`` rereads the whole history, ``deep`` also every version.
        """
        with _tool_errors():
            return ws.verify(full=full, deep=deep).to_json()

    return server


def serve(root: Path | None, *, timeout: float) -> None:
    """Open the workspace and serve its tools over stdio until the client disconnects.

    Args:
        root: The workspace root; ``None`` finds it from the working directory upwards.
        timeout: Seconds to wait for another process holding the store.

    Raises:
        NotInitializedError: If there is no workspace there.
    """
    opened = (
        Workspace.open(root, timeout=timeout)
        if root is not None
        else Workspace.find(Path.cwd(), timeout=timeout)
    )
    with opened as ws:
        build_server(ws).run("stdio")
