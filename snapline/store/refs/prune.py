"""A private repository's unreachable objects deleted: a forgotten secret leaves the disk.

Outside git the history lives in ``.snapline/repo`` (:mod:`.private`), where no git
binary, and so no ``git gc``, ever runs. A forget there rewrites the lines
(:mod:`.forgetting`) and the old commits, trees and the secret's blob would stay as
unreachable loose objects for good. :func:`prune` deletes them, as
``git gc --prune=now`` would, with the git library only:

- what is kept is what any ref reaches (commits, their parents, trees, blobs) and every
  blob the index names by reference (:func:`~snapline.content.git_reference`); a ref
  that does not lead to a readable commit stops the prune before anything is deleted;
- a loose object is deleted only when it is none of those and older than the prune's
  start (an object a reader writes meanwhile, an unreferenced merge tree, stays);
- a pack (only a user's ``git gc`` in ``.snapline/repo`` makes one: libgit2 writes loose
  objects) that holds an object to delete has each kept object it holds written loose
  first (temporary file, fsync, rename), then is deleted with git's caches that list
  its objects (commit-graph, multi-pack-index).

It runs under the writer lock (no record writes an object not yet on a ref), after the
forget's refs moved, as part of the forget's cleanup (:func:`.forget_index.secure`),
whose flag makes the next command run it again when a process was killed: a kill at any
instant has deleted only objects that nothing reaches.
"""

from __future__ import annotations

import contextlib
import re
import shutil
import time
import zlib
from collections.abc import Iterable
from pathlib import Path

from snapline.content import git_referenced
from snapline.paths import STORE_DIR
from snapline.state_dir import PRIVATE_REPO
from snapline.store.refs.git import GitRepository, MissingObjectError
from snapline.store.refs.values import TREE_MODE

__all__ = ["is_private", "prune", "reachable"]

_GITLINK = 0o160000
_HEX = re.compile(r"[0-9a-f]{2}")
_NAME = re.compile(r"[0-9a-f]{38}")
_KINDS = {1: b"commit", 2: b"tree", 3: b"blob", 4: b"tag"}
_PACK_FILES = (".idx", ".pack", ".rev", ".bitmap", ".mtimes", ".keep", ".promisor")


def is_private(repo: GitRepository) -> bool:
    """Whether ``repo`` is a workspace's private repository (``<root>/.snapline/repo``)."""
    return repo.git_dir.name == PRIVATE_REPO and repo.git_dir.parent.name == STORE_DIR


def reachable(repo: GitRepository, tips: Iterable[str]) -> set[str]:
    """Every object the commits ``tips`` reach: commits, parents, trees and blobs.

    Raises:
        MissingObjectError: If a commit or a tree on the way is absent.
    """
    seen: set[str] = set()
    commits, trees = list(tips), []
    while commits:
        commit = commits.pop()
        if commit not in seen:
            seen.add(commit)
            read = repo.read_commit(commit)
            commits.extend(read.parents)
            trees.append(read.tree)
    while trees:
        tree = trees.pop()
        if tree in seen:
            continue
        seen.add(tree)
        for entry in repo.names(tree).values():
            if entry.mode == TREE_MODE:
                trees.append(entry.id)
            elif entry.mode != _GITLINK:  # a submodule's commit is not in this repository
                seen.add(entry.id)
    return seen


def prune(repo: GitRepository, referenced: Iterable[bytes]) -> int:
    """Delete the private repository's objects that no ref and no index row reaches.

    Args:
        repo: The private repository (``.snapline/repo``).
        referenced: The index's blobs kept by reference (packed values; others ignored).

    Returns:
        How many objects were deleted (0 when a ref leads to no readable commit).
    """
    start = time.time_ns()
    try:
        keep = reachable(repo, repo.refs("refs/").values())
    except MissingObjectError:
        return 0  # damage is verify's to name; nothing is deleted on a partial walk
    keep |= {found for packed in referenced if (found := git_referenced(packed))}
    objects = repo.common_dir / "objects"
    deleted = _prune_packs(repo, objects, keep)
    for folder in sorted(objects.iterdir()):
        if not folder.is_dir() or not _HEX.fullmatch(folder.name):
            continue
        for path in sorted(folder.iterdir()):
            whole = _NAME.fullmatch(path.name) and folder.name + path.name not in keep
            # libgit2's temporary files of a write a kill cut short hold content too.
            if (whole or path.name.startswith("tmp_")) and _older(path, start):
                with contextlib.suppress(FileNotFoundError):
                    path.unlink()
                    deleted += 1 if whole else 0
    return deleted


def _older(path: Path, start: int) -> bool:
    try:
        return path.lstat().st_mtime_ns < start
    except FileNotFoundError:
        return False


def _prune_packs(repo: GitRepository, objects: Path, keep: set[str]) -> int:
    """Loosen the kept objects of each pack holding others, then delete it; how many went."""
    from snapline.atomic import sync_directory, write_file

    deleted = 0
    for index in sorted((objects / "pack").glob("pack-*.idx")):
        names = _pack_names(index)
        if names is None or names <= keep:
            continue
        for name in sorted(names & keep):
            loose = objects / name[:2] / name[2:]
            if not loose.exists():
                kind, data = repo.read_raw(name)
                header = b"%s %d\0" % (_KINDS[kind], len(data))
                write_file(loose, zlib.compress(header + data), 0o100444)
        # Every kept object is loose and durable before the pack goes.
        for cache in (objects / "info" / "commit-graph", objects / "pack" / "multi-pack-index"):
            cache.unlink(missing_ok=True)
        shutil.rmtree(objects / "info" / "commit-graphs", ignore_errors=True)
        for suffix in _PACK_FILES:
            index.with_suffix(suffix).unlink(missing_ok=True)
        sync_directory(index.parent)
        deleted += len(names - keep)
    return deleted


def _pack_names(index: Path) -> set[str] | None:
    """The object ids a pack's index (version 2) lists; ``None`` for any other file."""
    data = index.read_bytes()
    if data[:8] != b"\377tOc\0\0\0\2" or len(data) < 8 + 1024:
        return None
    count = int.from_bytes(data[8 + 1020 : 8 + 1024], "big")
    names = data[1032 : 1032 + 20 * count]
    return {names[i : i + 20].hex() for i in range(0, len(names), 20)}
