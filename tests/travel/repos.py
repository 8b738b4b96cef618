"""Real repositories, bare remotes and history refs for the travel tests."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from snapline.cli.app import app
from snapline.store.refs.git import open_repository
from tests.cli_runner import CliRunner, Result
from tests.store.refs.lines import GIT_ENV, Line, git, make_repo

__all__ = ["FILES", "bare", "clone", "history", "refs", "run", "run_json", "snapline"]

FILES = {"src/app.py": b"x = 1\n", "docs/guide.md": b"# guide\n"}


def bare(path: Path) -> Path:
    """An empty bare repository at ``path``."""
    git(path.parent, "init", "-q", "--bare", "-b", "main", str(path))
    return path


def clone(remote: Path, path: Path, *args: str) -> Path:
    git(path.parent, "clone", "-q", *args, f"file://{remote}", str(path))
    return path


def history(root: Path, edits: int = 3, line: Line | None = None) -> Line:
    """A line of snapshots written with the store's own writer (``append_snapshot``)."""
    if line is None:
        line = Line.at(root)
        line.snapshot(dict(FILES), tool="init")
    for n in range(edits):
        line.snapshot({"src/app.py": b"x = %d\n" % (len(line.rows) * 100 + n)})
    return line


def continued(root: Path, line: Line) -> Line:
    """``line`` as another repository holding it (a clone that fetched it) continues it."""
    assert line.line is not None and line.tip is not None
    more = Line(open_repository(root), line.line, line.tip)
    more.rows, more.changes, more.files = list(line.rows), list(line.changes), dict(line.files)
    return more


def refs(path: Path) -> str:
    """``git for-each-ref refs/snapline``: every history ref and its commit."""
    return git(path, "for-each-ref", "refs/snapline")


def snapline(root: Path, *args: str) -> Result:
    """``snapline --root ROOT ARGS`` through the real command line, git's config hermetic."""
    return CliRunner().invoke(app, ["--root", str(root), *args], env=GIT_ENV)


def run_json(root: Path, *args: str) -> tuple[int, dict[str, Any]]:
    done = snapline(root, *args, "--json")
    return done.exit_code, json.loads(done.stdout)


def run(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """A git command whose failure is the test's to judge (``git push`` with hooks)."""
    return subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, env=GIT_ENV, check=False
    )


def work(path: Path) -> Path:
    return make_repo(path, FILES)
