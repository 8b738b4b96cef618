"""Helpers of the upgrade tests: fixture stores in real repositories, and what they say.

The oracle of every upgrade test is the old store's own answers (``log``, ``show``,
``milestone list``, ``verify`` with ``--json``), taken before the upgrade on the same
checkout, and plain git (``git status``, ``git show``, ``git cat-file``).
"""

from __future__ import annotations

import json
import subprocess
import tarfile
from pathlib import Path
from typing import Any

from tests.history_refs.gitrepo import ENV, GIT, Repo

FIXTURES = Path(__file__).parent.parent / "fixtures"
# The removal commit is the user's: git needs an identity, as a user's config gives it.
IDENTITY = {
    "GIT_AUTHOR_NAME": "Upgrade Tests",
    "GIT_AUTHOR_EMAIL": "upgrade@example.invalid",
    "GIT_COMMITTER_NAME": "Upgrade Tests",
    "GIT_COMMITTER_EMAIL": "upgrade@example.invalid",
}


def clone_fixture(name: str, path: Path) -> Repo:
    """A fresh clone of ``tests/fixtures/NAME.bundle``, every branch of it a local branch."""
    subprocess.run(
        [*GIT, "clone", "-q", str(FIXTURES / f"{name}.bundle"), str(path)], env=ENV, check=True
    )
    repo = Repo(path)
    manifest = json.loads((FIXTURES / f"{name}.json").read_text())
    for branch in manifest["branches"]:
        if branch != "main":
            repo.git("branch", "-q", branch, f"origin/{branch}")
    return repo


def repo_of_0_1(path: Path) -> Repo:
    """A repository whose one commit holds the snapline 0.1.0 workspace, ``store.db`` too."""
    with tarfile.open(FIXTURES / "workspace-0.1.0.tar.gz") as archive:
        archive.extractall(path.parent / "extracted", filter="data")
    (path.parent / "extracted" / "ws").rename(path)
    repo = Repo(path)
    repo.git("init", "-q")
    repo.git("add", "-A", "-f")
    repo.git("commit", "-q", "-m", "a 0.1 history")
    return repo


def upgrade(
    repo: Repo, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``snapline upgrade ARGS`` with the user's git identity."""
    return repo.snap("upgrade", *args, env={**IDENTITY, **(env or {})})


def answers(repo: Repo) -> dict[str, Any]:
    """What the store says of its history: log, every show, milestones, verify."""
    said: dict[str, Any] = {}
    log = repo.snap("log", "--json")
    assert log.returncode == 0, log.stdout + log.stderr
    said["log"] = json.loads(log.stdout)
    for entry in said["log"]:
        shown = repo.snap("show", str(entry["number"]), "--json")
        assert shown.returncode == 0, shown.stdout + shown.stderr
        said[f"show {entry['number']}"] = json.loads(shown.stdout)
    milestones = repo.snap("milestone", "list", "--json")
    assert milestones.returncode == 0, milestones.stdout + milestones.stderr
    said["milestones"] = json.loads(milestones.stdout)
    verify = repo.snap("verify")
    said["verify"] = (verify.returncode, verify.stdout)
    return said


def git_status(repo: Repo) -> str:
    """``git status --porcelain`` with untracked files listed one by one."""
    return repo.git("status", "--porcelain", "--untracked-files=all")


def removal_stat(repo: Repo) -> list[str]:
    """The paths the commit at ``HEAD`` changes, with their status letter."""
    return repo.git("show", "--name-status", "--format=", "HEAD").splitlines()


def git_bytes(repo: Repo, *args: str) -> bytes:
    """``git ARGS``'s output, as bytes."""
    return subprocess.run(
        [*GIT, *args], cwd=repo.path, env=ENV, capture_output=True, check=True
    ).stdout


def objects_under_refs(repo: Repo) -> bytes:
    """Every blob reachable from ``refs/snapline/``, concatenated (plain git)."""
    listed = repo.git("rev-list", "--objects", "--glob=refs/snapline/*")
    blobs = b""
    for line in listed.splitlines():
        object_id = line.split()[0]
        kind = repo.git("cat-file", "-t", object_id).strip()
        if kind == "blob":
            blobs += git_bytes(repo, "cat-file", "blob", object_id)
    return blobs


def snapshot_commits(repo: Repo) -> list[str]:
    """The ``Snapline-Id`` of every snapshot commit on every line, one per commit."""
    listed = repo.git(
        "log", "--format=%(trailers:key=Snapline-Id,valueonly)", "--glob=refs/snapline/lines/*"
    )
    return [line.strip() for line in listed.splitlines() if line.strip()]
