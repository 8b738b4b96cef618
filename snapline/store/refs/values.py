"""The values the refs store passes around: tree entries, tree changes, commits.

Plain data, so that only :mod:`snapline.store.refs.git` needs the git library.
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["EMPTY_TREE", "TREE_MODE", "Commit", "Entry", "Merged", "TreeChange"]

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
