"""Blame survives how the work reached the branch: squash, rebase and merge, with real git.

An agent's branch records snapshots (the ledger committed with the code, as 0.2 keeps
it) and a person edits one file by hand (``resync``). The branch then reaches ``main``
by a squash merge, a rebase that rewrites every commit (new ids) or a merge commit; in a
fresh clone of ``main`` (its index rebuilt from the ledger alone) every line of every
file is blamed on the same snapshot (number and id), kind, session and prompt as on the
branch: attribution is by the history's content, not by commit ids.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from snapline import Workspace
from tests.conftest import GIT_IDENTITY
from tests.scanning.git_reference import GIT

pytestmark = pytest.mark.skipif(GIT is None, reason="needs git")

Blamed = dict[str, list[tuple[str, int | None, str | None, str, str | None, int | None]]]


def _git(cwd: Path, *args: str) -> str:
    assert GIT is not None
    done = subprocess.run(
        [GIT, *args], cwd=cwd, env={**os.environ, **GIT_IDENTITY}, capture_output=True, text=True
    )
    assert done.returncode == 0, (args, done.stderr)
    return done.stdout


def _blame(root: Path) -> Blamed:
    with Workspace.open(root) as ws:
        return {
            path: [
                (line.shown(), o.number, o.id, o.kind.value, o.session, o.prompt)
                for line in ws.blame(path).lines
                for o in [line.origin]
            ]
            for path in ws.tracked()
        }


def _branch(tmp_path: Path) -> tuple[Path, Blamed]:
    """The repository, with the agent's branch ``feature`` checked out; its blame."""
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    (repo / "app.py").write_text("def f():\n    return 1\n")
    (repo / "notes.txt").write_text("notes\n")
    Workspace.init(repo, in_tree=True).close()  # the in-tree ledger: committed with the code
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "baseline")
    _git(repo, "checkout", "-qb", "feature")
    with Workspace.open(repo) as ws:
        prompt = {"prompt": {"session": "agent-1", "n": 1, "at": 0}}
        ws.write_file("app.py", "def f():\n    return 2\n\n\ndef g():\n    return f()\n",
                      session="agent-1", metadata=prompt)  # fmt: skip
        _git(repo, "add", "-A")
        _git(repo, "commit", "-qm", "agent: f returns 2, g")
        ws.write_file("lib.py", "X = 1\r\nY = 2", session="agent-1", metadata=prompt)
        (repo / "app.py").write_text(
            "def f():\n    return 2  # checked\n\n\ndef g():\n    return f()\n"
        )
        ws.resync(session="alice", description="by hand")
        ws.milestones.create("first")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "agent: lib; alice: a comment")
    blamed = _blame(repo)
    assert {o[3] for lines in blamed.values() for o in lines} == {"agent", "person", "baseline"}
    return repo, blamed


@pytest.mark.parametrize("how", ["squash", "rebase", "merge"])
def test_the_same_lines_keep_the_same_snapshots_on_the_target_branch(
    tmp_path: Path, how: str
) -> None:
    repo, on_branch = _branch(tmp_path)
    _git(repo, "checkout", "-q", "main")
    (repo / "other.txt").write_text("main moved on\n")  # ignored: main's own commit
    (repo / ".gitignore").write_text("other.txt\n")
    _git(repo, "add", ".gitignore")
    _git(repo, "commit", "-qm", "main: ignore other.txt")
    before = {_git(repo, "rev-parse", "feature").strip()}
    if how == "squash":
        _git(repo, "merge", "-q", "--squash", "feature")
        _git(repo, "commit", "-qm", "feature, squashed")
    elif how == "rebase":
        _git(repo, "checkout", "-q", "feature")
        _git(repo, "rebase", "-q", "--force-rebase", "main")
        assert _git(repo, "rev-parse", "feature").strip() not in before  # new commit ids
        _git(repo, "checkout", "-q", "main")
        _git(repo, "merge", "-q", "--ff-only", "feature")
    else:
        _git(repo, "merge", "-q", "--no-ff", "-m", "merge feature", "feature")
    clone = tmp_path / "clone"
    _git(tmp_path, "clone", "-q", "--branch", "main", str(repo), str(clone))
    after = _blame(clone)
    for found in (after, on_branch):
        found.pop(".gitignore", None)
    assert after == on_branch


def test_the_ci_recipe_reviews_the_pull_request_s_snapshots(tmp_path: Path) -> None:
    # docs/ci.md's in-tree step, run as written, in a clone with the pull request's branch.
    repo, _ = _branch(tmp_path)
    clone = tmp_path / "ci"
    _git(tmp_path, "clone", "-q", "--branch", "feature", f"file://{repo}", str(clone))
    doc = (Path(__file__).resolve().parents[2] / "docs" / "ci.md").read_text()
    review = doc.split("## The pull request's review", 1)[1]
    step = review.split("(in-tree ledger)\n", 1)[1].split("run: |\n", 1)[1]
    script = "\n".join(line.strip() for line in step.split("```", 1)[0].splitlines())
    summary = tmp_path / "summary.md"
    env = {
        **os.environ,
        **GIT_IDENTITY,
        "GITHUB_BASE_REF": "main",
        "GITHUB_STEP_SUMMARY": str(summary),
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
    }
    subprocess.run(["bash", "-euc", script], cwd=clone, env=env, check=True)
    text = summary.read_text()
    assert text.startswith("## snapline: snapshots 1-3\n")
    assert "| agent agent-1 | 6 |" in text
    assert "| person alice | 1 |" in text
