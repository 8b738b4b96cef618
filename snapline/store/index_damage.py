"""A local index that SQLite finds damaged: whether it is a cache, and how to rebuild it.

The index of a history on git's refs (or of an old branch's in-tree ledger) is built
from that history, and one found damaged on opening is set aside and built again
(store/refs/opening.py, store/ledger/opening.py). Damage met later, by a query or by
SQLite's own check in ``verify``, is named with the command that sets it aside.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["cache_index", "rebuild_advice"]


def rebuild_advice(index: Path) -> str:
    """How to have a damaged local index built again: set it aside, with the command."""
    import shlex  # here: only a damaged index has a command to quote

    moved = index.with_name(index.name + ".damaged")
    return (
        f"set it aside (`mv {shlex.quote(str(index))} {shlex.quote(str(moved))}`) and the "
        "next command builds it again"
    )


def cache_index(path: Path) -> bool:
    """Whether ``path`` is a local index built from a history kept beside it (a cache).

    On git's refs (under the git directory, or outside git beside ``.snapline/repo``)
    or an old branch's in-tree ledger (``.snapline/ledger``): opened damaged, such an
    index is set aside and built again (store/refs/opening.py, store/ledger/opening.py).
    A 0.1 store's ``index.db`` is its history, and is no cache.
    """
    if path.name != "index.db":
        return False
    folder = path.parent
    if folder.name == "snapline":
        return (folder.parent / "HEAD").is_file()
    return folder.name == ".snapline" and any(
        (folder / name).is_dir() for name in ("repo", "ledger")
    )
