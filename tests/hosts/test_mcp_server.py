"""``snapline mcp`` through the SDK's own client, talking to a real subprocess over stdio."""

from __future__ import annotations

import asyncio
import base64
import json
import sys
from collections.abc import Awaitable, Callable
from importlib.metadata import version
from pathlib import Path
from typing import Any

import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from snapline import Workspace
from snapline.cli.app import app
from tests.cli_runner import CliRunner
from tests.conftest import tree
from tests.hosts.conftest import env
from tests.nogit import no_git_path

TOOLS = {
    "status",
    "read_file",
    "list_files",
    "resync",
    "merge",
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
    "guard",
    "blame_summary",
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
        # This checkout's snapline (PYTHONPATH), whatever the environment has installed.
        params = StdioServerParameters(
            command=command, args=["--root", str(root), "mcp"], env=env()
        )
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


@pytest.mark.parametrize("git_binary", [True, False], ids=["git", "no-git"])
def test_the_tools_over_stdio(
    project: Path, git_binary: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Outside git the history is on a private repository's refs: no git binary needed.
    assert (project / ".snapline" / "repo" / "HEAD").is_file()
    if not git_binary:
        monkeypatch.setenv("PATH", no_git_path(tmp_path))

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
        assert "a.txt changed outside snapline" in drifted
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


# What each tool does to the workspace, decided here from what the tool is for (the MCP
# specification's hints), not read back from the server.
READ_ONLY = {
    "status",
    "blame_summary",
    "read_file",
    "list_files",
    "log",
    "show",
    "diff",
    "modified_files",
    "file_diff",
    "milestone_list",
    "verify",
}
DESTRUCTIVE = {"write_file", "edit_file", "delete_file", "move_file", "rollback", "revert"}
DESTRUCTIVE |= {"undo", "redo", "guard"}
# guard runs a command the model names: it may reach beyond the workspace.
OPEN_WORLD = {"guard"}
IDEMPOTENT_WRITERS = {"write_file", "delete_file", "record", "resync", "merge"}


def test_every_tool_and_parameter_is_described_and_annotated(project: Path) -> None:
    async def script(client: Client) -> None:
        listed = (await client.session.list_tools()).tools
        assert {tool.name for tool in listed} == TOOLS
        for tool in listed:
            assert tool.description and len(tool.description) > 20, tool.name
            hints = tool.annotations
            assert hints is not None, tool.name
            assert hints.read_only_hint is (tool.name in READ_ONLY), tool.name
            assert hints.destructive_hint is (tool.name in DESTRUCTIVE), tool.name
            idempotent = tool.name in READ_ONLY or tool.name in IDEMPOTENT_WRITERS
            assert hints.idempotent_hint is idempotent, tool.name
            assert hints.open_world_hint is (tool.name in OPEN_WORLD), tool.name
            for name, schema in tool.input_schema.get("properties", {}).items():
                assert len(schema.get("description", "")) > 10, (tool.name, name)

    serve(project, script)


def test_the_server_reports_the_package_version(project: Path) -> None:
    params = StdioServerParameters(
        command=str(Path(sys.executable).with_name("snapline")),
        args=["--root", str(project), "mcp"],
        env=env(),
    )

    async def main() -> str:
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            return (await session.initialize()).server_info.version

    assert asyncio.run(main()) == version("snapline")


def _history(root: Path) -> dict[str, bytes]:
    """Every file of the history: the private repository's objects and refs."""
    repo = root / ".snapline" / "repo"
    found = {p.relative_to(repo).as_posix(): p.read_bytes() for p in repo.rglob("*") if p.is_file()}
    assert any(name.startswith("refs/snapline/lines/") for name in found)
    return found


def test_read_only_tools_change_nothing(project: Path) -> None:
    # The hint is checked against what the tools do: the disk and the history as they were.
    (project / "b.txt").write_text("untracked\n")
    before = (tree(project), _history(project))
    calls: dict[str, dict[str, Any]] = {
        "status": {},
        "read_file": {"path": "a.txt"},
        "list_files": {},
        "log": {},
        "show": {"snapshot": 0},
        "diff": {"from_snapshot": 0},
        "modified_files": {},
        "file_diff": {"path": "a.txt", "from_snapshot": 0},
        "milestone_list": {},
        "verify": {"deep": True},
        "blame_summary": {},
    }
    assert set(calls) == READ_ONLY

    async def script(client: Client) -> None:
        for name, arguments in calls.items():
            await client.session.call_tool(name, arguments)

    serve(project, script)
    assert (tree(project), _history(project)) == before


def test_read_file_and_list_files(project: Path, tmp_path: Path) -> None:
    (project / ".gitignore").write_text("build/\n")
    (project / "build").mkdir()
    (project / "build" / "out.o").write_bytes(b"\x7fELF")
    (project / "bin.dat").write_bytes(b"\x00\xff\x01")
    (project / "big.txt").write_text("x" * 100)
    secret = tmp_path / "secret.txt"
    secret.write_text("outside the root\n")
    (project / "link").symlink_to(secret)
    (project / "docs").mkdir()
    (project / "docs" / "d.md").write_text("# d\n")

    async def script(client: Client) -> None:
        await client.call("record", paths=["bin.dat", "big.txt", "link"], description="add")
        (project / "a.txt").write_text("one\nTWO\n")
        text = await client.call("read_file", path="a.txt")
        assert (text["text"], text["size"], text["truncated"]) == ("one\nTWO\n", 8, False)
        recorded = await client.call("read_file", path="a.txt", snapshot=0)
        assert recorded["text"] == "one\ntwo\n"
        binary = await client.call("read_file", path=str(project / "bin.dat"))
        assert base64.b64decode(binary["base64"]) == b"\x00\xff\x01" and "text" not in binary
        cut = await client.call("read_file", path="big.txt", max_bytes=10)
        assert (cut["text"], cut["size"], cut["truncated"]) == ("x" * 10, 100, True)
        link = await client.call("read_file", path="link")
        assert (link["symlink"], link["text"]) == (True, str(secret))
        for refused in (".git/config", ".snapline/index.db", ".snapline/ledger/FORMAT"):
            assert "refusing to read" in await client.error("read_file", path=refused)
        assert "outside the workspace" in await client.error("read_file", path=str(secret))
        assert "a directory" in await client.error("read_file", path="docs")
        assert "nothing is there" in await client.error("read_file", path="nope.txt")

        listed = await client.call("list_files")
        status = {f["path"]: f["status"] for f in listed["files"]}
        assert status == {
            "a.txt": "modified",
            "bin.dat": "tracked",
            "big.txt": "tracked",
            "link": "tracked",
            ".gitignore": "untracked",
            "docs/d.md": "untracked",
        }
        assert listed["in_sync"] is False
        assert list(status) == sorted(status)
        assert (await client.call("list_files", under="docs"))["files"] == [
            {"path": "docs/d.md", "status": "untracked"}
        ]
        one = await client.call("list_files", limit=1)
        assert (len(one["files"]), one["truncated"]) == (1, True)
        assert "refusing to list" in await client.error("list_files", under=".snapline")

    serve(project, script)


def test_errors_name_the_tool_that_settles_them(project: Path) -> None:
    async def script(client: Client) -> None:
        (project / "a.txt").write_text("changed by a person\n")
        drifted = await client.error("write_file", path="a.txt", content="mine\n")
        assert "call the `resync` tool with paths=['a.txt']" in drifted
        assert "snapline resync" not in drifted
        conflict = await client.error("rollback", to=0, apply=True)
        assert "call `resync` with paths=['a.txt']" in conflict
        assert "retry with force=true" in conflict
        resynced = await client.call("resync", description="a person's edit")
        assert resynced["snapshot"]["tool"] == "external"
        assert (await client.call("write_file", path="a.txt", content="mine\n"))["snapshot"]
        missing = await client.error("edit_file", path="a.txt", old_text="absent", new_text="x")
        assert "call `read_file`" in missing
        untracked = await client.error("delete_file", path="never.txt")
        assert "call `list_files`" in untracked
        unknown = await client.error("record", paths=["typo.txt"])
        assert "call `status`" in unknown
        for message in (drifted, conflict, missing, untracked, unknown):
            assert "`snapline " not in message, message

    serve(project, script)


def test_guard_keeps_the_outcome_rolls_back_a_failure_and_undo_brings_it_back(
    project: Path,
) -> None:
    check = [
        sys.executable,
        "-c",
        "import sys; t = open('a.txt').read(); print(t); sys.exit(t != 'one\\ntwo\\n')",
    ]

    async def script(client: Client) -> None:
        passed = await client.call("guard", command=check, session="s1")
        assert passed["passed"] is True
        assert passed["output"] == "one\ntwo\n\n"  # captured: stdout is the protocol's
        assert (passed["check"]["snapshot"], passed["check"]["session"]) == (0, "s1")
        await client.call("write_file", path="a.txt", content="broken\n")
        failed = await client.call("guard", command=check, rollback=True)
        assert (failed["passed"], failed["last_pass"]) == (False, 0)
        assert failed["check"]["exit_code"] == 1
        assert failed["rollback"]["snapshot"]["number"] == 2
        assert (project / "a.txt").read_text() == "one\ntwo\n"
        log = await client.call("log")
        assert [(s["number"], (s["check"] or {}).get("outcome")) for s in log["snapshots"]] == [
            (2, None),
            (1, "fail"),
            (0, "pass"),
        ]
        assert (await client.call("show", snapshot=1))["snapshot"]["check"]["exit_code"] == 1
        await client.call("undo")
        assert (project / "a.txt").read_text() == "broken\n"
        assert "cannot run" in await client.error("guard", command=["no-such-command-snapline"])
        (project / "a.txt").write_text("by hand\n")
        assert "changed outside snapline" in await client.error("guard", command=check)

    serve(project, script)


def test_guard_names_what_held_its_rollback_back(project: Path) -> None:
    # Issue 40, point 8's `held`: a rollback that would take out a person's edit is not
    # made, and the tool says why (it gave `last_pass` 0 and `rollback` null, no reason).
    check = [sys.executable, "-c", "import sys; sys.exit(open('a.txt').read() == 'broken\\n')"]

    async def script(client: Client) -> None:
        assert (await client.call("guard", command=check, session="s1"))["passed"] is True
        (project / "b.txt").write_text("by hand\n")
        await client.call("resync", description="a person's note")  # snapshot 1
        await client.call("write_file", path="a.txt", content="broken\n", session="s1")
        failed = await client.call("guard", command=check, rollback=True, session="s1")
        assert (failed["passed"], failed["last_pass"], failed["rollback"]) == (False, 0, None)
        assert failed["held"] == [
            {
                "number": 1,
                "tool": "external",
                "session": None,
                "reason": "a change made outside snapline (a person's edit)",
                "files": ["b.txt"],
            }
        ]
        assert (project / "a.txt").read_text() == "broken\n"  # nothing rolled back
        assert (project / "b.txt").read_text() == "by hand\n"
        passed = await client.call("guard", command=[sys.executable, "-c", "pass"])
        assert passed["held"] == []

    serve(project, script)


def test_blame_summary_counts_who_wrote_the_lines(project: Path) -> None:
    async def script(client: Client) -> None:
        await client.call("write_file", path="a.txt", content="one\nTWO\n", session="s1")
        (project / "a.txt").write_text("one\nTWO\nby hand\n")
        await client.call("resync", paths=["a.txt"], session="alice")
        found = await client.call("blame_summary", paths=["a.txt"])
        assert found["total"]["sessions"] == {"s1": 1}
        assert found["total"]["people"] == {"alice": 1}
        assert [f["path"] for f in found["files"]] == ["a.txt"]
        assert (found["files"][0]["baseline"], found["files"][0]["agent"]) == (1, 1)

    serve(project, script)
