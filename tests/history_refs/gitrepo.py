"""A git repository driven as a user drives it: the system's ``git`` and the ``snapline`` script.

No global or system git configuration of the machine running the tests takes part:
each command line gives the identity, and the environment points the configuration
files away.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SNAPLINE = str(Path(sys.executable).with_name("snapline"))
GIT = [
    "git",
    "-c",
    "user.name=Refs Tests",
    "-c",
    "user.email=refs-tests@example.invalid",
    "-c",
    "commit.gpgsign=false",
    "-c",
    "init.defaultBranch=main",
]
ENV = {
    **{k: v for k, v in os.environ.items() if k not in ("GIT_DIR", "GIT_WORK_TREE")},
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "NO_COLOR": "1",
    # Taken at import, before tests/conftest.py's session fixture sets it: no command
    # run here reaches (or starts) a warm server unless its test says so.
    "SNAPLINE_SERVER": "0",
}


@dataclass
class Repo:
    """A git work tree (main or linked) at ``path``."""

    path: Path

    def git(self, *args: str) -> str:
        """``git ARGS`` here; its output (the test fails on a non-zero exit)."""
        done = subprocess.run(
            [*GIT, *args], cwd=self.path, capture_output=True, text=True, env=ENV, check=False
        )
        assert done.returncode == 0, f"git {' '.join(args)}: {done.stderr}"
        return done.stdout

    def snap(
        self, *args: str, env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[str]:
        """``snapline ARGS`` here, the installed console script."""
        return subprocess.run(
            [SNAPLINE, *args],
            cwd=self.path,
            capture_output=True,
            text=True,
            env={**ENV, **(env or {})},
            timeout=120,
            check=False,
        )

    def ok(self, *args: str) -> str:
        """``snapline ARGS``, which must exit 0; its output."""
        done = self.snap(*args)
        assert done.returncode == 0, f"snapline {' '.join(args)}: {done.stdout}{done.stderr}"
        return done.stdout

    def files(self) -> set[str]:
        """Every file and directory under the work tree, ``.git`` left out."""
        found = set()
        for folder, directories, names in os.walk(self.path):
            directories[:] = [
                d for d in directories if not (folder == str(self.path) and d == ".git")
            ]
            relative = os.path.relpath(folder, self.path)
            for name in (*directories, *names):
                found.add(os.path.normpath(os.path.join(relative, name)))
        return found


def new_repo(path: Path, files: dict[str, str]) -> Repo:
    """A repository at ``path`` holding ``files``, committed once."""
    path.mkdir()
    repo = Repo(path)
    repo.git("init", "-q")
    for name, text in files.items():
        (path / name).parent.mkdir(parents=True, exist_ok=True)
        (path / name).write_text(text)
    repo.git("add", "-A")
    repo.git("commit", "-q", "-m", "start")
    return repo


def claude_hook(root: Path, event: dict[str, Any], *args: str) -> str:
    """``snapline hook claude-code ARGS`` fed ``event`` (Claude Code's JSON); its stdout.

    It must exit 0 with nothing on stderr, as Claude Code reads a hook that answers.
    """
    done = subprocess.run(
        [sys.executable, "-m", "snapline", "hook", "claude-code", *args],
        input=json.dumps(event),
        cwd=root,
        env=ENV,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert (done.returncode, done.stderr) == (0, ""), done
    return done.stdout
