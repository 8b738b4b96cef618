"""Two git trees compared: the files that differ, reading only the trees that do.

As git's own tree diff does, a subtree whose id is the same on both sides is not read:
a one-file change between two states of ten thousand files reads the few trees on its
path. Done here on the trees' bytes (:func:`~snapline.store.refs.objects.parse_tree`)
rather than by the library's diff, which cost about a millisecond a call, one call per
snapshot when a line is read.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from snapline.store.refs.git_errors import MissingObjectError
from snapline.store.refs.values import TREE_MODE, Entry, TreeChange

__all__ = ["tree_changes"]

Raw = Callable[[str], bytes]
"""Reads a tree's bytes by id (raising ``MissingObjectError``)."""

# One entry: octal mode, a space, the name, NUL, the 20-byte id. Whole entries only: a
# tree whose bytes are not all such entries is refused (see _read).
_ENTRY = re.compile(rb"([0-7]{5,6}) ([^\0/]+)\0(.{20})", re.DOTALL)
_TREE = 0o40000


def tree_changes(entries: Raw, old: str | None, new: str) -> list[TreeChange]:
    """The files that differ between trees ``old`` (``None``: empty) and ``new``, by path.

    A path that is a file on one side and a directory on the other is one change for
    the file (added or deleted) beside the changes of the files below it.

    Raises:
        MissingObjectError: If a tree is absent, or its bytes are not a tree's.
    """
    found: list[TreeChange] = []
    _diff(entries, old, new, b"", found)
    found.sort(key=lambda change: change.path)
    return found


def _diff(
    entries: Raw, old: str | None, new: str | None, prefix: bytes, out: list[TreeChange]
) -> None:
    before, after = _read(entries, old), _read(entries, new)
    for name in before.keys() | after.keys():
        was, now = before.get(name), after.get(name)
        if was == now:
            continue
        was_tree = _entry(was) if was is not None and was[0] == _TREE else None
        now_tree = _entry(now) if now is not None and now[0] == _TREE else None
        if was_tree is not None or now_tree is not None:
            _diff(
                entries,
                None if was_tree is None else was_tree.id,
                None if now_tree is None else now_tree.id,
                prefix + name + b"/",
                out,
            )
        old_file = None if was is None or was_tree is not None else _entry(was)
        new_file = None if now is None or now_tree is not None else _entry(now)
        if old_file is not None or new_file is not None:
            path = (prefix + name).decode("utf-8", "surrogateescape")
            out.append(TreeChange(path, old_file, new_file))


def _entry(raw: tuple[int, bytes]) -> Entry:
    return Entry(raw[1].hex(), TREE_MODE if raw[0] == _TREE else raw[0])


def _read(entries: Raw, tree: str | None) -> dict[bytes, tuple[int, bytes]]:
    if tree is None:
        return {}
    data = entries(tree)
    found = {}
    size = 0
    for match in _ENTRY.finditer(data):
        if match.start() != size:
            break
        mode, name, id_ = match.groups()
        found[name] = (int(mode, 8), id_)
        size = match.end()
    if size != len(data):
        raise MissingObjectError(tree, "tree")  # bytes that are not a tree's
    return found
