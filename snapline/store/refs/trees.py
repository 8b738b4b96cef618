"""Reading trees that are in the repository or only in memory: entries, paths, differences.

The tree of the files on disk is computed without writing anything into the repository
(:mod:`snapline.store.refs.disk`): its trees are held here as bytes by id (an overlay)
and read as if they were git's. A difference of two trees descends only into the
directories whose ids differ, so comparing two large trees that differ in one file
reads the trees on that file's path, not the whole.
"""

from __future__ import annotations

from collections.abc import Mapping

from snapline.store.refs.git import GitRepository, MissingObjectError
from snapline.store.refs.objects import parse_tree
from snapline.store.refs.values import TREE_MODE, Entry, TreeChange

__all__ = ["TreeReader"]

_NOTHING: dict[str, Entry] = {}


class TreeReader:
    """Trees by id from an overlay of in-memory trees, else from the repository.

    Args:
        repo: The repository.
        overlay: Tree id to the tree's bytes, for trees not written into it.
    """

    def __init__(self, repo: GitRepository, overlay: Mapping[str, bytes] | None = None) -> None:
        self.repo = repo
        self._overlay = dict(overlay or {})
        self._names: dict[str, dict[str, Entry]] = {}
        self._entries: dict[tuple[str, str], Entry | None] = {}
        self._lines: dict[str, frozenset[bytes] | None] = {}

    def add(self, overlay: Mapping[str, bytes]) -> None:
        """Make more in-memory trees readable."""
        self._overlay.update(overlay)

    def names(self, tree: str) -> dict[str, Entry]:
        """The entries directly in ``tree``, by name.

        Raises:
            MissingObjectError: If it is neither in the overlay nor in the repository.
        """
        found = self._names.get(tree)
        if found is None:
            data = self._overlay.get(tree)
            if data is None:
                found = self.repo.names(tree)
            else:
                found = {
                    name.decode("utf-8", "surrogateescape"): entry
                    for name, entry in parse_tree(data).items()
                }
            self._names[tree] = found
        return found

    def entry(self, tree: str, path: str) -> Entry | None:
        """The file at ``path`` in ``tree`` (its blob and mode), or ``None``.

        A directory at ``path`` is ``None`` too: states hold files.
        """
        key = (tree, path)
        if key in self._entries:
            return self._entries[key]
        current = tree
        parts = path.split("/")
        found: Entry | None = None
        for depth, name in enumerate(parts):
            if current not in self._overlay:
                # A tree in the repository holds only trees in it: libgit2 walks the rest.
                inner = self.repo.entry(current, "/".join(parts[depth:]))
                found = None if inner is None or inner.mode == TREE_MODE else inner
                break
            inner = self.names(current).get(name)
            if inner is None:
                break
            if depth + 1 == len(parts):
                found = None if inner.mode == TREE_MODE else inner
            elif inner.mode != TREE_MODE:
                break
            current = inner.id
        self._entries[key] = found
        return found

    def lines(self, blob: str) -> frozenset[bytes] | None:
        """The distinct lines of blob ``blob``.

        ``None`` when it is not in the repository: a file on disk, edited by hand, that
        no commit or state holds.
        """
        if blob not in self._lines:
            try:
                data: bytes | None = self.repo.read_blob(blob)
            except MissingObjectError:
                data = None
            self._lines[blob] = None if data is None else frozenset(data.split(b"\n"))
        return self._lines[blob]

    def diff(self, old: str | None, new: str | None) -> list[TreeChange]:
        """The files that differ between two trees (``None``: the empty tree), by path."""
        found: list[TreeChange] = []
        self._diff("", old, new, found)
        found.sort(key=lambda change: change.path)
        return found

    def _diff(self, prefix: str, old: str | None, new: str | None, found: list[TreeChange]) -> None:
        if old == new:
            return
        if old not in self._overlay and new not in self._overlay and new is not None:
            # Both in the repository: libgit2 compares them.
            found.extend(
                TreeChange(prefix + change.path, change.old, change.new)
                for change in self.repo.changes(old, new)
            )
            return
        before = self.names(old) if old is not None else _NOTHING
        after = self.names(new) if new is not None else _NOTHING
        for name in before.keys() | after.keys():
            was, now = before.get(name), after.get(name)
            if was == now:
                continue
            path = prefix + name
            was_tree = was is not None and was.mode == TREE_MODE
            now_tree = now is not None and now.mode == TREE_MODE
            if was_tree or now_tree:
                self._diff(
                    path + "/",
                    was.id if was is not None and was_tree else None,
                    now.id if now is not None and now_tree else None,
                    found,
                )
            was_file = was if was is not None and not was_tree else None
            now_file = now if now is not None and not now_tree else None
            if was_file is not None or now_file is not None:
                found.append(TreeChange(path, was_file, now_file))
