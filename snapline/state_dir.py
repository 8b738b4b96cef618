"""Where a workspace keeps its local state: the one answer every writer of it asks.

A workspace's local state is what belongs to one checkout and never travels: the index
(``index.db``), the writer lock, the journal's parked files, the file-system monitor's
token, the report page written by default, a hook's notes. It lives:

- in ``<root>/.snapline/`` for a store in the work tree (snapline 0.1 and 0.2 stores,
  read until ``snapline upgrade`` moves them), and for every workspace outside git or
  below a work tree's top,
  whose history is on the refs of a private bare repository, ``<root>/.snapline/repo``
  (:func:`private_repo`), which ``.snapline/.gitignore`` keeps out of any repository
  around it;
- else, when the root is the top of a git work tree, in that work tree's own git
  directory: ``.git/snapline/`` for the main work tree, ``.git/worktrees/NAME/snapline/``
  for a linked one (``git worktree add``), so nothing is written into the work tree and
  ``git status`` stays clean. The history itself is then on the repository's refs,
  shared by every work tree (docs/format.md, "The refs layout").

The git directory is found as git finds it, without running git or loading a git
library: ``<root>/.git`` is the directory itself, or a file ``gitdir: PATH`` naming it.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

from snapline.paths import STORE_DIR

__all__ = [
    "FORMAT_NAME",
    "GIT_STATE",
    "LEDGER_DIR",
    "PRIVATE_REPO",
    "git_dir",
    "in_git",
    "in_tree",
    "private_repo",
    "read_state_file",
    "refs_state",
    "state_dir",
]

GIT_STATE = "snapline"
"""The name of the local state's directory inside a work tree's git directory."""
PRIVATE_REPO = "repo"
"""The private repository's name inside ``.snapline/`` (a workspace outside git)."""
LEDGER_DIR = "ledger"
"""The in-tree ledger's directory inside ``.snapline/`` (``store/ledger/files.py``)."""
FORMAT_NAME = "FORMAT"
"""The file in ``ledger/`` that says it is a whole ledger, and of which format."""

# A `.git` file is one line (`gitdir: PATH`); anything longer is not git's.
_GITFILE_LIMIT = 4096


def git_dir(root: Path) -> Path | None:
    """The git directory of the work tree whose top is ``root``, or ``None``.

    Args:
        root: An absolute directory.

    Returns:
        ``<root>/.git`` when it is a git directory (``HEAD``, ``objects/`` and
        ``refs/``, or a linked work tree's ``commondir``); the directory a ``.git`` file
        names (``gitdir: PATH``, relative to ``root`` when not absolute) when it is
        one; else ``None`` (no git, a root below a work tree's
        top, a ``.git`` that is neither).
    """
    dot_git = root / ".git"
    try:
        mode = os.lstat(dot_git).st_mode
    except OSError:
        return None
    if stat.S_ISDIR(mode):
        found = dot_git
    elif stat.S_ISREG(mode):
        try:
            with open(dot_git, "rb") as gitfile:
                text = gitfile.read(_GITFILE_LIMIT).decode("utf-8", "surrogateescape")
        except OSError:
            return None
        if not text.startswith("gitdir:"):
            return None
        found = root / text.removeprefix("gitdir:").strip()
    else:
        return None
    return Path(os.path.abspath(found)) if _is_git_dir(found) else None


def _is_git_dir(path: Path) -> bool:
    # git's own test (setup.c, is_git_directory): HEAD, and the objects and refs, which a
    # linked work tree's directory finds through its `commondir` file.
    if not (path / "HEAD").is_file():
        return False
    if (path / "commondir").is_file():
        return True
    return (path / "objects").is_dir() and (path / "refs").is_dir()


def in_git(path: Path) -> bool:
    """Whether git may find a repository from ``path``: ``.git`` in it or above, ``$GIT_DIR``.

    What the commands that run the git binary (``push``, ``fetch``, ``branch``) ask
    first, so that a workspace outside git is told so without git being needed.
    A private repository (``.snapline/repo``) is no ``.git``: git never finds it.
    """
    if os.environ.get("GIT_DIR"):
        return True
    absolute = Path(os.path.abspath(path))
    return any(os.path.lexists(folder / ".git") for folder in (absolute, *absolute.parents))


def private_repo(root: Path) -> Path | None:
    """The private repository of the workspace at ``root``, or ``None`` when it has none.

    A workspace outside git keeps its history on the refs of a bare repository of its
    own, ``<root>/.snapline/repo``: git finds it from no directory of the workspace or
    above it (it is no ``.git``, and no directory git walks through is bare). It stays
    the store after a ``git init`` of the root (``snapline upgrade`` moves it).

    Args:
        root: The absolute workspace root.

    Returns:
        ``<root>/.snapline/repo`` when it is a git directory, else ``None``.
    """
    found = root / STORE_DIR / PRIVATE_REPO
    return found if _is_git_dir(found) else None


def refs_state(root: Path) -> tuple[Path, Path] | None:
    """The git directory and the local state of a history on refs at ``root``.

    Args:
        root: The absolute workspace root.

    Returns:
        ``(<root>/.snapline/repo, <root>/.snapline)`` for a private repository, else
        ``(<git dir>, <git dir>/snapline)`` at the top of a git work tree, else ``None``.
    """
    private = private_repo(root)
    if private is not None:
        return private, root / STORE_DIR
    found = git_dir(root)
    return None if found is None else (found, found / GIT_STATE)


def in_tree(root: Path) -> bool:
    """Whether the workspace at ``root`` keeps its store in ``<root>/.snapline/``.

    Yes when ``root`` is not the top of a git work tree (and has no private repository);
    else when ``.snapline/`` holds
    a store (``ledger/``, a 0.1 ``store.db``, a ledger being made), a half one, or is not
    a directory, each of which the in-tree code names. A ``.snapline/`` holding only
    local files (an index, a lock: what an old branch's checkout left when git took its
    ledger away) is no store; nor, in a work tree whose history moved onto the refs
    (its local index is under the git directory, or the refs hold a line), is a ledger
    without its ``FORMAT`` file: the files a git merge of a branch that still carried
    the ledger brought back (``snapline upgrade`` moves them). A private repository
    (:func:`private_repo`) is a history on refs, not in the tree.
    """
    if private_repo(root) is not None:
        return False
    found = git_dir(root)
    if found is None:
        return True
    return _holds_store(root / STORE_DIR, found)


def _holds_store(store_dir: Path, found: Path) -> bool:
    try:
        mode = os.lstat(store_dir).st_mode
    except OSError:
        return False
    if not stat.S_ISDIR(mode):
        return True
    if os.path.lexists(store_dir / "store.db") or os.path.lexists(store_dir / "ledger.init"):
        return True
    if not os.path.lexists(store_dir / LEDGER_DIR):
        return False
    if os.path.lexists(store_dir / LEDGER_DIR / FORMAT_NAME):
        return True
    # Ledger files without FORMAT: a store half there, unless the history moved.
    if (found / GIT_STATE / "index.db").is_file():
        return False
    from snapline.store.refs.opening import has_lines  # only here: it loads the git library

    return not has_lines(store_dir.parent)


def state_dir(root: Path) -> Path:
    """The directory of the local state of the workspace at ``root`` (see the module doc).

    Args:
        root: The absolute workspace root.

    Returns:
        ``<root>/.snapline`` or ``<git dir>/snapline``; it may not exist yet.
    """
    if private_repo(root) is not None:
        return root / STORE_DIR
    found = git_dir(root)
    if found is None or _holds_store(root / STORE_DIR, found):
        return root / STORE_DIR
    return found / GIT_STATE


def read_state_file(path: Path) -> dict[str, Any]:
    """The JSON object a file of the local state holds (the hooks' and ``integrate``'s notes).

    Args:
        path: The file, in the directory :func:`state_dir` names.

    Returns:
        Its object; an empty one when the file is missing, unreadable, or not an object
        (a note lost or damaged is a note not taken).
    """
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return {}
    return data if isinstance(data, dict) else {}
