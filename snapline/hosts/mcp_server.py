"""``snapline mcp``: the library as Model Context Protocol tools, over stdio.

Built on the official ``mcp`` Python SDK (2.x, ``MCPServer``). One :class:`Workspace`
stays open for the server's life, so every call runs at library speed; the SDK runs
each (synchronous) tool in a worker thread, which the library allows. The server
reports snapline's version; every tool and parameter carries a description and every
tool the hints a client uses to decide what needs a person's confirmation
(``readOnlyHint``, ``destructiveHint``, ``idempotentHint``; ``openWorldHint`` false:
nothing leaves the workspace). A snapline error comes back as an MCP tool error carrying
one line whose advice names the tool that settles it (:mod:`snapline.hosts.mcp_errors`);
results are JSON objects built from the library's models (``model_dump(mode="json")``).
Snapshot arguments take numbers or references (``"latest"``, ``"latest~2"``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mcp.server.mcpserver import MCPServer

from snapline import __version__
from snapline.hosts import mcp_files
from snapline.hosts import mcp_params as P
from snapline.hosts.mcp_shapes import checked as _checked
from snapline.hosts.mcp_shapes import guard_json
from snapline.hosts.mcp_shapes import snapshot_json as _snapshot
from snapline.hosts.mcp_shapes import tool_errors as _tool_errors
from snapline.snapshots.info_fields import Who
from snapline.workspace import Workspace

__all__ = ["SERVER_NAME", "build_server", "serve"]

SERVER_NAME = "snapline"

_INSTRUCTIONS = (
    "snapline keeps a numbered, verifiable history of every change to this workspace. "
    "Read with read_file / list_files; change files through write_file / edit_file / "
    "delete_file / move_file so each change is recorded as a snapshot; call record after a "
    "shell command changed files. When a call says a file changed outside snapline, call "
    "resync to record that change. Snapshots are numbers or 'latest' / 'latest~N'. "
    "rollback is a dry run unless apply=true; undo and redo step through your own changes "
    "like an editor. guard runs a check (the tests) on the latest snapshot and keeps "
    "whether it passed; with rollback=true a failure goes back to the last snapshot that "
    "passed. Nothing is ever written inside .git/ or .snapline/."
)


def build_server(ws: Workspace) -> MCPServer:
    """An MCP server whose tools act on ``ws``.

    Args:
        ws: The open workspace; it must stay open while the server runs.

    Returns:
        The server, ready for ``run("stdio")``.
    """
    # Warnings only: the SDK logs every tool error at INFO on stderr otherwise.
    server: MCPServer = MCPServer(
        SERVER_NAME, instructions=_INSTRUCTIONS, version=__version__, log_level="WARNING"
    )

    def who(description: str, session: str | None, tool: str = "") -> Who:
        # Who and why, as every tool that records says it: the agent's words, and how.
        said: Who = {"description": description, "session": session, "metadata": {"via": "mcp"}}
        if tool:
            said["tool"] = tool
        return said

    @server.tool(annotations=P.READ)
    def status(paths: P.Scope = None) -> dict[str, Any]:
        """The latest snapshot and every file that differs from the history (drift)."""
        with _tool_errors():
            report = ws.check_sync(paths).to_json()
            return {
                "root": str(ws.root),
                "latest": ws.latest,
                "in_sync": report["ok"],
                "problems": report["problems"],
            }

    @server.tool(annotations=P.READ)
    def read_file(
        path: P.FilePath, snapshot: P.AtSnapshot = None, max_bytes: P.MaxBytes = P.READ_BYTES
    ) -> dict[str, Any]:
        """A file's content: on disk now, or as recorded after a snapshot.

        Text comes back as `text`, other bytes as `base64`; a symlink reads as its target
        path. Files inside .git/ or .snapline/ are refused.
        """
        with _tool_errors():
            return mcp_files.read_file(ws, path, snapshot, max_bytes)

    @server.tool(annotations=P.READ)
    def list_files(under: P.Under = "", limit: P.Limit = P.LIST_LIMIT) -> dict[str, Any]:
        """The workspace's files with their state: tracked, modified, deleted, untracked.

        Ignored files (.gitignore, .snaplineignore) and .git/ and .snapline/ are left out.
        """
        with _tool_errors():
            return mcp_files.list_files(ws, under, limit)

    @server.tool(annotations=P.OVERWRITE)
    def write_file(
        path: P.FilePath,
        content: P.Content,
        description: P.Description = "",
        session: P.Session = None,
    ) -> dict[str, Any]:
        """Write a file (UTF-8 text), creating or replacing it, and record one snapshot.

        Refused when the file changed outside snapline (call resync first).
        """
        with _tool_errors():
            snapshot = ws.write_file(path, content, **who(description, session))
            return {"snapshot": _snapshot(snapshot)}

    @server.tool(annotations=P.CHANGE)
    def edit_file(
        path: P.FilePath,
        old_text: P.OldText,
        new_text: P.NewText,
        description: P.Description = "",
        session: P.Session = None,
    ) -> dict[str, Any]:
        """Replace the one exact occurrence of old_text by new_text and record it.

        Refused when the file changed outside snapline, or old_text is missing or occurs
        more than once (include more context).
        """
        with _tool_errors():
            snapshot = ws.edit_file(path, old_text, new_text, **who(description, session))
            return {"snapshot": _snapshot(snapshot)}

    @server.tool(annotations=P.OVERWRITE)
    def delete_file(
        path: P.FilePath, description: P.Description = "", session: P.Session = None
    ) -> dict[str, Any]:
        """Delete a tracked file and record it (rollback or undo brings it back)."""
        with _tool_errors():
            snapshot = ws.delete_file(path, **who(description, session))
            return {"snapshot": _snapshot(snapshot)}

    @server.tool(annotations=P.CHANGE)
    def move_file(
        source: P.Source,
        destination: P.Destination,
        overwrite: P.Overwrite = False,
        description: P.Description = "",
        session: P.Session = None,
    ) -> dict[str, Any]:
        """Move or rename a tracked file and record it as a rename."""
        with _tool_errors():
            snapshot = ws.move_file(
                source,
                destination,
                overwrite=overwrite,
                **who(description, session),
            )
            return {"snapshot": _snapshot(snapshot)}

    @server.tool(annotations=P.ADD)
    def record(
        paths: P.Scope = None, description: P.Description = "", session: P.Session = None
    ) -> dict[str, Any]:
        """Record what changed on disk (after a shell command you ran) as one snapshot."""
        with _tool_errors():
            snapshot = ws.record(paths, **who(description, session, "mcp"))
            return {"snapshot": _snapshot(snapshot)}

    @server.tool(annotations=P.ADD)
    def resync(
        paths: P.Scope = None, description: P.Description = "", session: P.Session = None
    ) -> dict[str, Any]:
        """Record changes made outside snapline (a person, an editor) as their own snapshot.

        The way out when a call says a file changed outside snapline: the change becomes
        part of the history (tool `external`), so it can be rolled back like any other.
        """
        with _tool_errors():
            snapshot = ws.resync(paths=paths, **who(description, session))
            return {"snapshot": _snapshot(snapshot)}

    @server.tool(annotations=P.ADD)
    def merge(description: P.Description = "", session: P.Session = None) -> dict[str, Any]:
        """Join the lines of history a git merge of two recording branches left."""
        with _tool_errors():
            snapshot = ws.merge(**who(description, session))
            return {"snapshot": _snapshot(snapshot)}

    @server.tool(annotations=P.READ)
    def log(
        limit: P.LogLimit = 20, file: P.File = None, session: P.SessionFilter = None
    ) -> dict[str, Any]:
        """The latest snapshots, newest first (without their diffs), and other lines' ones.

        side_snapshots: the snapshots of branches merged in git (each with its line and
        the merge snapshot that joined it); name one as 'id:' and its id.
        """
        with _tool_errors():
            found = ws.snapshots(file=file, session=session, limit=limit, newest_first=True)
            checks = ws.check_outcomes()
            side = [s.model_dump(mode="json") for s in ws.side_snapshots()]
            snapshots = [_checked(_snapshot(s), checks) for s in found]
            return {"snapshots": snapshots, "side_snapshots": side}

    @server.tool(annotations=P.READ)
    def show(snapshot: P.Ref = "latest") -> dict[str, Any]:
        """One snapshot: its fields, the files it changed and its unified diff.

        line: "main", or the head id of the other line it is on (joined_by: the merge).
        """
        with _tool_errors():
            found = ws.snapshot(snapshot)
            side = ws.side_snapshot(snapshot)
            text = ""
            if side is not None:  # its diff on its own line
                text = ws.diff(f"id:{found.parent_id}", f"id:{found.id}")
            elif found.number:
                text = ws.diff(found.number - 1, found.number)
            where = {"line": side.line, "joined_by": side.joined_by} if side else {"line": "main"}
            checks = {} if side else ws.check_outcomes()  # kept for main-line snapshots
            return {"snapshot": _checked(_snapshot(found), checks), "diff": text, **where}

    @server.tool(annotations=P.READ)
    def diff(
        from_snapshot: P.From, to_snapshot: P.To = "latest", paths: P.Scope = None
    ) -> dict[str, Any]:
        """The unified diff between two snapshots (for git apply), optionally of some paths."""
        with _tool_errors():
            return {"diff": ws.diff(from_snapshot, to_snapshot, paths=paths)}

    @server.tool(annotations=P.READ)
    def modified_files(from_snapshot: P.From = 0, to_snapshot: P.To = "latest") -> dict[str, Any]:
        """Each file changed between two snapshots, with its status and the snapshots."""
        with _tool_errors():
            files = ws.modified_files(from_snapshot, to_snapshot)
            return {"files": [f.model_dump(mode="json") for f in files]}

    @server.tool(annotations=P.READ)
    def file_diff(
        path: P.FilePath, from_snapshot: P.From, to_snapshot: P.To = "latest"
    ) -> dict[str, Any]:
        """The unified diff of one file between two snapshots."""
        with _tool_errors():
            return {"diff": ws.diff(from_snapshot, to_snapshot, paths=[path])}

    @server.tool(annotations=P.CHANGE)
    def rollback(
        to: P.Target,
        paths: P.Scope = None,
        apply: P.Apply = False,
        force: P.Force = False,
        description: P.Description = "",
        session: P.Session = None,
    ) -> dict[str, Any]:
        """Restore the state after snapshot `to`: a dry run unless apply is true.

        The rollback is recorded as a new snapshot, so it can itself be rolled back.
        """
        with _tool_errors():
            result = ws.rollback(
                to,
                paths,
                dry_run=not apply,
                force=force,
                **who(description, session),
            )
            return result.model_dump(mode="json")

    @server.tool(annotations=P.CHANGE)
    def revert(
        snapshot: P.Ref,
        dry_run: P.DryRun = False,
        description: P.Description = "",
        session: P.Session = None,
    ) -> dict[str, Any]:
        """Undo the changes of one snapshot, keeping later ones (as git revert)."""
        with _tool_errors():
            result = ws.revert(snapshot, dry_run=dry_run, **who(description, session))
            return result.model_dump(mode="json")

    @server.tool(annotations=P.CHANGE)
    def undo(
        dry_run: P.DryRun = False, description: P.Description = "", session: P.Session = None
    ) -> dict[str, Any]:
        """Roll back what the latest change did; call again to go further back."""
        with _tool_errors():
            result = ws.undo(dry_run=dry_run, **who(description, session))
            return result.model_dump(mode="json")

    @server.tool(annotations=P.CHANGE)
    def redo(
        dry_run: P.DryRun = False, description: P.Description = "", session: P.Session = None
    ) -> dict[str, Any]:
        """Roll back the last undo."""
        with _tool_errors():
            result = ws.redo(dry_run=dry_run, **who(description, session))
            return result.model_dump(mode="json")

    @server.tool(annotations=P.GUARD)
    def guard(
        command: P.GuardCommand, rollback: P.GuardRollback = False, session: P.Session = None
    ) -> dict[str, Any]:
        """Run a check (the tests) on the latest snapshot and keep whether it passed.

        Refused when files differ from the latest snapshot (call record first). The
        outcome is kept with the history (log and show give it as `check`); `output` is
        the end of what the check printed. With rollback, a failure rolls back to the
        last snapshot that passed (`last_pass`: null when none did, and nothing moved).
        It is not made over a person's edit or another session's work: `held` names
        those snapshots, `rollback` is null and nothing moved; ask the person.
        """
        from snapline.guard import CheckOutput

        with _tool_errors():
            result = ws.guard(
                command, rollback=rollback, session=session, output=CheckOutput.CAPTURE
            )
            return guard_json(result)

    @server.tool(annotations=P.APPEND)
    def milestone_create(
        title: P.Title,
        description: P.MilestoneDescription = "",
        to: P.UpTo = "latest",
        tags: P.Tags = None,
    ) -> dict[str, Any]:
        """Close the snapshots since the last milestone (up to `to`) as the next milestone."""
        with _tool_errors():
            milestone = ws.milestones.create(title, description, to=to, tags=tags or ())
            return milestone.model_dump(mode="json")

    @server.tool(annotations=P.READ)
    def milestone_list() -> dict[str, Any]:
        """Every milestone, in order."""
        with _tool_errors():
            return {"milestones": [m.model_dump(mode="json") for m in ws.milestones.list()]}

    @server.tool(annotations=P.READ)
    def verify(full: P.Full = False, deep: P.Deep = False) -> dict[str, Any]:
        """Check the history (sequence, links, chain hashes) and the disk against it.

        After a clean check, the next checks what is new since it (`since` in the result).
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
