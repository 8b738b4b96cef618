"""The trees of a git repository read and written through two primitives (its bytes, a write).

:class:`TreeMethods` is what :class:`snapline.store.refs.git.GitRepository` does with
trees: an entry by path, a tree's names, every file of it, two trees compared, a tree
edited along its changed paths. It needs only a tree's bytes, an object written and one
entry looked up, which the repository answers with or without libgit2 (issue 39).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING

from snapline.store.refs.objects import parse_tree, tree_bytes
from snapline.store.refs.tree_edit import update_tree
from snapline.store.refs.values import TREE_MODE, Entry, TreeChange

if TYPE_CHECKING:
    from snapline.store.refs.treediff import Memo

__all__ = ["TreeMethods", "decode_name", "encode_name"]


def encode_name(name: str) -> bytes:
    """A path as git keeps it (surrogate escapes back to the bytes that were not UTF-8)."""
    return name.encode("utf-8", "surrogateescape")


def decode_name(name: bytes) -> str:
    """A path of git's as ``str`` (bytes that are not UTF-8 as surrogate escapes)."""
    return name.decode("utf-8", "surrogateescape")


class TreeMethods:
    """What the refs store does with trees, over the primitives a repository defines."""

    _listed: tuple[str, dict[str, Entry]] | None = None

    def _tree_data(self, tree: str) -> bytes:
        raise NotImplementedError

    def _write(self, data: bytes, kind: int = 2) -> str:
        raise NotImplementedError

    def _child(self, tree: str, name: bytes) -> Entry | None:
        raise NotImplementedError

    def read_blob(self, id_: str) -> bytes:
        """The content of blob ``id_`` (``MissingObjectError``: no such blob)."""
        raise NotImplementedError

    def entry(self, tree: str, path: str) -> Entry | None:
        """What tree ``tree`` holds at ``path`` (``a/b/c``), or ``None`` if nothing.

        Raises:
            MissingObjectError: If ``tree`` or a tree on the way is absent.
        """
        current: Entry = Entry(tree, TREE_MODE)
        for name in path.split("/"):
            if current.mode != TREE_MODE:
                return None
            found = self._child(current.id, encode_name(name))
            if found is None:
                return None
            current = found
        return current

    def names(self, tree: str) -> dict[str, Entry]:
        """The entries directly in ``tree``, by name (``MissingObjectError``: no such tree)."""
        return {decode_name(name): entry for name, entry in self._entries(tree).items()}

    def read_path(self, tree: str, path: str) -> bytes | None:
        """The blob at ``path`` in ``tree``, or ``None`` if there is none (or a tree).

        Raises:
            MissingObjectError: If an object on the way is absent.
        """
        found = self.entry(tree, path)
        return None if found is None or found.mode == TREE_MODE else self.read_blob(found.id)

    def tree(self, entries: Mapping[str, Entry]) -> str:
        """Write a tree of the given names (no ``/`` in them) and entries; its id."""
        named = {encode_name(name): entry for name, entry in entries.items()}
        return self._write(tree_bytes(named))

    def update_tree(self, base: str | None, edits: Mapping[str, Entry | None]) -> str:
        """A tree like ``base`` with ``edits`` applied, rebuilding only the changed path.

        Args:
            base: The tree to start from, ``None`` for the empty tree.
            edits: Path (``a/b/c``) to its new entry, or ``None`` to remove it. A
                directory left empty is removed, as git does.

        Returns:
            The new tree's id (:data:`EMPTY_TREE` when nothing is left).

        Raises:
            MissingObjectError: If ``base`` or a tree on a changed path is absent.
            ValueError: If the edits make a path both a file and a directory.
        """
        split = {tuple(encode_name(path).split(b"/")): entry for path, entry in edits.items()}
        return update_tree(self._tree_data, self._write, base, split) or self._write(b"")

    def _entries(self, tree: str) -> dict[bytes, Entry]:
        # The tree's bytes parsed here: pygit2 makes an object of every entry it lists,
        # which took most of a one-file snapshot's time (rows R1, R2).
        return parse_tree(self._tree_data(tree))

    def changes(self, old: str | None, new: str, memo: Memo | None = None) -> list[TreeChange]:
        """The files that differ between two trees, in path order (:mod:`.treediff`).

        Args:
            old: The tree before, ``None`` for none (every file is added; nothing is written).
            new: The tree after.
            memo: Trees read by earlier calls of one pass (:data:`.treediff.Memo`).

        Raises:
            MissingObjectError: If a tree is absent (or its bytes are not a tree's).
        """
        # Lazy: a record edits trees and compares none (issue 39).
        from snapline.store.refs.treediff import tree_changes

        found = tree_changes(self._tree_data, old, new, memo)
        if old is None:
            # A whole tree listed (a line's first state): kept for :meth:`files`, which
            # an index built from the line asks next of the same state (a baseline's ids).
            self._listed = (new, {c.path: c.new for c in found if c.new is not None})
        return found

    def files(self, tree: str) -> dict[str, Entry]:
        """Every file of ``tree`` by path (:meth:`walk`'s), not read again when just listed.

        Raises:
            MissingObjectError: If a tree is absent.
        """
        listed = self._listed
        if listed is not None and listed[0] == tree:
            return dict(listed[1])
        return dict(self.walk(tree))

    def walk(self, tree: str) -> Iterator[tuple[str, Entry]]:
        """Every file of ``tree`` with its entry, depth first, in git's order.

        Raises:
            MissingObjectError: If a tree is absent.
        """
        for name, entry in sorted(self._entries(tree).items()):
            path = decode_name(name)
            if entry.mode == TREE_MODE:
                yield from ((f"{path}/{inner}", found) for inner, found in self.walk(entry.id))
            else:
                yield path, entry
