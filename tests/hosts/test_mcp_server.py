"""``snapline mcp`` through the SDK's own client, talking to a real subprocess over stdio."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from typer.testing import CliRunner

from snapline import Workspace
from snapline.cli.app import app

TOOLS = {
    "status",
    "write_file",
    "edit_file",
    "delete_file",
    "move_file",
    "record",
    "log",
    "show",
    "diff",
    "modified_files",
    "file_diff",
    "rollback",
    "revert",
    "undo",
    "redo",
    "milestone_create",
    "milestone_list",
    "verify",
}


class Client:
    """Calls tools and returns the JSON result, or the error text of a tool error."""

    def __init__(self, session: ClientSession) -> None:
        self.session = session

    async def call(self, name: str, **arguments: Any) -> Any:
        result = await self.session.call_tool(name, arguments)
        assert not result.is_error, result.content
        return json.loads(result.content[0].text)  # type: ignore[union-attr]

    async def error(self, name: str, **arguments: Any) -> str:
        result = await self.session.call_tool(name, arguments)
        assert result.is_error, result.content
        return str(result.content[0].text)  # type: ignore[union-attr]


def serve(root: Path, script: Callable[[Client], Awaitable[None]]) -> None:
    """Run ``snapline --root ROOT mcp`` and drive it with ``script``."""
    command = str(Path(sys.executable).with_name("snapline"))

    async def main() -> None:
        params = StdioServerParameters(command=command, args=["--root", str(root), "mcp"])
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            await script(Client(session))

    asyncio.run(main())


@pytest.fixture
def project(root: Path) -> Path:
    """A workspace with ``a.txt`` in its baseline."""
    (root / "a.txt").write_text("one\ntwo\n")
    Workspace.init(root).close()
    return root


def test_the_tools_over_stdio(project: Path) -> None:
    async def script(client: Client) -> None:
        listed = await client.session.list_tools()
        assert {tool.name for tool in listed.tools} == TOOLS

        written = await client.call("write_file", path="b.txt", content="new\n", session="s1")
        assert written["snapshot"]["number"] == 1
        log = await client.call("log", limit=5)
        assert [s["number"] for s in log["snapshots"]] == [1, 0]
        assert log["snapshots"][0]["session"] == "s1"

        edited = await client.call("edit_file", path="a.txt", old_text="two", new_text="TWO")
        assert edited["snapshot"]["number"] == 2
        assert (
            "+TWO"
            in (await client.call("file_diff", path="a.txt", from_snapshot="latest~1"))["diff"]
        )
        assert "not in the file" in await client.error(
            "edit_file", path="a.txt", old_text="three", new_text="3"
        )

        (project / "a.txt").write_text("changed by hand\n")
        drifted = await client.error("edit_file", path="a.txt", old_text="one", new_text="1")
        assert "a.txt was changed outside snapline" in drifted
        status = await client.call("status")
        assert status["in_sync"] is False
        assert status["problems"][0]["path"] == "a.txt"
        assert (await client.call("record", paths=["a.txt"]))["snapshot"]["number"] == 3

        dry = await client.call("rollback", to=0)
        assert dry["dry_run"] is True
        assert sorted(dry["restored"]) == ["a.txt"]
        assert (project / "a.txt").read_text() == "changed by hand\n"
        applied = await client.call("rollback", to=0, apply=True)
        assert applied["snapshot"]["number"] == 4
        assert (project / "a.txt").read_text() == "one\ntwo\n"
        assert not (project / "b.txt").exists()

        undone = await client.call("undo")
        assert undone["snapshot"]["metadata"]["undo_of"] == 4
        assert (project / "b.txt").read_text() == "new\n"
        await client.call("redo")
        assert not (project / "b.txt").exists()
        assert "nothing to redo" in await client.error("redo")

        assert "not a snapshot" in await client.error("show", snapshot="tip")
        assert "there is no snapshot 99" in await client.error("revert", snapshot=99)
        shown = await client.call("show", snapshot="latest~3")
        assert shown["snapshot"]["number"] == 3
        milestone = await client.call("milestone_create", title="first", to="latest")
        assert (milestone["first"], milestone["last"]) == (1, 6)
        assert len((await client.call("milestone_list"))["milestones"]) == 1
        assert (await client.call("verify", deep=True))["ok"] is True

    serve(project, script)


def test_without_the_sdk_the_command_says_how_to_install_it(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in [n for n in sys.modules if n == "mcp" or n.startswith("mcp.")]:
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.setitem(sys.modules, "mcp", None)
    monkeypatch.delitem(sys.modules, "snapline.hosts.mcp_server", raising=False)

    result = CliRunner().invoke(app, ["--root", str(project), "mcp"])

    assert result.exit_code == 2
    assert "pip install 'snapline[mcp]'" in result.output
    assert len(result.output.strip().splitlines()) == 1
