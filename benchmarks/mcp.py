"""Row 13: an MCP ``write_file`` of a one-line edit, timed at the client (issue 15).

A long-lived ``snapline mcp`` server, started and driven through the official SDK's own
stdio client as an agent host drives it; each round times one ``write_file`` tool call
from the client's side (request, the server's write and record, the reply). git's
counterpart writes the same edit and runs ``git add F && git commit``.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchmarks.report import Figure, RowResult
from benchmarks.timing import Sample, alternate, ratio
from benchmarks.workspace_gen import BIG_FILE, one_line_edit

if TYPE_CHECKING:
    from benchmarks.cases import Bench

__all__ = ["MCP_GOAL", "row_mcp"]

MCP_GOAL = 0.3
"""The goal: a write through the server takes at most 0.3 times git's add and commit."""

_Request = tuple[str, dict[str, Any], "concurrent.futures.Future[Any]"]


class _Client:
    """An MCP client session on a thread of its own, callable from synchronous code.

    The SDK's stdio client lives in one task from start to end (its task group must be
    left by the task that entered it), so calls are queued to that task.
    """

    def __init__(self, command: str, args: list[str], env: dict[str, str]) -> None:
        self._loop = asyncio.new_event_loop()
        self._queue: asyncio.Queue[_Request | None] | None = None
        self._ready: concurrent.futures.Future[None] = concurrent.futures.Future()
        self._thread = threading.Thread(
            target=self._loop.run_until_complete, args=(self._serve(command, args, env),)
        )
        self._thread.start()
        self._ready.result(timeout=120)

    async def _serve(self, command: str, args: list[str], env: dict[str, str]) -> None:
        from mcp.client.session import ClientSession
        from mcp.client.stdio import StdioServerParameters, stdio_client

        self._queue = asyncio.Queue()
        params = StdioServerParameters(command=command, args=args, env=env)
        try:
            async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
                await session.initialize()
                self._ready.set_result(None)
                while (request := await self._queue.get()) is not None:
                    name, arguments, reply = request
                    try:
                        reply.set_result(await session.call_tool(name, arguments))
                    except Exception as error:  # handed to the caller's thread
                        reply.set_exception(error)
        except Exception as error:
            if not self._ready.done():
                self._ready.set_exception(error)
            raise

    def call(self, name: str, arguments: dict[str, Any]) -> Any:
        """Call one tool and wait for its result."""
        reply: concurrent.futures.Future[Any] = concurrent.futures.Future()
        assert self._queue is not None
        self._loop.call_soon_threadsafe(self._queue.put_nowait, (name, arguments, reply))
        result = reply.result(timeout=120)
        if result.is_error:
            raise RuntimeError(f"the MCP tool {name} failed: {result.content}")
        return result

    def close(self) -> None:
        """End the session and the server."""
        assert self._queue is not None
        self._loop.call_soon_threadsafe(self._queue.put_nowait, None)
        self._thread.join(timeout=60)
        self._loop.close()


def row_mcp(bench: Bench) -> list[RowResult]:
    """Row 13: one ``write_file`` through ``snapline mcp`` vs ``git add F && git commit``."""
    from benchmarks.cases import ensure_baselines

    ensure_baselines(bench)
    root, repo = bench.tree("main").root, bench.tree("git").root
    if bench.snapline_bin.exists():
        command, args = str(bench.snapline_bin), ["--root", str(root), "mcp"]
    else:
        command, args = bench.cli_python, ["-m", "snapline", "--root", str(root), "mcp"]
    client = _Client(command, args, bench.cli_env)
    try:

        def tool(index: int) -> Sample:
            path = Path(root, BIG_FILE)
            text = one_line_edit(path.read_text(encoding="utf-8"), bench.next_index("main"))
            started = time.perf_counter()
            client.call("write_file", {"path": BIG_FILE, "content": text})
            return Sample(time.perf_counter() - started, None)

        def git(fsync: bool) -> Any:
            def run(index: int) -> Sample:
                edit = bench.next_index("git")
                bench.edit_on_disk(repo, BIG_FILE, edit)
                commands = [["add", BIG_FILE], ["commit", "-q", "-m", f"edit {edit}"]]
                return bench.git_sample(repo, commands, fsync, rss=bench.warming(index))

            return run

        bench.log("row 13: MCP write_file at the client vs git add + commit")
        series = alternate(
            [("mcp", tool), ("git", git(False)), ("fsync", git(True))],
            **bench.rounds(bench.config.repeats * 3),
        )
    finally:
        client.close()
    value = ratio(series["mcp"].stats, series["git"].stats)
    row = RowResult(
        number="13",
        title="MCP `write_file` of a one-line edit, timed at the client",
        goal=f"≤ {MCP_GOAL:g}",
        snapline=Figure(
            "`write_file` tool call to a running `snapline mcp` (SDK stdio client)",
            stats=series["mcp"].stats,
            peak_rss=None,
        ),
        git=Figure(
            "`git add F && git commit -q` (2 processes)",
            stats=series["git"].stats,
            peak_rss=series["git"].peak_rss,
        ),
        ratio=value,
        met=value <= MCP_GOAL,
        extra=[
            Figure(
                "git, same, with `core.fsync=all` (batch)",
                stats=series["fsync"].stats,
                peak_rss=series["fsync"].peak_rss,
            )
        ],
        notes=[
            "One server for the whole row, as an agent host keeps one: the call is the "
            "JSON-RPC round trip over stdio plus the library's write and record of F with "
            "one Workspace kept open. git's edit is made before its two processes and not "
            "timed; snapline's edit is part of the call."
        ],
    )
    return [row]
