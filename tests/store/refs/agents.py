"""Parallel agents for the explanation's tests: lines that fork, and their code on branches."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

from snapline.store.refs.git import GitRepository
from tests.store.refs.lines import GIT_ENV, Line, git


class Agent(Line):
    """A line that keeps its files after each snapshot, so that another forks from any."""

    def __init__(self, repo: GitRepository, fork: str | None = None) -> None:
        super().__init__(repo)
        self.history: list[dict[str, bytes]] = []
        self.fork_commit = fork

    def snapshot(self, writes: dict[str, bytes | None], **options: Any) -> str:
        if self.fork_commit is not None and not self.commits:
            options.setdefault("fork", self.fork_commit)
        commit = super().snapshot(writes, **options)
        self.history.append(dict(self.files))
        return commit

    def fork(self, at: int = -1) -> Agent:
        """Another agent's line, starting after this line's snapshot ``at``."""
        other = Agent(self.repo, self.commits[at])
        own = self.rows[len(self.rows) - len(self.commits) :]
        other.rows = [own[at]]
        other.files = dict(self.history[at])
        return other

    def state(self, at: int = -1) -> str:
        """The tree of this line's snapshot ``at``."""
        found = self.repo.entry(self.repo.read_commit(self.commits[at]).tree, "state")
        assert found is not None
        return found.id


def commit_files(
    root: Path, branch: str, files: dict[str, bytes], message: str, *, start: str = "main"
) -> str:
    """Commit exactly ``files`` on ``branch`` (made from ``start`` if new); the commit."""
    exists = git(root, "branch", "--list", branch).strip()
    git(root, "checkout", "-q", *([branch] if exists else ["-b", branch, start]))
    for name in git(root, "ls-files", "-z").split("\0"):
        if name and name not in files:
            (root / name).unlink()
    write(root, files)
    git(root, "add", "-A")
    git(root, "commit", "-q", "--allow-empty", "-m", message)
    return git(root, "rev-parse", "HEAD").strip()


def write(root: Path, files: dict[str, bytes]) -> None:
    """Write ``files`` into the work tree."""
    for name, data in files.items():
        target = root / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)


def lines(*texts: str) -> bytes:
    """A text file of these lines."""
    return "".join(f"{text}\n" for text in texts).encode()


def git_fails(cwd: Path, *args: str) -> bool:
    """Whether ``git ARGS`` exits non-zero (a merge in conflict, an absent object)."""
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, env=GIT_ENV, check=False)
    return done.returncode != 0
