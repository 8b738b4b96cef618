"""The values the refs store passes around: tree entries, tree changes, commits, merges.

Plain data, so that only :mod:`snapline.store.refs.git` needs the git library.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

__all__ = ["EMPTY_TREE", "TREE_MODE", "Commit", "Entry", "Merged", "TreeChange", "conflicted_at"]

TREE_MODE = 0o040000
"""The mode git gives a directory's entry."""
EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
"""git's id of the tree with no entries."""


class Entry(NamedTuple):
    """What a tree holds at one name: an object id and git's mode for it."""

    id: str
    mode: int


class TreeChange(NamedTuple):
    """One path that differs between two trees (a file, never a directory).

    Attributes:
        path: The path, relative to the trees compared.
        old: The entry before, ``None`` when the path was added.
        new: The entry after, ``None`` when the path was deleted.
    """

    path: str
    old: Entry | None
    new: Entry | None


class Commit(NamedTuple):
    """A commit as the refs store reads it: its tree, its parents, its message."""

    id: str
    tree: str
    parents: tuple[str, ...]
    message: str


class Merged(NamedTuple):
    """What git's merge of two trees made.

    Attributes:
        tree: The merged tree's id (a conflict resolved as the first side has it).
        conflicts: The paths in conflict (empty when clean), in path order.
    """

    tree: str
    conflicts: tuple[str, ...]


def conflicted_at(groups: Sequence[Sequence[str | None]]) -> list[str]:
    """Where git's merge names its conflicts, from libgit2's conflict entries' paths.

    libgit2 keeps a conflict's entries under their own paths, so a change inside a file
    that one side moved comes as two: the ancestor's path (that side's entry absent, as
    if deleted) and the new path (that side's entry alone). ``git merge`` names it once,
    at the new path, where its result has the file. A deletion-shaped entry is taken as
    such a move's source while its side has a lone entry left to pair it with; the rest
    are conflicts of their own.

    Args:
        groups: Each conflict's (ancestor, ours, theirs) paths, ``None`` where absent.

    Returns:
        The paths in conflict, in path order.
    """
    named: set[str] = set()
    moved = [0, 0]  # lone entries of ours, of theirs: the new paths of moved files
    for ancestor, *sides in groups:
        if ancestor is None and sides.count(None) == 1:
            moved[sides.index(None) ^ 1] += 1
    for ancestor, *sides in groups:
        if ancestor is not None and sides.count(None) == 1 and moved[sides.index(None)]:
            moved[sides.index(None)] -= 1
        else:
            named.update(path for path in (ancestor, *sides) if path is not None)
    return sorted(named)
