"""The blob of a file kept by its hash only, for a snapshot's ``state`` on git's refs.

Above the large-file limit the index keeps a version's hash and no copy (as the in-tree
ledger does: ``storage hash-only``). A ``state`` on the refs is the workspace's files,
so such a file's bytes go into git as a blob (git's own, shared with the user's commits
where they hold it): streamed here from the work tree into git when the snapshot is
published, never whole in memory, and SHA-256 hashed on the way, so the caller holds the
blob's own bytes to the recorded hash (a file that changed since it was hashed is
refused, never kept under another version's hash).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import NamedTuple

from snapline.paths import STORE_DIR
from snapline.state_dir import PRIVATE_REPO
from snapline.store.refs.git import GitRepository
from snapline.store.refs.streamed import HashedReader

__all__ = ["WorkTreeBlob", "work_tree_blob", "work_tree_of"]


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


class WorkTreeBlob(NamedTuple):
    """A work-tree file streamed into git, or found not to be the version asked for.

    Attributes:
        size: Its size when it was opened.
        blob: The blob's id; ``None`` when it was not written: the file was not of the
            size asked for (not read), or shrank while it was read.
        hash: The SHA-256 (``sha256:<hex>``) of the bytes read (the blob's bytes), or
            ``None`` when it was not read.
    """

    size: int
    blob: str | None
    hash: str | None


def work_tree_blob(repo: GitRepository, path: str, size: int | None) -> WorkTreeBlob | None:
    """The work tree's file at ``path`` (a checked, relative POSIX path) stored as a blob.

    Args:
        repo: The repository, whose work tree holds the file.
        path: The file.
        size: The size of the version wanted: a file of another size is other bytes,
            refused unread (an upgrade asks for each past version in turn).

    Returns:
        The blob and the hash of its bytes, or ``None`` when there is no work tree or no
        regular file there (a symlink at the last step is not followed).
    """
    top = work_tree_of(repo)
    if top is None:
        return None
    try:
        fd = os.open(top / path, os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    with os.fdopen(fd, "rb") as file:
        found = os.fstat(fd)
        if not stat.S_ISREG(found.st_mode):
            return None
        if size is not None and found.st_size != size:
            return WorkTreeBlob(found.st_size, None, None)
        # The size when opened is what the blob's header says: a file that grows
        # meanwhile is read that far, one that shrinks leaves no blob.
        source = HashedReader(file, found.st_size)
        try:
            blob: str | None = repo.write_blob_stream(source)
        except ValueError:
            blob = None
    return WorkTreeBlob(found.st_size, blob, source.hash)
