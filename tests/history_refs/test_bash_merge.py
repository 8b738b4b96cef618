"""An agent's own ``git merge`` in a Bash call: recorded, and the merged line joined.

Two clones of a bare remote record on lines of their own (issue 37, point 5): B records
``lib.py`` and ``docs.md`` on a branch and pushes it (the pre-push hook carries its line); A records
``app.py``, fetches, and its agent runs ``git merge`` of B's branch in one Bash call
that also writes ``notes.txt``. The Claude Code hooks are fed the JSON Claude Code
writes. After ``PostToolUse`` the command's own change is a Bash snapshot, B's line is
joined by a merge snapshot that keeps the command, and ``verify`` passes with no step by
anyone; a merge that waits for its commit (``--no-commit``, ``--squash``) is joined as
well, and a conflict's markers are the command's change. Merged work that was there
before the call (a person's ``git pull``) stays the person's to join
(test_merge_refusals.py).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.history_refs.gitrepo import ENV, Repo, claude_hook, new_repo
from tests.history_refs.test_merge_lines import _clone, _commit, _json


def _two_lines(tmp_path: Path) -> tuple[Repo, str]:
    """Clone A, whose line and clone B's are both fetched; B's snapshot's id."""
    origin = tmp_path / "origin.git"
    seed = new_repo(tmp_path / "seed", {"app.py": "v0\n", "lib.py": "x = 0\n"})
    seed.ok("init")
    seed.git("init", "-q", "--bare", str(origin))
    seed.git("remote", "add", "origin", str(origin))
    seed.git("push", "-q", "origin", "main")
    a = _clone(tmp_path, origin, "a", "refs")
    b = _clone(tmp_path, origin, "b", "refs")

    b.git("switch", "-q", "-c", "feature")
    (b.path / "lib.py").write_text("x = 1\n")
    (b.path / "docs.md").write_text("# lib\n")
    b.ok("record", "-m", "B's lib")
    theirs = _json(b, "log")[0]["id"]
    _commit(b, "B's lib")
    b.git("push", "-q", "origin", "feature")  # the hook pushes B's line

    (a.path / "app.py").write_text("v1\n")
    a.ok("record", "app.py", "-m", "A's app")
    _commit(a, "A's app")
    a.git("fetch", "-q", "origin")
    a.ok("fetch", "origin")
    return a, theirs


def _event(root: Path, name: str, command: str, use: str) -> dict[str, Any]:
    event: dict[str, Any] = {
        "session_id": "sess-1",
        "transcript_path": str(root.parent / "transcript.jsonl"),
        "cwd": str(root),
        "permission_mode": "default",
        "hook_event_name": name,
        "tool_name": "Bash",
        "tool_use_id": use,
        "tool_input": {"command": command, "description": "merge the feature"},
    }
    if name == "PostToolUse":
        event["tool_response"] = {"stdout": "", "stderr": "", "interrupted": False}
    return event


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


def _bash(repo: Repo, command: str, *git_args: str, use: str = "toolu_01") -> str:
    """One Bash call as Claude Code runs it: PreToolUse, the command, PostToolUse."""
    assert claude_hook(repo.path, _event(repo.path, "PreToolUse", command, use)) == ""
    if git_args:
        subprocess.run(
            ["git", "-c", "user.name=A", "-c", "user.email=a@example.invalid", *git_args],
            cwd=repo.path,
            env=ENV,
            capture_output=True,
            check=False,  # a conflict exits 1, as it would in the agent's shell
        )
    done = _hook(repo.path, _event(repo.path, "PostToolUse", command, use))
    assert (done.returncode, done.stdout) == (0, ""), done
    assert "Traceback" not in done.stderr
    return done.stderr


def _in_sync(repo: Repo) -> None:
    verified = repo.snap("verify")
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert _json(repo, "status")["drift"] == []
    assert "nothing to merge" in repo.ok("merge")


def test_an_agents_git_merge_is_recorded_and_joined(tmp_path: Path) -> None:
    a, theirs = _two_lines(tmp_path)
    command = "git merge --no-edit origin/feature && echo todo > notes.txt"
    assert claude_hook(a.path, _event(a.path, "PreToolUse", command, "toolu_01")) == ""
    a.git("merge", "-q", "--no-edit", "origin/feature")
    (a.path / "notes.txt").write_text("todo\n")
    said = _hook(a.path, _event(a.path, "PostToolUse", command, "toolu_01"))
    assert (said.returncode, said.stdout, said.stderr) == (0, "", ""), said

    merged, bash = _json(a, "log")[:2]
    assert (bash["number"], bash["tool"], bash["description"]) == (2, "Bash", command)
    assert [f["path"] for f in bash["files"]] == ["notes.txt"]
    assert (merged["number"], merged["tool"]) == (3, "merge")
    assert merged["description"] == command
    assert merged["merges"] == [theirs]
    assert [f["path"] for f in merged["files"]] == ["docs.md", "lib.py"]
    assert merged["session"] == "sess-1"
    assert merged["metadata"]["command"] == command
    assert merged["metadata"]["tool_use_id"] == "toolu_01"
    shown = _json(a, "show", f"id:{theirs[:10]}")
    assert (shown["id"], shown["joined_by"]) == (theirs, 3)
    _in_sync(a)


def test_a_fast_forward_is_joined_too(tmp_path: Path) -> None:
    a, theirs = _two_lines(tmp_path)
    a.git("reset", "-q", "--hard", "origin/main")  # A's own commit out of the way
    a.ok("resync", "-m", "back to main")
    command = "git merge --ff-only origin/feature"
    assert _bash(a, command, "merge", "--ff-only", "origin/feature") == ""
    merged = _json(a, "log")[0]
    assert (merged["tool"], merged["merges"]) == ("merge", [theirs])
    _in_sync(a)


@pytest.mark.parametrize("waiting", ["--no-commit", "--squash"])
def test_a_merge_waiting_for_its_commit_is_joined_and_the_commit_changes_nothing(
    tmp_path: Path, waiting: str
) -> None:
    a, theirs = _two_lines(tmp_path)
    command = f"git merge {waiting} origin/feature"
    assert _bash(a, command, "merge", waiting, "origin/feature") == ""
    merged = _json(a, "log")[0]
    assert (merged["number"], merged["tool"], merged["merges"]) == (2, "merge", [theirs])
    assert merged["description"] == command
    _in_sync(a)
    message = ["-m", "feature"] if waiting == "--squash" else ["--no-edit"]
    assert _bash(a, "git commit", "commit", "-q", *message, use="toolu_02") == ""
    assert _json(a, "log")[0]["number"] == 2
    _in_sync(a)


def test_a_conflicted_merge_keeps_the_markers_as_the_commands(tmp_path: Path) -> None:
    a, theirs = _two_lines(tmp_path)
    (a.path / "lib.py").write_text("x = 2\n")
    a.ok("record", "lib.py", "-m", "A's lib")
    _commit(a, "A's lib")
    assert _bash(a, "git merge origin/feature", "merge", "origin/feature") == ""
    merged, conflicted = _json(a, "log")[:2]
    assert (conflicted["tool"], [f["path"] for f in conflicted["files"]]) == ("Bash", ["lib.py"])
    assert "<<<<<<<" in (a.path / "lib.py").read_text()
    assert (merged["tool"], merged["merges"]) == ("merge", [theirs])
    assert [f["path"] for f in merged["files"]] == ["docs.md"]  # what git merged cleanly
    _in_sync(a)

    (a.path / "lib.py").write_text("x = 3\n")  # resolved (by the agent's Edit tool)
    a.ok("record", "lib.py", "-m", "resolved")
    assert _bash(a, "git commit -am resolved", "commit", "-qam", "resolved", use="t2") == ""
    _in_sync(a)


def test_merged_work_a_person_brought_before_the_call_is_left_to_them(tmp_path: Path) -> None:
    a, _ = _two_lines(tmp_path)
    a.git("merge", "-q", "--no-edit", "origin/feature")  # the person's own merge
    asked = json.loads(
        claude_hook(a.path, _event(a.path, "PreToolUse", "echo todo > notes.txt", "toolu_01"))
    )["hookSpecificOutput"]
    assert (
        asked["permissionDecision"] == "ask"
        and "snapline merge" in asked["permissionDecisionReason"]
    )
    (a.path / "notes.txt").write_text("todo\n")
    done = _hook(a.path, _event(a.path, "PostToolUse", "echo todo > notes.txt", "toolu_01"))
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    latest = _json(a, "log")[0]
    assert (latest["tool"], [f["path"] for f in latest["files"]]) == ("Bash", ["notes.txt"])
    status = _json(a, "status")
    assert [(p["kind"], p["path"]) for p in status["drift"]] == [
        ("unmerged", "docs.md"),
        ("unmerged", "lib.py"),
    ]
