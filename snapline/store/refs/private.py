"""The private repository of a workspace outside git: made bare under ``.snapline/``.

A workspace that is not the top of a git work tree keeps its history on the same refs
(``refs/snapline/lines/<id>``, ...) as one in git, in a repository of its own,
``<root>/.snapline/repo`` (:func:`snapline.state_dir.private_repo`), made with the git
library (:func:`snapline.store.refs.git.init_bare`): no git binary is needed. It is
bare (git finds no repository in ``.snapline/`` from the workspace or above it: no
``.git``, and no directory git walks through is a repository), and
``.snapline/.gitignore`` ignores everything, so a repository around the workspace never
lists it or commits it.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from pathlib import Path

from snapline.state_dir import PRIVATE_REPO

__all__ = ["GITIGNORE", "make_private_repo"]

GITIGNORE = """\
# Written by snapline: the history of this workspace (a bare git repository, repo/) and
# its local state. Nothing here is committed to a repository around it. See docs/format.md.
*
"""
"""``.snapline/.gitignore`` beside a private repository: everything ignored."""

_STAGING = PRIVATE_REPO + ".init"


def make_private_repo(state: Path) -> Path:
    """Make the bare repository ``<state>/repo``, unless it is there; its path.

    It is made under a staging name and renamed into place, so a repository half made
    (a kill during ``init``) is never taken for one. Call holding the writer lock.

    Args:
        state: The local state directory, ``<root>/.snapline`` (it exists).

    Returns:
        ``<state>/repo``.
    """
    from snapline.atomic import sync_directory, write_file
    from snapline.store.refs.git import init_bare

    target = state / PRIVATE_REPO
    gitignore = state / ".gitignore"
    if not gitignore.exists():
        write_file(gitignore, GITIGNORE.encode(), 0o100644)
    if (target / "HEAD").is_file():
        return target
    staging = state / _STAGING
    with contextlib.suppress(FileNotFoundError):
        shutil.rmtree(staging)
    init_bare(staging)
    os.rename(staging, target)
    sync_directory(state)
    return target
