"""A branch switch in a work tree: it follows the line whose snapshot the new ``HEAD`` is.

A work tree that records appends to a line of its own (:mod:`.followed`). A plain ``git
switch`` (or ``git checkout`` of another branch or commit) there changes its files to
the new ``HEAD``'s without a snapshot: held to its own line's latest, every file the
switch changed would be drift. After a switch the work tree follows the line whose
snapshot the new ``HEAD``'s files are, as an index built afresh from the refs would
(:mod:`.pinning`): its index is built again at that snapshot (pinned there, as a
linked work tree is), and its next write starts a line of its own from it; ``status``
and ``verify`` say what they say in a fresh clone of that branch. A switch through
``snapline run`` recorded the new files as a snapshot of its line: that snapshot is the
new ``HEAD``'s, and nothing changes.

What counts as a switch: git's ``HEAD`` names another branch (or another commit,
detached) than when last seen, and its tree is another one. A commit, a merge, a pull
or a reset on the same branch is none (``snapline merge`` joins what a merge brought).
Nothing changes either when no snapshot is the new ``HEAD``'s files, or when it is
the latest snapshot of the work tree's own line.

The local state keeps ``HEAD`` as last seen (:data:`HEAD_FILE`: git's ``HEAD`` file's
text), so the common open reads two small files and nothing more. The files moved when
the new ``HEAD``'s tree is not the tree of the branch left, as that branch is now.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from snapline.store.refs.followed import LINE_FILE, read_own_line
from snapline.store.refs.git import GitRepository
from snapline.store.refs.layout import line_ref
from snapline.store.refs.reading import read_snapshot

__all__ = ["HEAD_FILE", "NO_LINE", "follow_switch", "head_seen", "switched"]

HEAD_FILE = "head"
"""In the local state: git's ``HEAD`` file's text as last seen (a branch, or a commit)."""
NO_LINE = "-"
"""The ``line`` file's text once a switch left the work tree's line: its next write
starts one (a work tree that wrote and names no line at all owns the main line)."""


def _head_text(repo: GitRepository) -> str | None:
    try:
        return (repo.git_dir / "HEAD").read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return None


def _seen(state: Path) -> str | None:
    try:
        return (state / HEAD_FILE).read_text(encoding="utf-8").strip() or None
    except (OSError, UnicodeDecodeError):
        return None


def _tree_of(repo: GitRepository, head: str) -> str | None:
    """The tree ``head`` (a ``HEAD`` file's text) names now: its branch's commit's."""
    from snapline.store.refs.git import MissingObjectError

    name = head.removeprefix("ref:").strip()
    commit = repo.ref(name) if head.startswith("ref:") else name
    try:
        return None if commit is None else repo.read_commit(commit).tree
    except (MissingObjectError, ValueError):
        return None


def _write(state: Path, path: str, text: str) -> None:
    temporary = state / (path + ".tmp")
    with open(temporary, "w", encoding="utf-8") as out:
        out.write(text)
        out.flush()
        os.fsync(out.fileno())
    os.replace(temporary, state / path)


def head_seen(repo: GitRepository, state: Path) -> None:
    """Keep ``HEAD`` as it is now as the one last seen (an index built afresh sees it)."""
    text = _head_text(repo)
    if text is not None:
        _write(state, HEAD_FILE, text + "\n")


def switched(repo: GitRepository, state: Path) -> bool:
    """The cheap first check: whether git's ``HEAD`` is not the one last seen (or none is)."""
    return _seen(state) != _head_text(repo)


def follow_switch(
    repo: GitRepository, state: Path, work_tree: Path, rebuild: Callable[[], None]
) -> bool:
    """After a branch switch, build the index again at the new ``HEAD``'s snapshot.

    Call holding the writer lock, with the index closed, after :func:`switched` said yes.

    Args:
        repo: The repository.
        state: The work tree's local state (its index is there).
        work_tree: The work tree's top (its ignore rules scope ``HEAD``'s tree).
        rebuild: Builds the index afresh from the refs (replacing the one there).

    Returns:
        Whether the index was built again.

    Raises:
        DamagedLineError: If a line read to find the snapshot is damaged or crafted.
    """
    from snapline.store.refs.pinning import checkout_place

    seen, text = _seen(state), _head_text(repo)
    # The branch left, as it is now (its commits since included): a `git switch -c`
    # from it moved no file. None seen yet (a work tree from before): nothing moved.
    tree = None if seen is None or seen == text else repo.head_tree()
    moved = seen is not None and tree not in (None, _tree_of(repo, seen))
    place = checkout_place(repo, work_tree) if moved else None
    at = None if place is None else place.at or place.tip
    own = read_own_line(state)
    tip = None if own is None else repo.ref(line_ref(own))
    # The own line's latest is the new HEAD's files (a switch through `snapline run`).
    mine = at is not None and tip is not None and read_snapshot(repo, tip).state == at.state
    rebuilt = at is not None and not mine
    if rebuilt:
        if tip is not None:
            _write(state, LINE_FILE, NO_LINE + "\n")
        rebuild()
    # Last: a process killed before it finds the switch again, and does the same.
    if text is not None:
        _write(state, HEAD_FILE, text + "\n")
    return rebuilt
