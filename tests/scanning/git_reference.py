"""Real git as the reference: which files ``git add -A && git ls-files`` tracks."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

__all__ = ["GIT", "git_tracked", "init_repository"]

GIT = shutil.which("git")


def _env(home: Path) -> dict[str, str]:
    # Only the rules in the tree count: no user or system configuration, no global
    # excludes file, case-sensitive matching as on Linux.
    return {
        "PATH": os.environ.get("PATH", ""),
        "HOME": os.fspath(home),
        "XDG_CONFIG_HOME": os.fspath(home),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "LC_ALL": "C",
    }


def _git(root: Path, *args: str) -> bytes:
    assert GIT is not None, "git is needed to compare ignore rules with git's"
    home = root.parent / (root.name + ".home")
    home.mkdir(exist_ok=True)
    return subprocess.run(
        [GIT, "-c", "core.ignorecase=false", "-c", "core.quotepath=off", *args],
        cwd=root,
        env=_env(home),
        check=True,
        capture_output=True,
    ).stdout


def init_repository(root: Path) -> None:
    """``git init`` without templates (so ``.git/info/exclude`` is only what a test writes)."""
    _git(root, "init", "--quiet", "--template=")


def git_tracked(root: Path) -> set[str]:
    """The paths ``git add -A`` stages in the repository at ``root``, as ``os`` names them."""
    _git(root, "add", "--all")
    out = _git(root, "ls-files", "-z")
    return {os.fsdecode(raw) for raw in out.split(b"\0") if raw}
