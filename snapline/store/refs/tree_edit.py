"""A tree with some paths changed: rebuilt along those paths only, other entries kept as bytes.

:meth:`~snapline.store.refs.git.GitRepository.update_tree` is every snapshot's new
``state`` (and a forget's rewrite of one). Only the trees on a changed path are read and
written again; inside each, the entries it does not change stay as the bytes read
(:func:`~snapline.store.refs.objects.raw_entries`): parsing every entry and formatting it
again was most of the trees' time of a rollback of 100 files (row R5).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from snapline.store.refs.objects import raw_entries, raw_entry, raw_is_tree, raw_tree_bytes
from snapline.store.refs.values import TREE_MODE, Entry

__all__ = ["Edits", "update_tree"]

Edits = Mapping[tuple[bytes, ...], Entry | None]
"""A path's names (``(b"a", b"b", b"c")``) to its new entry, or ``None`` to remove it."""


def update_tree(
    read: Callable[[str], bytes], write: Callable[[bytes], str], base: str | None, edits: Edits
) -> str | None:
    """The id of tree ``base`` with ``edits`` applied; ``None`` when nothing is left.

    Args:
        read: The bytes of a tree, by id.
        write: Writes a tree's bytes; its id.
        base: The tree to start from, ``None`` for none.
        edits: What to change. A directory left empty is removed, as git does.

    Raises:
        MissingObjectError: What ``read`` raises for a tree that is absent.
        ValueError: If the edits make a path both a file and a directory.
    """
    entries = {} if base is None else raw_entries(read(base))
    below: dict[bytes, dict[tuple[bytes, ...], Entry | None]] = {}
    for parts, entry in edits.items():
        if len(parts) > 1:
            below.setdefault(parts[0], {})[parts[1:]] = entry
        elif entry is None:
            entries.pop(parts[0], None)
        else:
            entries[parts[0]] = raw_entry(parts[0], entry)
    for name, inner in below.items():
        old = entries.get(name)
        if old is not None and not raw_is_tree(old) and (name,) in edits:
            # A directory replaced by a file: what was below it goes with it.
            if any(entry is not None for entry in inner.values()):
                shown = name.decode("utf-8", "surrogateescape")
                raise ValueError(f"{shown!r} is both a file and a directory")
            continue
        # A tree entry ends with its id's 20 bytes.
        inside = old[-20:].hex() if old is not None and raw_is_tree(old) else None
        made = update_tree(read, write, inside, inner)
        if made is None:
            entries.pop(name, None)
        else:
            entries[name] = raw_entry(name, Entry(made, TREE_MODE))
    return write(raw_tree_bytes(entries)) if entries else None
