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

__all__ = ["blob_id", "parse_tree", "tree_bytes", "tree_id"]


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
