"""The git commands of ``snapline upgrade``: what is staged, and the one removal commit.

The system's ``git`` runs them, in the work tree, as the user would: the commit is the
user's (their identity, their signing settings), on their current branch. Hooks are
not run (``--no-verify``): the commit only deletes snapline's own files, which no
project check is about, and a hook that refused it would leave the upgrade half told.
"""

from __future__ import annotations

import os
from pathlib import Path

from snapline import git_binary
from snapline.errors import SnaplineError
from snapline.paths import STORE_DIR

__all__ = [
    "GitCommandError",
    "commit_removal",
    "head_tracks_store",
    "merge_in_progress",
    "run_git",
    "staged_paths",
    "unstage_store",
]

_TIMEOUT = 600


class GitCommandError(SnaplineError):
    """A git command that ``snapline upgrade`` runs failed.

    Attributes:
        command: The command line.
        detail: git's first line on stderr.
    """

    def __init__(self, command: list[str], detail: str) -> None:
        self.command = " ".join(command)
        self.detail = detail
        super().__init__(f"`{self.command}` failed: {detail or 'no message'}")


def run_git(root: Path, *args: str, stdin: bytes | None = None) -> bytes:
    """``git ARGS`` in ``root`` (its own repository, whatever ``GIT_DIR`` says); its stdout.

    Raises:
        GitCommandError: If it cannot run or exits non-zero (git's first line of stderr).
    """
    argv = ["git", *args]
    try:
        done = git_binary.run_git(root, *args, input=stdin, timeout=_TIMEOUT)
    except git_binary.GitNotRunError as error:
        raise GitCommandError(argv, error.reason) from None
    if done.code != 0:
        raise GitCommandError(argv, done.lines[0] if done.lines else f"exit {done.code}")
    return done.out


def _names(output: bytes) -> list[str]:
    return [os.fsdecode(name) for name in output.split(b"\0") if name]


def staged_paths(root: Path) -> list[str]:
    """The paths whose staged content differs from ``HEAD`` (all of them before a commit)."""
    if not _has_head(root):
        return _names(run_git(root, "ls-files", "-z"))
    return _names(run_git(root, "diff", "--cached", "--name-only", "--no-renames", "-z", "HEAD"))


def _has_head(root: Path) -> bool:
    return _names_a_commit(root, "HEAD^{commit}")


def head_tracks_store(root: Path) -> bool:
    """Whether the commit checked out holds files under ``.snapline/``."""
    if not _has_head(root):
        return False
    return bool(run_git(root, "ls-tree", "-r", "-z", "--name-only", "HEAD", "--", STORE_DIR))


def merge_in_progress(root: Path) -> bool:
    """Whether a ``git merge`` waits for its commit (``MERGE_HEAD`` exists)."""
    return _names_a_commit(root, "MERGE_HEAD")


def _names_a_commit(root: Path, rev: str) -> bool:
    # `rev-parse --verify -q` fails, silently, when the name names no object.
    try:
        run_git(root, "rev-parse", "--verify", "-q", rev)
    except GitCommandError:
        return False
    return True


def unstage_store(root: Path) -> None:
    """Remove ``.snapline/`` from git's index (the files stay on disk)."""
    run_git(root, "rm", "-r", "-q", "--cached", "--ignore-unmatch", "--", STORE_DIR)


def commit_removal(root: Path, message: str) -> str | None:
    """Commit what is staged (only the removal of ``.snapline/``); the new commit's id.

    Returns:
        The commit, or ``None`` when nothing is staged (the removal was committed).

    Raises:
        GitCommandError: If git refuses (no identity configured, a signing failure).
    """
    if not staged_paths(root):
        return None
    run_git(root, "commit", "-q", "--no-verify", "-F", "-", stdin=message.encode())
    return run_git(root, "rev-parse", "HEAD").decode().strip()
