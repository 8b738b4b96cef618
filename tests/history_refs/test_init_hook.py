"""`snapline init` on git's refs installs the pre-push hook: `git push` carries the history."""

from __future__ import annotations

import json
from pathlib import Path

from tests.history_refs.gitrepo import new_repo


def test_a_plain_git_push_after_init_carries_the_history(tmp_path: Path) -> None:
    work = new_repo(tmp_path / "work", {"a.txt": "a\n"})
    summary = json.loads(work.ok("init", "--json"))
    assert summary["push_hook"] == str(work.path / ".git" / "hooks" / "pre-push")
    (work.path / "a.txt").write_text("a, edited\n")
    work.ok("record", "a.txt", "-m", "edit")
    work.git("commit", "-qam", "edit")
    origin = tmp_path / "origin.git"
    work.git("init", "-q", "--bare", str(origin))
    work.git("push", "-q", str(origin), "main")
    pushed = work.git("--git-dir", str(origin), "for-each-ref", "refs/snapline/")
    assert pushed and pushed == work.git("for-each-ref", "refs/snapline/")
    assert work.git("status", "--porcelain", "--ignored") == ""


def test_a_users_own_hook_still_runs_first(tmp_path: Path) -> None:
    work = new_repo(tmp_path / "work", {"a.txt": "a\n"})
    mine = work.path / ".git" / "hooks" / "pre-push"
    mine.write_text(f"#!/bin/sh\necho ran > {tmp_path / 'mine-ran'}\nexit 0\n")
    mine.chmod(0o755)
    out = work.ok("init")
    assert "`git push` of a branch carries it" in out
    origin = tmp_path / "origin.git"
    work.git("init", "-q", "--bare", str(origin))
    work.git("push", "-q", str(origin), "main")
    assert (tmp_path / "mine-ran").read_text() == "ran\n"
    assert work.git("--git-dir", str(origin), "for-each-ref", "refs/snapline/lines/")
