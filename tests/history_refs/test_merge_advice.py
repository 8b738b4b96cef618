"""After ``git merge`` of another line's work on the refs, status and verify say ``snapline merge``.

The maintainer git-merges (or squash-merges) the agent's branch, whose snapshots are the
agent's own line on the refs (test_merge_lines.py's team). Before ``snapline merge`` the
merged file differs from the maintainer's latest snapshot; calling it an outside change to
``resync`` would file the agent's recorded work as a person's. Status and verify name it
``unmerged`` and advise ``snapline merge`` (verify still exits 1); a person's own edit
beside it keeps its drift and its resync advice; after ``snapline merge`` verify exits 0.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from snapline.hashing import hash_bytes
from tests.history_refs.gitrepo import ENV, claude_hook
from tests.history_refs.test_merge_lines import _team


@pytest.mark.parametrize("merging", ["merge", "squash"])
def test_status_and_verify_advise_merge_for_another_lines_merged_work(
    tmp_path: Path, merging: str
) -> None:
    repo = _team(tmp_path, "refs", merging).maintainer
    status = json.loads(repo.ok("status", "--json"))
    assert status["in_sync"] is False
    assert [(p["kind"], p["path"]) for p in status["drift"]] == [("unmerged", "lib.py")]
    assert status["drift"][0]["message"] == (
        "lib.py is another line's recorded work that git merged into the files; join that "
        "line with `snapline merge` (it is no outside change: do not resync it)"
    )
    # The drift's digests stay, for the Bash hook to compare after a command: the
    # maintainer's recorded lib.py, and the one git merged in.
    merged_in = hash_bytes((repo.path / "lib.py").read_bytes())
    assert (status["drift"][0]["expected"], status["drift"][0]["actual"]) == (
        hash_bytes(b"x = 0\n"),
        merged_in,
    )
    assert merged_in != hash_bytes(b"x = 0\n")
    text = repo.ok("status")
    assert "snapline merge" in text and "lib.py" in text
    assert "resync" not in text.replace("do not resync", "")

    verify = repo.snap("verify")
    assert verify.returncode == 1
    assert "snapline merge" in verify.stdout and "lib.py" in verify.stdout
    assert "resync -m" not in verify.stdout + verify.stderr
    checked = repo.snap("verify", "--json")
    assert checked.returncode == 1
    problems = json.loads(checked.stdout)["problems"]
    assert [(p["kind"], p["path"]) for p in problems] == [("unmerged", "lib.py")]

    repo.ok("merge")
    assert repo.snap("verify").returncode == 0


def test_a_persons_edit_beside_the_merge_keeps_its_resync_advice(tmp_path: Path) -> None:
    repo = _team(tmp_path, "refs").maintainer
    (repo.path / "app.py").write_text("by hand\n")
    status = json.loads(repo.ok("status", "--json"))
    kinds = {p["path"]: p["kind"] for p in status["drift"]}
    assert kinds == {"app.py": "modified", "lib.py": "unmerged"}
    text = repo.ok("status")
    assert "snapline merge" in text and "snapline resync -m TEXT" in text
    verify = repo.snap("verify")
    assert verify.returncode == 1
    lines = verify.stdout.splitlines()
    assert any("app.py" in line and "resync" in line for line in lines)
    assert not any("lib.py" in line and "resync -m" in line for line in lines)


def test_an_edit_committed_into_the_merge_keeps_its_resync_advice(tmp_path: Path) -> None:
    """The merge commit amended with a person's edit of app.py: git wrote that file too
    (it is HEAD's), but no line recorded it, so it stays a person's change to resync."""
    repo = _team(tmp_path, "refs").maintainer
    (repo.path / "app.py").write_text("by hand, in the merge\n")
    repo.git("commit", "-q", "-a", "--amend", "--no-edit")
    status = json.loads(repo.ok("status", "--json"))
    kinds = {p["path"]: p["kind"] for p in status["drift"]}
    assert kinds == {"app.py": "modified", "lib.py": "unmerged"}


def _pre_tool_use(root: Path, tool: dict[str, Any]) -> str:
    event = {
        "session_id": "sess-1",
        "transcript_path": str(root.parent / "transcript.jsonl"),
        "cwd": str(root),
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_use_id": "toolu_01",
        **tool,
    }
    return claude_hook(root, event)


def test_the_claude_code_hooks_say_merge_not_resync(tmp_path: Path) -> None:
    repo = _team(tmp_path, "refs").maintainer
    edit = {"tool_name": "Edit", "tool_input": {"file_path": str(repo.path / "lib.py")}}
    answer = json.loads(_pre_tool_use(repo.path, edit))["hookSpecificOutput"]
    assert answer["permissionDecision"] == "deny"
    assert "snapline merge" in answer["permissionDecisionReason"]
    assert "resync" not in answer["permissionDecisionReason"]
    bash = {"tool_name": "Bash", "tool_input": {"command": "ls"}}
    answer = json.loads(_pre_tool_use(repo.path, bash))["hookSpecificOutput"]
    assert answer["permissionDecision"] == "ask"
    assert "snapline merge" in answer["permissionDecisionReason"]
    assert "resync" not in answer["permissionDecisionReason"]


def test_watch_leaves_another_lines_merged_work_to_snapline_merge(tmp_path: Path) -> None:
    # `watch` records whatever drifted; another line's recorded work that git merged in is
    # not a change of the watcher's: filed under `watch`, it would lose its agent.
    repo = _team(tmp_path, "refs").maintainer
    watching = subprocess.Popen(
        [str(Path(sys.executable).with_name("snapline")), "watch", "--quiet-ms", "100"],
        cwd=repo.path, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert watching.stderr is not None
        line = watching.stderr.readline()
        assert line.startswith("watching "), line
        (repo.path / "app.py").write_text("by hand, while watching\n")
        watching.send_signal(signal.SIGINT)
        _, err = watching.communicate(timeout=120)
    finally:
        if watching.poll() is None:
            watching.kill()
    assert watching.returncode == 0, err
    logged = json.loads(repo.ok("log", "--json"))
    watched = [s for s in logged if s["tool"] == "watch"]
    assert [f["path"] for s in watched for f in s["files"]] == ["app.py"]
    status = json.loads(repo.ok("status", "--json"))
    assert [(p["kind"], p["path"]) for p in status["drift"]] == [("unmerged", "lib.py")]
    repo.ok("merge")
    assert repo.snap("verify").returncode == 0
