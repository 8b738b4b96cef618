"""What an open says about an in-tree history beside one on git's refs (old branches).

After ``snapline upgrade`` a repository's history is on its refs, while branches made
before it still carry ``.snapline/`` in their commits. Three states follow from git's
own operations, and each open names the one it meets (a notice on stderr, the
``snapline`` logger, never a changed exit code):

- an old branch checked out: its ledger is whole and is the history of that checkout,
  read and verified as before; the notice says ``snapline upgrade`` moves it (also in
  a clone that fetched the refs and has no local index yet: never a silent switch);
- the moved branch checked out again: git took the ledger's tracked files away and left
  the local files the old checkout made (index, lock), which are snapline's own cache:
  they are removed, so that ``git status`` stays clean;
- a git merge of an old branch into a moved one brought ledger files back without their
  ``FORMAT`` file: they are not read (the refs are the history); the notice says
  ``snapline upgrade`` moves that branch's snapshots and removes them.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from snapline.paths import STORE_DIR
from snapline.state_dir import GIT_STATE, git_dir

__all__ = ["LOCAL_FILES", "note_in_tree_beside_refs", "settle_leftovers"]

LOCAL_FILES = frozenset(
    {
        "index.db",
        "index.db-wal",
        "index.db-shm",
        "index.db-journal",
        "lock",
        "monitor.json",
        "workspace",
    }
)
"""The names of an in-tree store's local files that are only a cache, safe to remove."""


def _warn(text: str) -> None:
    # Here, not at the top: every open of an in-tree store imports this module, and the
    # hot paths (record, the hook, verify) must not load logging.
    import logging

    logging.getLogger("snapline").warning(text)


def note_in_tree_beside_refs(root: Path) -> None:
    """Say so when an in-tree ledger is open in a work tree whose history moved to the refs."""
    found = git_dir(root)
    if found is None:
        return
    if not (found / GIT_STATE / "index.db").is_file() and not _refs_hold_lines(root, found):
        return  # no history on the refs (yet): an in-tree store like any other
    _warn(
        "this checkout still keeps its history in .snapline/ (a branch from before "
        "`snapline upgrade`), and it is read as before; the repository's history is on "
        "git's refs: run `snapline upgrade` to move this branch's snapshots there"
    )


def _refs_hold_lines(root: Path, found: Path) -> bool:
    """Whether the repository has a line on its refs (a clone that fetched them, no index yet).

    git's files are looked at first (a loose ref's folder, ``packed-refs``), so that an
    in-tree store in a repository without refs never loads the git library.
    """
    common = found
    with contextlib.suppress(OSError):
        common = (found / (found / "commondir").read_text().strip()).resolve()
    with contextlib.suppress(OSError):
        if os.listdir(common / "refs" / "snapline" / "lines"):
            return True
    try:
        packed = (common / "packed-refs").read_bytes()
    except OSError:
        packed = b""
    if b" refs/snapline/lines/" not in packed and not (common / "reftable").exists():
        return False
    from snapline.store.refs.opening import has_lines  # only here: it loads the git library

    return has_lines(root)


def settle_leftovers(root: Path) -> bool:
    """In a refs workspace: remove an old checkout's cache from ``.snapline/``, name the rest.

    Only the names of :data:`LOCAL_FILES` are removed (and the folder, once empty);
    ledger files a merge brought back are named in a notice, never touched.

    Returns:
        Whether a git merge brought ledger files back: that branch's snapshots are not on
        the refs yet, so the open workspace refuses every write until ``snapline upgrade``.
    """
    store_dir = root / STORE_DIR
    try:
        names = os.listdir(store_dir)
    except OSError:
        return False
    for name in names:
        if name in LOCAL_FILES:
            with contextlib.suppress(OSError):
                os.unlink(store_dir / name)
    with contextlib.suppress(OSError):
        os.rmdir(store_dir)
    if not os.path.lexists(store_dir / "ledger"):
        return False
    _warn(
        ".snapline/ledger/ holds ledger files that a git merge brought back from a "
        "branch that still kept its history in the tree; they are not read (the history "
        "is on git's refs): run `snapline upgrade` to move that branch's snapshots onto "
        "the refs and remove them"
    )
    return True
