"""Every writer's refusal over another line's merged work says ``snapline merge``, never resync.

Two clones of a bare remote record on lines of their own (issue 37, point 5): A edits
the first line of ``lib.py`` on main, B its last line on a branch, each recorded and
pushed; A pulls B's branch with ``git pull`` (a merge commit, both edits in ``lib.py``). Before
``snapline merge`` A's ``lib.py`` is B's recorded work (``unmerged``): a refusal that
advised ``resync`` there would file B's work as a person's outside change, and a forced
rollback would record it so. Each writer (rollback, revert, guard, run, ``track``, the
MCP tools, the Claude Code Bash hook) names ``snapline merge`` for that path, and
``resync`` only for a person's own edit beside it; nothing is recorded over it.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from snapline import StateMismatchError, Workspace
from tests.history_refs.gitrepo import ENV, Repo, claude_hook, new_repo
from tests.history_refs.test_merge_lines import _clone, _commit, _json


def _pulled(tmp_path: Path) -> Repo:
    """Clone A after ``git pull`` of clone B's recorded branch, before ``snapline merge``."""
    origin = tmp_path / "origin.git"
    seed = new_repo(tmp_path / "seed", {"app.py": "v0\n", "lib.py": "a = 0\nb = 0\nc = 0\n"})
    seed.ok("init")
    seed.git("init", "-q", "--bare", str(origin))
    seed.git("remote", "add", "origin", str(origin))
    seed.git("push", "-q", "origin", "main")
    a = _clone(tmp_path, origin, "a", "refs")
    b = _clone(tmp_path, origin, "b", "refs")

    (a.path / "lib.py").write_text("a = 1\nb = 0\nc = 0\n")
    a.ok("record", "lib.py", "-m", "A's lib")  # snapshot 1, which `revert 1` takes out
    _commit(a, "A's lib")
    a.git("push", "-q", "origin", "main")

    b.git("switch", "-q", "-c", "feature")
    (b.path / "lib.py").write_text("a = 0\nb = 0\nc = 1\n")
    b.ok("record", "lib.py", "-m", "B's lib")
    _commit(b, "B's lib")
    b.git("push", "-q", "origin", "feature")

    (a.path / "app.py").write_text("v1\n")
    a.ok("record", "app.py", "-m", "A's app")  # snapshot 2
    _commit(a, "A's app")
    a.ok("fetch", "origin")
    a.git("pull", "-q", "--no-rebase", "--no-edit", "origin", "feature")
    assert (a.path / "lib.py").read_text() == "a = 1\nb = 0\nc = 1\n"
    return a


def _numbers(repo: Repo) -> list[int]:
    return [s["number"] for s in _json(repo, "log")]


def _says_merge_only(text: str) -> None:
    assert "lib.py" in text and "snapline merge" in text, text
    assert "resync" not in text.replace("do not resync", ""), text
    assert "--force" not in text, text


@pytest.mark.parametrize(
    "command",
    [
        ("rollback", "--to", "1"),
        ("rollback", "--to", "1", "--force"),
        ("rollback", "--to", "1", "lib.py"),
        ("revert", "1"),
        ("guard", "--", "true"),
        ("run", "--", "true"),
    ],
)
def test_a_refusal_over_merged_work_says_snapline_merge(
    tmp_path: Path, command: tuple[str, ...]
) -> None:
    a = _pulled(tmp_path)
    done = a.snap(*command)
    assert done.returncode == 1, done
    _says_merge_only(done.stderr)
    # Nothing recorded: above all, no `external` snapshot of B's work (--force).
    assert _numbers(a) == [2, 1, 0]
    a.ok("merge")
    assert a.snap("verify").returncode == 0
    assert a.snap(*command).returncode == 0


def test_mixed_drift_names_each_paths_way_out(tmp_path: Path) -> None:
    a = _pulled(tmp_path)
    (a.path / "app.py").write_text("by hand\n")
    ran = a.snap("run", "--", "true")
    assert ran.returncode == 1
    outside, _, merged = ran.stderr.partition("; lib.py")
    assert "app.py was changed outside snapline" in outside and "snapline resync" in outside
    assert "snapline merge" in merged and "resync" not in merged.replace("do not resync", "")
    rollback = a.snap("rollback", "--to", "1")
    assert rollback.returncode == 1
    assert "app.py is modified on disk" in rollback.stderr
    assert "lib.py is another line's recorded work" in rollback.stderr
    assert "snapline merge" in rollback.stderr and "snapline resync -m TEXT" in rollback.stderr
    assert "--force" not in rollback.stderr  # it would not settle lib.py
    dry = a.snap("rollback", "--to", "1", "--force", "--dry-run")
    assert dry.returncode == 1  # the promise: the forced run refuses too
    assert a.snap("rollback", "--to", "1", "--force").returncode == 1
    assert _numbers(a) == [2, 1, 0]


def test_track_refuses_with_the_unmerged_paths_named(tmp_path: Path) -> None:
    a = _pulled(tmp_path)
    with (
        Workspace.open(a.path) as ws,
        pytest.raises(StateMismatchError) as refused,
        ws.track(["lib.py", "app.py"], tool="editor"),
    ):
        raise AssertionError("the tool must not run")
    assert refused.value.unmerged == ["lib.py"]
    assert "snapline merge" in str(refused.value)
    assert "resync" not in str(refused.value).replace("do not resync", "")


def _mcp(root: Path, calls: list[tuple[str, dict[str, Any]]]) -> list[str]:
    """The error text of each MCP tool call, through the SDK's client over stdio."""

    async def main() -> list[str]:
        params = StdioServerParameters(
            command=str(Path(sys.executable).with_name("snapline")),
            args=["--root", str(root), "mcp"],
            env=ENV,
        )
        found = []
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            for name, arguments in calls:
                result = await session.call_tool(name, arguments)
                assert result.is_error, result.content
                found.append(str(result.content[0].text))  # type: ignore[union-attr]
        return found

    return asyncio.run(main())


def test_the_mcp_tools_name_the_merge_tool(tmp_path: Path) -> None:
    a = _pulled(tmp_path)
    (a.path / "app.py").write_text("by hand\n")
    edit, rollback, forced = _mcp(
        a.path,
        [
            ("write_file", {"path": "lib.py", "content": "x = 2\n"}),
            ("rollback", {"to": 1, "apply": True}),
            ("rollback", {"to": 1, "apply": True, "force": True}),
        ],
    )
    assert "the `merge` tool" in edit and "`resync`" not in edit
    assert "`snapline " not in edit
    for message in (rollback, forced):
        assert "the `merge` tool" in message
        assert "call `resync` with paths=['app.py']" in message
        assert "'lib.py'" not in message  # resync is asked for app.py alone
        assert "force=true" not in message
    assert _numbers(a) == [2, 1, 0]


def _hook(root: Path, name: str, **fields: Any) -> str:
    event = {
        "session_id": "sess-1",
        "transcript_path": str(root.parent / "transcript.jsonl"),
        "cwd": str(root),
        "permission_mode": "default",
        "hook_event_name": name,
        "tool_name": "Bash",
        "tool_use_id": "toolu_01",
        "tool_input": {"command": "true"},
        **fields,
    }
    return claude_hook(root, event)


def test_an_allowed_bash_call_leaves_merged_work_to_snapline_merge(tmp_path: Path) -> None:
    a = _pulled(tmp_path)
    (a.path / "app.py").write_text("by hand\n")
    asked = json.loads(_hook(a.path, "PreToolUse"))["hookSpecificOutput"]
    assert asked["permissionDecision"] == "ask"
    reason = asked["permissionDecisionReason"]
    merged, _, outside = reason.partition("\n")
    assert "lib.py" in merged and "snapline merge" in merged and "resync" not in merged
    assert "app.py (modified)" in outside and "snapline resync" in outside
    # The person allows it; the command changes nothing.
    _hook(a.path, "PostToolUse", tool_response={"stdout": "", "stderr": ""})
    latest = _json(a, "log")[0]
    assert (latest["tool"], [f["path"] for f in latest["files"]]) == ("external", ["app.py"])
    status = _json(a, "status")
    assert [(p["kind"], p["path"]) for p in status["drift"]] == [("unmerged", "lib.py")]
    a.ok("merge")
    assert a.snap("verify").returncode == 0
