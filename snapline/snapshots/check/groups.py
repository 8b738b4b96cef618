"""The history's changes handed out one snapshot at a time, for the check of the history.

``validate_history`` walks the snapshots in order; their changes come from one query in
(snapshot, path) order and are grouped as they arrive, so the whole history's rows are
never held at once.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable

from snapline.snapshots.kinds import Storage
from snapline.store import ChangeRow, StoreReader

__all__ = ["Groups", "stored_content"]


class Groups:
    """Changes streamed in snapshot order, handed out one snapshot at a time."""

    def __init__(self, changes: Iterable[ChangeRow]) -> None:
        self._groups = itertools.groupby(changes, key=lambda change: change.snapshot)
        self._next = next(self._groups, None)
        self._orphans: list[int] = []

    def take(self, number: int) -> list[ChangeRow]:
        """The changes of snapshot ``number``; those of lower numbers left are orphans."""
        while self._next is not None:
            key, group = self._next
            if key == number:
                found = list(group)
                self._next = next(self._groups, None)
                return found
            if not (_is_number(key) and _is_number(number) and key < number):
                break
            self._orphans.append(key)
            self._next = next(self._groups, None)
        return []

    def rest(self) -> list[int]:
        """The snapshot numbers of changes no snapshot took, in the order met."""
        while self._next is not None:
            self._orphans.append(self._next[0])
            self._next = next(self._groups, None)
        return self._orphans


def _is_number(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def stored_content(store: StoreReader, changes: list[ChangeRow], held: bool) -> set[str]:
    """The content stored in full that one snapshot's changes reference and the store has.

    Args:
        store: The open store.
        changes: The snapshot's changes.
        held: Whether the snapshot is a baseline whose content the workspace holds.
    """
    if held:
        return set()  # the baseline's content stays in the workspace (docs/format.md)
    refs = [c.content for c in changes if c.storage == Storage.FULL and isinstance(c.content, str)]
    return store.blobs.present(refs) if refs else set()
