"""The bytes of a file kept by its hash only, for a snapshot's ``state`` on git's refs.

Above the large-file limit the index keeps a version's hash and no copy (as the in-tree
ledger does: ``storage hash-only``). A ``state`` on the refs is the workspace's files,
so such a file's bytes go into git as a blob (git's own, shared with the user's commits
where they hold it): read here from the work tree when the snapshot is published, and
checked against the recorded hash by the caller (a file that changed since it was
hashed is refused, never stored under another version's hash).
"""

from __future__ import annotations

import os
from pathlib import Path

from snapline.paths import STORE_DIR
from snapline.state_dir import PRIVATE_REPO
from snapline.store.refs.git import GitRepository

__all__ = ["work_tree_bytes", "work_tree_of"]


def work_tree_of(repo: GitRepository) -> Path | None:
    """The top of the work tree whose git directory ``repo`` opened, or ``None`` (bare).

    The main work tree's git directory is ``<top>/.git``; a linked one's
    (``.git/worktrees/NAME``) names its ``<top>/.git`` file in ``gitdir``, as git keeps it;
    a private repository's (``<top>/.snapline/repo``, bare to git) is its workspace's.
    """
    git_dir = repo.git_dir
    if git_dir.name == ".git":
        return git_dir.parent
    if (git_dir.name, git_dir.parent.name) == (PRIVATE_REPO, STORE_DIR):
        return git_dir.parent.parent
    try:
        named = (git_dir / "gitdir").read_text("utf-8").strip()
    except (OSError, UnicodeError):
        return None
    return Path(named).parent if named else None


def work_tree_bytes(repo: GitRepository, path: str) -> bytes | None:
    """The bytes of the work tree's file at ``path`` (a checked, relative POSIX path).

    Returns:
        Its content, or ``None`` when there is no work tree or no regular file there
        (a symlink at the last step is not followed).
    """
    top = work_tree_of(repo)
    if top is None:
        return None
    try:
        fd = os.open(top / path, os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    with os.fdopen(fd, "rb") as file:
        return file.read()
