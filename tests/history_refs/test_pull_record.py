"""Issue 37, point 3: ``record`` after a ``git pull`` whose history is not fetched yet.

A clone that ``git pull``s a colleague's commits gets their files, not their snapshots
(those wait on the remote, pushed by the colleague's pre-push hook, until ``snapline
fetch``). ``status``, ``verify`` and the writers' refusals name ``snapline fetch`` first
for the pulled files (test_history_missing.py). ``record`` took them instead: on
0985dc9 ``snapline record`` (the CLI, ``Workspace.record``, and the Claude Code
``PostToolUse`` hook after the agent's own ``git pull``) filed the pulled files as this
writer's snapshot, so the colleague's recorded work became the agent's, and once fetched
it sat on a line this clone had forked away from. Now ``record`` refuses before writing
anything, exit 1, in one line naming ``snapline fetch origin``; the hook warns on
stderr, exit 0, and records nothing. A hand edit is recorded as before, and after the
fetch the same ``record`` succeeds with the colleague's snapshot theirs in the history.

Two clones and a bare remote, driven through the real ``snapline`` script and the hook
fed Claude Code's JSON.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.history_refs.gitrepo import ENV, SNAPLINE, Repo, new_repo


def _pulled(tmp_path: Path, *, own_line: bool = False) -> tuple[Repo, Repo]:
    """The colleague and a clone that pulled the colleague's second snapshot's commit.

    The clone fetched the history once (snapshot 1, the colleague's ``b``); the
    colleague then recorded ``c`` (session ``colleague``), committed and pushed (its
    pre-push hook carried the history); the clone ran ``git pull`` only. With
    ``own_line`` the clone recorded an edit of its own first (a line of its own).
    """
    origin = tmp_path / "origin.git"
    work = new_repo(tmp_path / "work", {"a.txt": "a\n", "b.txt": "x\n"})
    work.ok("init")
    work.git("init", "-q", "--bare", str(origin))
    work.git("remote", "add", "origin", str(origin))
    (work.path / "a.txt").write_text("b\n")
    work.ok("record", "a.txt", "-m", "b", "--session", "colleague")
    work.git("commit", "-qam", "b")
    # To an empty remote the pre-push hook defers the history's push until git's ends:
    # pushed here explicitly instead, so that the clone's fetch finds it.
    work.git("push", "-q", "--no-verify", "origin", "main")
    work.ok("push", "origin")
    clone = Repo(tmp_path / "clone")
    Repo(tmp_path).git("clone", "-q", str(origin), str(clone.path))
    clone.ok("fetch", "origin")
    if own_line:
        (clone.path / "b.txt").write_text("mine\n")
        clone.ok("record", "b.txt", "-m", "mine", "--session", "agent")
    (work.path / "a.txt").write_text("c\n")
    work.ok("record", "a.txt", "-m", "c", "--session", "colleague")
    work.git("commit", "-qam", "c")
    work.git("push", "-q", "origin", "main")
    clone.git("pull", "-q", "--ff-only")
    assert (clone.path / "a.txt").read_text() == "c\n"
    return work, clone


def _log(repo: Repo) -> list[tuple[int, str, str | None]]:
    """``log --json``, oldest first: each snapshot's number, description and session."""
    listed = json.loads(repo.ok("log", "--json"))
    return sorted((s["number"], s["description"], s["session"]) for s in listed)


def _refused(done: subprocess.CompletedProcess[str]) -> None:
    """Refused as the other writers refuse a pulled file: exit 1, one line, fetch first."""
    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("snapline: "), done.stderr
    assert "a.txt" in done.stderr, done.stderr
    assert "`snapline fetch origin` first" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr


def test_record_refuses_pulled_files_until_the_fetch(tmp_path: Path) -> None:
    _, clone = _pulled(tmp_path)
    before = _log(clone)
    assert before == [(0, "baseline", None), (1, "b", "colleague")]

    for args in (
        ("record",),
        ("record", "a.txt"),
        ("record", "--json"),
        ("resync", "-m", "pulled"),
    ):
        _refused(clone.snap(*args))  # FAILS on 0985dc9: recorded a.txt as snapshot 2
    assert _log(clone) == before  # nothing written
    assert clone.git("for-each-ref", "refs/snapline/lines/").count("\n") == 1  # no line forked

    # What the refusal says to do: fetch; then the same record succeeds.
    clone.ok("fetch", "origin")
    assert "nothing changed" in clone.ok("record")
    (clone.path / "b.txt").write_text("agent\n")
    assert "recorded snapshot 3" in clone.ok("record", "-m", "agent's", "--session", "agent")
    assert _log(clone) == [
        (0, "baseline", None),
        (1, "b", "colleague"),
        (2, "c", "colleague"),  # the colleague's, as they recorded it
        (3, "agent's", "agent"),
    ]
    assert clone.snap("verify").returncode == 0


def test_a_writer_with_a_line_of_its_own_is_refused_then_merges(tmp_path: Path) -> None:
    _, clone = _pulled(tmp_path, own_line=True)
    before = _log(clone)
    _refused(clone.snap("record"))  # FAILS on 0985dc9: recorded a.txt as the agent's
    assert _log(clone) == before

    clone.ok("fetch", "origin")
    # Fetched, the pulled file is the colleague's line's work for `snapline merge`.
    merge_first = clone.snap("record")
    assert merge_first.returncode == 1 and "snapline merge" in merge_first.stderr
    clone.ok("merge")
    listed = json.loads(clone.ok("log", "--json"))
    joins = [(j["description"], j["session"]) for s in listed for j in s["joins"]]
    assert joins == [("c", "colleague")], listed  # the colleague's snapshot, theirs, joined
    mine = [s for s in listed if s["session"] == "agent"]
    assert [[f["path"] for f in s["files"]] for s in mine] == [["b.txt"]], listed
    (clone.path / "b.txt").write_text("mine again\n")
    assert "recorded snapshot" in clone.ok("record", "b.txt")


def test_a_hand_edit_is_recorded_as_before(tmp_path: Path) -> None:
    """Only files git put there are refused: a person's edit, pulled or not, records."""
    _, clone = _pulled(tmp_path)
    (clone.path / "b.txt").write_text("by hand\n")
    # The whole workspace holds the pulled a.txt: refused, b.txt not recorded either.
    _refused(clone.snap("record"))
    assert len(_log(clone)) == 2
    # b.txt alone is a hand edit, recorded as today.
    assert "recorded snapshot 2" in clone.ok("record", "b.txt", "-m", "hand")
    # a.txt edited by hand on top of the pulled commit: git did not put it there.
    (clone.path / "a.txt").write_text("c and more by hand\n")
    assert "recorded snapshot 3" in clone.ok("record", "a.txt", "-m", "hand a")
    assert _log(clone)[-2:] == [(2, "hand", None), (3, "hand a", None)]


def test_the_library_refuses_too(tmp_path: Path) -> None:
    from snapline import StateMismatchError, Workspace

    _, clone = _pulled(tmp_path)
    with Workspace.open(clone.path) as ws:
        with pytest.raises(StateMismatchError) as refused:
            ws.record()
        assert refused.value.paths == ["a.txt"]
        assert refused.value.unfetched == ["a.txt"]
        assert "`snapline fetch origin` first" in str(refused.value)
        assert ws.latest == 1


def _hook(root: Path, event: dict[str, Any]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "snapline", "hook", "claude-code"],
        input=json.dumps(event),
        cwd=root,
        env=ENV,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def _event(root: Path, name: str, tool: str, tool_input: dict[str, Any]) -> dict[str, Any]:
    event: dict[str, Any] = {
        "session_id": "agent",
        "transcript_path": str(root.parent / "transcript.jsonl"),
        "cwd": str(root),
        "permission_mode": "default",
        "hook_event_name": name,
        "tool_name": tool,
        "tool_use_id": f"toolu_{name}_{tool}",
        "tool_input": tool_input,
    }
    if name == "PostToolUse":
        event["tool_response"] = {"stdout": "", "stderr": "", "interrupted": False}
    return event


def test_the_hook_after_the_agent_s_git_pull_records_nothing_and_warns(tmp_path: Path) -> None:
    """The agent's Bash ``git pull`` (run here as the tool ran it): PostToolUse warns."""
    _, clone = _pulled(tmp_path)  # the pull is the agent's command below
    before = _log(clone)
    pull = {"command": "git pull --ff-only", "description": "pull"}
    done = _hook(clone.path, _event(clone.path, "PostToolUse", "Bash", pull))
    # Claude Code's way for a PostToolUse that cannot do its part: exit 0, JSON on stdout
    # with the line for the person (systemMessage) and for the model (additionalContext),
    # no decision; the tool already ran. The same line on stderr, for logs.
    assert done.returncode == 0, done
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("snapline: warning: ")
    assert "`snapline fetch origin` first" in done.stderr, done.stderr
    said = json.loads(done.stdout)
    assert said["systemMessage"] + "\n" == done.stderr
    assert said["hookSpecificOutput"]["hookEventName"] == "PostToolUse"
    assert "`snapline fetch origin` first" in said["hookSpecificOutput"]["additionalContext"]
    assert _log(clone) == before  # FAILS on 0985dc9: a Bash snapshot of a.txt

    clone.ok("fetch", "origin")
    (clone.path / "b.txt").write_text("agent\n")
    edit = {"file_path": str(clone.path / "b.txt"), "old_string": "x", "new_string": "agent"}
    done = _hook(clone.path, _event(clone.path, "PostToolUse", "Edit", edit))
    assert (done.returncode, done.stdout, done.stderr) == (0, "", ""), done
    assert _log(clone)[1:] == [
        (1, "b", "colleague"),
        (2, "c", "colleague"),
        (3, "Edit b.txt", "agent"),
    ]


def test_the_hook_before_a_tool_names_the_fetch_for_pulled_files(tmp_path: Path) -> None:
    """PreToolUse over a pulled file: its way out is the fetch, never resync (refused now)."""
    _, clone = _pulled(tmp_path)
    edit = {"file_path": str(clone.path / "a.txt"), "old_string": "c", "new_string": "d"}
    done = _hook(clone.path, _event(clone.path, "PreToolUse", "Edit", edit))
    assert (done.returncode, done.stderr) == (0, ""), done
    decision = json.loads(done.stdout)["hookSpecificOutput"]
    assert decision["permissionDecision"] == "deny"
    reason = decision["permissionDecisionReason"]
    assert "a.txt" in reason and "`snapline fetch origin`" in reason, reason
    assert "resync" not in reason, (
        reason
    )  # FAILS on 0985dc9: "ask the user to keep it (`snapline resync`)"

    command = {"command": "ls", "description": "list"}
    done = _hook(clone.path, _event(clone.path, "PreToolUse", "Bash", command))
    assert (done.returncode, done.stderr) == (0, ""), done
    decision = json.loads(done.stdout)["hookSpecificOutput"]
    assert decision["permissionDecision"] == "ask"
    reason = decision["permissionDecisionReason"]
    assert "a.txt" in reason and "`snapline fetch origin`" in reason, reason
    assert "resync" not in reason and "records that change first" not in reason, reason
    assert _log(clone)[-1] == (1, "b", "colleague")


def test_the_mcp_tools_name_the_fetch_not_the_resync_tool(tmp_path: Path) -> None:
    """A model over MCP is told what the person runs: there is no tool that fetches."""
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    _, clone = _pulled(tmp_path)
    said: dict[str, str] = {}

    async def main() -> None:
        args = ["--root", str(clone.path), "mcp"]
        params = StdioServerParameters(command=SNAPLINE, args=args, env=ENV)
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            for tool, arguments in (
                ("record", {}),
                ("write_file", {"path": "a.txt", "content": "mine\n"}),
            ):
                result = await session.call_tool(tool, arguments)
                assert result.is_error, result.content
                said[tool] = str(result.content[0].text)  # type: ignore[union-attr]

    asyncio.run(main())
    for tool, message in said.items():
        assert "a.txt" in message and "`snapline fetch origin`" in message, (tool, message)
        # FAILS on 0985dc9: record recorded a.txt; write_file said to call `resync`
        assert "resync" not in message, (tool, message)
    assert _log(clone)[-1] == (1, "b", "colleague")
    assert (clone.path / "a.txt").read_text() == "c\n"


def test_a_pull_that_merges_local_commits_is_refused_and_a_local_commit_is_not(
    tmp_path: Path,
) -> None:
    """A pull onto local commits checks out a commit no remote has: the pulled file is
    still the remote's version; a person's commit that no remote has records as ever."""
    _, clone = _pulled(tmp_path, own_line=True)
    clone.ok("fetch", "origin")
    clone.ok("merge")
    clone.git("commit", "-qam", "mine")  # the clone's own commit, then the colleague's
    work = Repo(tmp_path / "work")
    (work.path / "a.txt").write_text("d\n")
    work.ok("record", "a.txt", "-m", "d", "--session", "colleague")
    work.git("commit", "-qam", "d")
    work.git("push", "-q", "origin", "main")
    clone.git("pull", "-q", "--no-rebase", "--no-edit")  # a merge commit of the clone's
    before = _log(clone)

    assert "`snapline fetch origin` first" in clone.ok("status")  # FAILS on a0e2541: resync
    _refused(clone.snap("record"))  # FAILS on 0985dc9: recorded a.txt as its own
    assert _log(clone) == before

    # A person's commit that no remote has: git put the file there, but it is theirs.
    (clone.path / "a.txt").write_text("by a person, committed\n")
    clone.git("commit", "-qam", "a person's")
    assert "snapline fetch" not in clone.ok("status")
    assert "recorded snapshot" in clone.ok("record", "a.txt", "-m", "person")


def test_a_pull_of_a_branch_whose_history_is_here_is_for_merge_not_fetch(
    tmp_path: Path,
) -> None:
    """``snapline fetch`` first, then ``git pull`` of a branch whose agent recorded: the
    history is here, so record says `snapline merge`, as status does, not the fetch."""
    from tests.history_refs.test_bash_merge import _two_lines

    a, _ = _two_lines(tmp_path)
    a.git("pull", "-q", "--no-rebase", "--no-edit", "origin", "feature")
    assert "snapline merge" in a.ok("status")
    done = a.snap("record")
    assert done.returncode == 1 and done.stderr.count("\n") == 1, done.stderr
    assert "`snapline merge`" in done.stderr, done.stderr
    assert "snapline fetch" not in done.stderr, done.stderr  # FAILS on 1d6cb85
