"""``snapline upgrade`` killed (SIGKILL) at each of its steps: the old store or the new one works.

The refs are the commit point; ``.snapline/`` leaves the work tree in one rename, after
the refs and the refs store's index are in place. Killed at any step, the next command
reads the same history as before (from the in-tree store or from the refs) and
verifies, and the next ``snapline upgrade`` finishes: one commit on top of the old
``HEAD``, holding only the removal of ``.snapline/``, and a clean ``git status``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.history_refs.upgrading import clone_fixture, git_status, removal_stat, upgrade

STEPS = [
    "upgrade-lines-set",
    "upgrade-refs-moved",
    "upgrade-index-published",
    "upgrade-unstaged",
    "upgrade-tree-moved",
    "upgrade-committed",
]


@pytest.mark.parametrize("step", STEPS)
def test_a_killed_upgrade_leaves_a_working_store_and_the_next_one_finishes(
    step: str, tmp_path: Path
) -> None:
    repo = clone_fixture("ledger-2", tmp_path / "repo")
    head = repo.git("rev-parse", "HEAD").strip()
    log = json.loads(repo.ok("log", "--json"))
    milestones = json.loads(repo.ok("milestone", "list", "--json"))

    killed = upgrade(repo, env={"SNAPLINE_CRASH_AT": step})
    assert killed.returncode == -9, killed.stdout + killed.stderr

    # Whichever store the kill left, it tells the same history and verifies.
    assert json.loads(repo.ok("log", "--json")) == log
    assert json.loads(repo.ok("milestone", "list", "--json")) == milestones
    assert repo.snap("verify").returncode == 0

    done = upgrade(repo)
    assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads(repo.ok("log", "--json")) == log
    assert json.loads(repo.ok("milestone", "list", "--json")) == milestones
    assert repo.snap("verify").returncode == 0
    assert git_status(repo) == ""
    assert repo.git("rev-parse", "HEAD~1").strip() == head
    assert all(line.startswith("D\t.snapline/") for line in removal_stat(repo))
    assert not (repo.path / ".snapline").exists()
    assert not (repo.path / ".git" / "snapline" / "moved-in-tree").exists()
    # Each snapshot once on the refs: a run after a kill writes the same commits.
    listed = repo.git("log", "--format=%H", "--glob=refs/snapline/lines/*").split()
    assert len(listed) == 19
