"""Issue 37, point 1: `git status` stays clean through EVERY command, not only the everyday ones.

tests/history_refs/test_clean_tree.py runs 16 commands (init, record, status, log, show,
diff, milestone create/list, verify, guard, run, undo, rollback, revert, report,
verify --full, forget). This runs the others through the installed console script in a
real repository with a bare remote: resync, redo, blame (plain, --summary, --markdown,
--commits), gc, merge, branch (and branch --worktree outside the tree), milestone
show/diff/export/rollback, push, fetch, forget --publish, upgrade (nothing to do), the
Claude Code hook, the MCP server (a write through its tool), watch, and the warm server
(start, a warm status/verify/record, status, stop). After each, ``git status --porcelain
--ignored --untracked-files=all`` shows only the user's own changes and the work tree
holds only the user's files.

Every command runs in the one repository (each ``snapline`` is a process: the test's
time is theirs). tests/conftest.py's session fixture keeps every command off a warm
server but the ones that ask for it here, with a runtime directory of their own.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.history_refs.gitrepo import ENV, SNAPLINE, Repo, claude_hook, new_repo

_PYTHON = sys.executable


def _status(repo: Repo) -> list[str]:
    return repo.git("status", "--porcelain", "--ignored", "--untracked-files=all").splitlines()


def _event(root: Path, name: str, **fields: object) -> dict[str, object]:
    return {
        "session_id": "sess-1",
        "transcript_path": str(root.parent / "transcript.jsonl"),
        "cwd": str(root),
        "permission_mode": "default",
        "hook_event_name": name,
        **fields,
    }


def _mcp_write(root: Path, path: str, content: str) -> None:
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    async def main() -> None:
        params = StdioServerParameters(command=SNAPLINE, args=["--root", str(root), "mcp"], env=ENV)
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            result = await session.call_tool("write_file", {"path": path, "content": content})
            assert not result.is_error, result.content

    asyncio.run(main())


def _watch_once(repo: Repo, path: str, text: str) -> None:
    watching = subprocess.Popen(
        [SNAPLINE, "watch", "--quiet-ms", "100"],
        cwd=repo.path, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert watching.stderr is not None
        line = watching.stderr.readline()
        assert line.startswith("watching "), line
        (repo.path / path).write_text(text)
        watching.send_signal(signal.SIGINT)
        _, err = watching.communicate(timeout=120)
    finally:
        if watching.poll() is None:
            watching.kill()
    assert watching.returncode == 0, err


def test_every_other_command_leaves_git_status_clean(tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "work", {"a.txt": "one\n", "src/b.txt": "b\n"})
    remote = tmp_path / "remote.git"
    repo.git("init", "-q", "--bare", str(remote))
    repo.git("remote", "add", "origin", str(remote))
    repo.git("push", "-q", "origin", "main")
    tree = {"a.txt", "src", "src/b.txt"}
    repo.ok("init")
    (repo.path / "a.txt").write_text("two\n")
    repo.ok("record", "a.txt", "-m", "edit a")
    repo.ok("milestone", "create", "-m", "phase one")
    repo.git("commit", "-qam", "two")  # the user's own work committed: status empty

    def clean(what: str, status: list[str] | None = None) -> None:
        assert _status(repo) == (status or []), what
        assert repo.files() == tree, (what, repo.files() ^ tree)

    clean("setup")
    # Writers.
    (repo.path / "src/b.txt").write_text("b by hand\n")
    repo.ok("resync", "-m", "by hand")
    clean("resync", [" M src/b.txt"])
    repo.ok("undo")
    clean("undo", [])
    repo.ok("redo")
    clean("redo", [" M src/b.txt"])
    repo.ok("gc")
    clean("gc", [" M src/b.txt"])
    assert "nothing to merge" in repo.ok("merge")
    clean("merge", [" M src/b.txt"])
    repo.ok("milestone", "rollback", "1", "--yes")
    clean("milestone rollback", [" M a.txt"])
    repo.ok("rollback", "--to", "latest~1", "-y")
    clean("rollback back", [" M src/b.txt"])
    repo.git("commit", "-qam", "b by hand")
    clean("commit")
    # Readers.
    for command in (
        ("blame", "a.txt"),
        ("blame", "--summary"),
        ("blame", "--markdown", "0..latest"),
        ("blame", "--commits", "HEAD~1..HEAD"),
        ("milestone", "show", "1"),
        ("milestone", "diff", "1"),
        ("milestone", "export", "1"),
        ("status", "--json"),
        ("upgrade", "--dry-run"),
    ):
        repo.ok(*command)
        clean(" ".join(command))
    upgraded = repo.snap("upgrade")
    assert upgraded.returncode in (0, 1), upgraded.stderr
    clean("upgrade")
    # git's side: a branch, a work tree outside this one, push, fetch.
    repo.ok("branch", "1", "at-one")
    clean("branch")
    repo.ok("branch", "1", "at-one-wt", "--worktree", str(tmp_path / "elsewhere"))
    clean("branch --worktree")
    repo.ok("push", "origin")
    clean("push")
    repo.ok("fetch", "origin")
    clean("fetch")
    (repo.path / "key.env").write_text("TOKEN=secret\n")
    repo.ok("record", "key.env", "-m", "oops")
    (repo.path / "key.env").unlink()
    repo.ok("record", "key.env", "-m", "gone")
    repo.ok("forget", "key.env", "-m", "leaked")
    repo.ok("push", "origin")
    repo.ok("forget", "--publish", "origin")
    clean("forget --publish")
    # The agent hosts: the Claude Code hook, the MCP server, watch.
    edit = {
        "tool_name": "Edit",
        "tool_use_id": "t1",
        "tool_input": {"file_path": str(repo.path / "a.txt")},
    }
    claude_hook(repo.path, _event(repo.path, "UserPromptSubmit", prompt="change a"))
    claude_hook(repo.path, _event(repo.path, "PreToolUse", **edit))
    (repo.path / "a.txt").write_text("three\n")
    claude_hook(repo.path, _event(repo.path, "PostToolUse", **edit, tool_response={}))
    claude_hook(repo.path, _event(repo.path, "Stop"))
    clean("hook claude-code", [" M a.txt"])
    _mcp_write(repo.path, "a.txt", "four\n")
    clean("mcp", [" M a.txt"])
    _watch_once(repo, "a.txt", "five\n")
    clean("watch", [" M a.txt"])
    assert json.loads(repo.ok("status", "--json"))["in_sync"]
    # The warm server: started, serving, asked, stopped.
    # Short: a socket's path has 107 bytes, more than tmp_path leaves.
    runtime = Path(tempfile.mkdtemp(prefix="sla37-"))
    warm = {"SNAPLINE_RUNTIME_DIR": str(runtime), "SNAPLINE_SERVER": "1"}
    pid = None
    try:
        started = repo.snap("server", "start", "--idle-timeout", "120", "--json", env=warm)
        assert started.returncode == 0, started.stderr
        pid = int(json.loads(started.stdout)["pid"])
        for command in (("status",), ("verify",), ("server", "status")):
            done = repo.snap(*command, env=warm)
            assert done.returncode == 0, (command, done.stderr)
            clean("warm " + " ".join(command), [" M a.txt"])
        (repo.path / "a.txt").write_text("six\n")
        assert repo.snap("record", "a.txt", env=warm).returncode == 0
        clean("warm record", [" M a.txt"])
        assert repo.snap("server", "stop", env=warm).returncode == 0
        clean("server stop", [" M a.txt"])
    finally:
        if pid is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)  # stopped already, unless the test failed
        shutil.rmtree(runtime, ignore_errors=True)
    assert repo.snap("verify").returncode == 0
