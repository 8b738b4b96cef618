"""Two work trees driven alike for the git machine: one records with snapline, one is plain git.

A ``Twin`` is a work tree of the snapline repository (the main one, or a linked one made
by ``git worktree add``) and the same work tree of a plain-git twin repository. Git runs
in both with no global or system configuration (tests/history_refs/gitrepo.py's
command line and environment); snapline runs in-process through the real command line
(typer's runner), where an exception or exit 3 fails the test.
"""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass
from pathlib import Path

from snapline.cli.app import app
from tests.cli_runner import CliRunner
from tests.conftest import tree
from tests.history_refs.gitrepo import ENV, GIT

__all__ = ["Twin", "git", "snapline_refs"]

_RUNNER = CliRunner()


def git(path: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    """``git ARGS`` in ``path``; the test fails on a non-zero exit when ``check``."""
    done = subprocess.run(
        [*GIT, *args], cwd=path, capture_output=True, text=True, env=ENV, check=False
    )
    if check:
        assert done.returncode == 0, f"git {' '.join(args)} in {path}: {done.stderr}"
    return done


def snapline_refs(path: Path) -> str:
    """Every ref under ``refs/snapline/`` of the repository of ``path``, with its commit."""
    return git(path, "for-each-ref", "--format=%(objectname) %(refname)", "refs/snapline/").stdout


@dataclass
class Twin:
    """One work tree of the snapline repository (``snap``) and its plain-git twin."""

    name: str
    snap: Path
    twin: Path
    branch: str

    @property
    def both(self) -> tuple[Path, Path]:
        """The two work trees, snapline's first."""
        return self.snap, self.twin

    def cli(self, *args: str) -> tuple[int, str]:
        """``snapline ARGS`` in the snapline work tree: its exit code and output."""
        done = _RUNNER.invoke(app, ["--root", str(self.snap), *args], catch_exceptions=False)
        assert "Traceback" not in done.output, done.output
        assert done.exit_code != 3, f"{self.name}: snapline {' '.join(args)}: {done.output}"
        return done.exit_code, done.output

    def ok(self, *args: str) -> str:
        """``snapline ARGS``, which must exit 0; its output."""
        code, output = self.cli(*args)
        assert code == 0, f"{self.name}: snapline {' '.join(args)} exit {code}: {output}"
        return output

    def verify(self) -> tuple[int, set[str], str]:
        """``snapline verify --json``: exit code, the problems' kinds, what it printed."""
        code, output = self.cli("verify", "--json")
        kinds = {problem["kind"] for problem in json.loads(output)["problems"]}
        return code, kinds, output

    def log_numbers(self) -> list[tuple[int, str]]:
        """``(number, id)`` of each snapshot ``snapline log`` lists on this work tree's line."""
        return [(s["number"], s["id"]) for s in json.loads(self.ok("log", "--json"))]

    def git_both(self, *args: str) -> list[subprocess.CompletedProcess[str]]:
        """``git ARGS`` in both work trees, whatever its exit code (the caller compares)."""
        return [git(path, *args, check=False) for path in self.both]

    def status(self, path: Path) -> list[str]:
        """``git status --porcelain`` of ``path``, every untracked file listed."""
        text = git(path, "status", "--porcelain", "--untracked-files=all").stdout
        return text.splitlines()

    def files(self, path: Path) -> dict[str, bytes]:
        """The work tree's files (``.git`` left out) with their bytes."""
        return tree(path)

    def conflicted(self, path: Path) -> set[str]:
        """The paths git left unmerged in ``path``."""
        return set(git(path, "diff", "--name-only", "--diff-filter=U").stdout.splitlines())
