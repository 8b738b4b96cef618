"""The tracked tree of a long-lived workspace, kept between whole-workspace checks."""

from __future__ import annotations

import threading
from collections.abc import Iterable
from typing import TYPE_CHECKING

from snapline.scanning.tracked import TrackedTree, index_tracked

if TYPE_CHECKING:
    from snapline.store import Store

__all__ = ["TrackedCache"]


class TrackedCache:
    """The tracked tree of the last whole-workspace check, kept while it stays true.

    Reading every tracked path and its stat-cache entry is a sixth of a nothing-changed
    check of 100k files (measured), and an agent's long-lived ``Workspace`` checks again
    and again. So the tree is kept, and when the store's generation moves it is brought
    up to date for what can have changed: the paths of the snapshots added since (the
    known state changes only with a snapshot) and the paths whose stat-cache entries this
    process wrote. When the history did not simply grow (a different store, a rewritten
    tip), it is read again whole.

    Stat-cache entries another process wrote are not picked up; they are facts about
    file contents that stay true, so a missed one only costs reading that file again.

    Threads share it: the store's transactions already serialise the callers, and a
    lock of its own keeps that true for any caller outside one.
    """

    def __init__(self) -> None:
        self._generation: tuple[int, int] | None = None
        self._tip: tuple[int, str] | None = None
        self._tree: TrackedTree = {}
        self._dirty: set[str] = set()
        self._lock = threading.RLock()

    def tree(self, store: Store, racy_window_ns: int) -> TrackedTree:
        """The tracked tree of ``store``; call inside one of its transactions.

        Args:
            store: The open store.
            racy_window_ns: How much older than its hashing a file must be for its
                stat-cache entry to vouch for it.
        """
        with self._lock:
            return self._tree_locked(store, racy_window_ns)

    def _tree_locked(self, store: Store, racy_window_ns: int) -> TrackedTree:
        generation = store.generation()
        if generation == self._generation:
            return self._tree
        tip = _tip(store)
        if self._tip is not None and tip is not None and _extends(store, self._tip):
            paths = self._dirty | _changed_since(store, self._tip[0], tip[0])
            self._refresh(store, paths, racy_window_ns)
        else:
            self._tree = index_tracked(store.stat_cache.fingerprints(racy_window_ns))
        self._dirty.clear()
        self._generation, self._tip = generation, tip
        return self._tree

    def note(self, paths: Iterable[str]) -> None:
        """Remember paths whose stat-cache entries a caller may now write."""
        with self._lock:
            self._dirty.update(paths)

    def _refresh(self, store: Store, paths: set[str], racy_window_ns: int) -> None:
        for path in paths:
            reldir, _, name = path.rpartition("/")
            names = self._tree.get(reldir)
            if names is not None:
                names.pop(name, None)
                if not names:
                    del self._tree[reldir]
        for reldir, names in index_tracked(
            store.stat_cache.fingerprints(racy_window_ns, paths)
        ).items():
            self._tree.setdefault(reldir, {}).update(names)


def _tip(store: Store) -> tuple[int, str] | None:
    latest = store.snapshots.latest_number()
    row = store.snapshots.get(latest) if latest is not None else None
    return None if row is None else (row.number, row.chain_hash)


def _extends(store: Store, tip: tuple[int, str]) -> bool:
    """Whether the history still holds snapshot ``tip`` unchanged (it grew, or stayed)."""
    row = store.snapshots.get(tip[0])
    return row is not None and row.chain_hash == tip[1]


def _changed_since(store: Store, number: int, latest: int) -> set[str]:
    paths: set[str] = set()
    for _, path, old_path in store.changes.paths(number + 1, latest):
        paths.add(path)
        if old_path is not None:
            paths.add(old_path)
    return paths
