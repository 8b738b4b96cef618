"""git's object encoding, computed without a repository: blob ids, tree bytes and ids.

A tree is ``MODE SP NAME NUL ID`` per entry, entries in git's order (a directory's name
compared as if it ended in ``/``), and an object's id is the SHA-1 of ``TYPE SP SIZE
NUL`` and its bytes. :mod:`snapline.store.refs.git` writes trees with this encoding,
and :mod:`snapline.store.refs.disk` computes the id of the files on disk with it
without writing anything into the repository. ``tests/store/refs`` compares the ids
with ``git hash-object`` and ``git write-tree``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping

from snapline.store.refs.values import TREE_MODE, Entry

__all__ = [
    "RawEntries",
    "blob_id",
    "parse_tree",
    "raw_entries",
    "raw_entry",
    "raw_is_tree",
    "raw_tree_bytes",
    "tree_bytes",
    "tree_id",
]

RawEntries = dict[bytes, bytes]
"""A tree's entries by name, each as its own bytes (``MODE SP NAME NUL ID``)."""

_CANONICAL_MODES = frozenset((b"100644", b"100755", b"120000", b"40000", b"160000"))
_RAW_TREE = b"40000 "


def blob_id(data: bytes) -> str:
    """The id git gives a blob of ``data`` (``git hash-object``)."""
    # SHA-1 is git's object name here, not a security choice: content is SHA-256 elsewhere.
    digest = hashlib.sha1(b"blob %d\x00" % len(data), usedforsecurity=False)
    digest.update(data)
    return digest.hexdigest()


def tree_bytes(entries: Mapping[bytes, Entry]) -> bytes:
    """The bytes of a tree holding ``entries`` (name, no ``/`` in it, to entry)."""

    def key(name: bytes) -> bytes:
        return name + b"/" if entries[name].mode == TREE_MODE else name

    return b"".join(
        b"%o %s\x00%s" % (entries[name].mode, name, bytes.fromhex(entries[name].id))
        for name in sorted(entries, key=key)
    )


def tree_id(data: bytes) -> str:
    """The id git gives a tree whose bytes are ``data``."""
    return hashlib.sha1(b"tree %d\x00" % len(data) + data, usedforsecurity=False).hexdigest()


def parse_tree(data: bytes) -> dict[bytes, Entry]:
    """The entries of a tree's bytes, by name.

    Raises:
        ValueError: If the bytes are not a tree's.
    """
    entries: dict[bytes, Entry] = {}
    at = 0
    while at < len(data):
        space = data.index(b" ", at)
        end = data.index(b"\0", space)
        if end + 21 > len(data):
            raise ValueError("a tree entry cut short")
        entries[data[space + 1 : end]] = Entry(
            data[end + 1 : end + 21].hex(), int(data[at:space], 8)
        )
        at = end + 21
    return entries


def raw_entries(data: bytes) -> RawEntries:
    """A tree's entries by name, each kept as its bytes (see :data:`RawEntries`).

    Editing a tree on a changed path keeps the entries it does not change as they are:
    parsing each into an :class:`Entry` and formatting it again was most of writing the
    trees of a rollback of 100 files (row R5). A tree holding a mode that is not one git
    writes now (``040000``, an old tool's) goes through :func:`parse_tree`, so that it
    is written again as git would write it.

    Raises:
        ValueError: If the bytes are not a tree's.
    """
    entries: RawEntries = {}
    at = 0
    size = len(data)
    find = data.index
    while at < size:
        space = find(b" ", at)
        end = find(b"\0", space)
        stop = end + 21
        if stop > size:
            raise ValueError("a tree entry cut short")
        if data[at:space] not in _CANONICAL_MODES:
            return {name: raw_entry(name, entry) for name, entry in parse_tree(data).items()}
        entries[data[space + 1 : end]] = data[at:stop]
        at = stop
    return entries


def raw_entry(name: bytes, entry: Entry) -> bytes:
    """The bytes of one tree entry (see :data:`RawEntries`)."""
    return b"%o %s\x00%s" % (entry.mode, name, bytes.fromhex(entry.id))


def raw_is_tree(raw: bytes) -> bool:
    """Whether a raw entry (canonical, see :func:`raw_entries`) is a tree."""
    return raw.startswith(_RAW_TREE)


def raw_tree_bytes(entries: RawEntries) -> bytes:
    """The bytes of a tree of raw entries, in git's order (as :func:`tree_bytes`)."""
    # Each name paired with its sort key in one comprehension, then sorted as tuples
    # (names are unique, so no raw bytes are ever compared): a key function called per
    # entry took 1.7x as long, on each of the ~200 trees a rollback rebuilds (row R5).
    tree = _RAW_TREE
    keyed = [(name + b"/" if raw[:6] == tree else name, raw) for name, raw in entries.items()]
    keyed.sort()
    return b"".join([raw for _, raw in keyed])
