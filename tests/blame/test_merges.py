"""docs/ci.md's review step for an old branch that still carries the in-tree ledger.

A pull request whose branch keeps its history committed in ``.snapline/ledger/`` (a
branch from before 0.3, read forever) is reviewed in CI by the step docs/ci.md gives
for it: the base's latest snapshot id from git's tree, then ``blame --summary
--markdown id:BASE..``. The branch is the ledger-2 fixture's ``agent-c`` (written by
c82d55b: snapshot 5 by agent-c, 6 by carol, on main's snapshots 0-4), the base the
commit it forked from.

Blame surviving squash, rebase and merge commits is shown on the default store, git's
refs, by tests/blame/test_team_lines.py (a fresh clone of main blames every line as
the agent's clone does, for each way of merging).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import GIT_IDENTITY
from tests.old_ledgers import ledger_checkout
from tests.scanning.git_reference import GIT

pytestmark = pytest.mark.skipif(GIT is None, reason="needs git")


def test_the_ci_recipe_reviews_an_in_tree_pull_request_s_snapshots(tmp_path: Path) -> None:
    repo = ledger_checkout(tmp_path / "repo")
    repo.git("branch", "base", repo.git("merge-base", "main", "agent-c").strip())
    clone = tmp_path / "ci"
    repo.git("clone", "-q", "--branch", "agent-c", f"file://{repo.path}", str(clone))
    doc = (Path(__file__).resolve().parents[2] / "docs" / "ci.md").read_text()
    review = doc.split("## The pull request's review", 1)[1]
    step = review.split("(in-tree ledger)\n", 1)[1].split("run: |\n", 1)[1]
    script = "\n".join(line.strip() for line in step.split("```", 1)[0].splitlines())
    summary = tmp_path / "summary.md"
    env = {
        **os.environ,
        **GIT_IDENTITY,
        "GITHUB_BASE_REF": "base",
        "GITHUB_STEP_SUMMARY": str(summary),
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
    }
    subprocess.run(["bash", "-euc", script], cwd=clone, env=env, check=True)
    text = summary.read_text()
    assert text.startswith("## snapline: snapshots 5-6\n")
    assert "| verify | passed |" in text
    assert "agent-c | 1 |" in text and "carol | 1 |" in text
    assert "| before snapshot 5 | 0 |" in text
    assert "| src/c.txt | 1 | 1 | 0 | 0 | 0 |" in text
    assert "| src/feature\\_c.py | 1 | 1 | 0 | 0 | 0 |" in text
