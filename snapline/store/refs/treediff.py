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

__all__ = ["Memo", "tree_changes"]

Raw = Callable[[str], bytes]
"""Reads a tree's bytes by id (raising ``MissingObjectError``)."""

# One entry: octal mode, a space, the name, NUL, the 20-byte id. Whole entries only: a
# tree whose bytes are not all such entries is refused (see _read).
_ENTRY = re.compile(rb"[0-7]{5,6} [^\0/]+\0.{20}", re.DOTALL)
_PARTS = re.compile(rb"([0-7]{5,6}) ([^\0/]+)\0(.{20})", re.DOTALL)
_TREE = 0o40000


Memo = dict[str, frozenset[bytes]]
"""Trees read by an earlier call, by id: a line's states compared one after the next
read each tree on a changed path twice (as the new side, then as the old side)."""
_MEMO_SIZE = 4096


def tree_changes(
    entries: Raw, old: str | None, new: str, memo: Memo | None = None
) -> list[TreeChange]:
    """The files that differ between trees ``old`` (``None``: empty) and ``new``, by path.

    A path that is a file on one side and a directory on the other is one change for
    the file (added or deleted) beside the changes of the files below it.

    Args:
        entries: Reads a tree's bytes.
        old: The tree before (``None``: empty).
        new: The tree after.
        memo: Trees read before, kept between calls by a caller comparing many trees
            that share subtrees (one reading pass: a tree's id names its bytes).

    Raises:
        MissingObjectError: If a tree is absent, or its bytes are not a tree's.
    """
    found: list[TreeChange] = []
    if memo is None:
        memo = {}
    elif len(memo) > _MEMO_SIZE:
        memo.clear()
    _diff(entries, old, new, b"", found, memo)
    found.sort(key=lambda change: change.path)
    return found


def _diff(
    entries: Raw,
    old: str | None,
    new: str | None,
    prefix: bytes,
    out: list[TreeChange],
    memo: Memo,
) -> None:
    before, after = _read(entries, old, memo), _read(entries, new, memo)
    # Entries equal byte for byte are the same name, mode and id: only the others are
    # parsed (a one-file change between two states parsed every entry of each tree on
    # its path, most of reading a line of a thousand snapshots, row R4).
    gone, came = _named(before - after, old), _named(after - before, new)
    for name in gone.keys() | came.keys():
        was, now = gone.get(name), came.get(name)
        if was == now:
            continue  # the same entry written with another mode's spelling (040000)
        was_tree = _entry(was) if was is not None and was[0] == _TREE else None
        now_tree = _entry(now) if now is not None and now[0] == _TREE else None
        if was_tree is not None or now_tree is not None:
            _diff(
                entries,
                None if was_tree is None else was_tree.id,
                None if now_tree is None else now_tree.id,
                prefix + name + b"/",
                out,
                memo,
            )
        old_file = None if was is None or was_tree is not None else _entry(was)
        new_file = None if now is None or now_tree is not None else _entry(now)
        if old_file is not None or new_file is not None:
            path = (prefix + name).decode("utf-8", "surrogateescape")
            out.append(TreeChange(path, old_file, new_file))


def _entry(raw: tuple[int, bytes]) -> Entry:
    return Entry(raw[1].hex(), TREE_MODE if raw[0] == _TREE else raw[0])


def _named(raw: frozenset[bytes], tree: str | None) -> dict[bytes, tuple[int, bytes]]:
    found = {}
    for entry in raw:
        parts = _PARTS.fullmatch(entry)
        assert parts is not None  # each one matched _ENTRY, the same pattern
        mode, name, id_ = parts.groups()
        if name in found:
            # A name twice in one tree (git's fsck: duplicateEntries): no tree git writes.
            raise MissingObjectError(tree or "", "tree")
        found[name] = (int(mode, 8), id_)
    return found


def _read(entries: Raw, tree: str | None, memo: Memo) -> frozenset[bytes]:
    if tree is None:
        return frozenset()
    known = memo.get(tree)
    if known is not None:
        return known
    data = entries(tree)
    found = _ENTRY.findall(data)
    # Matches never overlap: lengths that add up to the whole cover it end to end, each
    # entry starting where the one before ended, as a parse from the start would.
    if sum(map(len, found)) != len(data):
        raise MissingObjectError(tree, "tree")  # bytes that are not a tree's
    memo[tree] = read = frozenset(found)
    return read
