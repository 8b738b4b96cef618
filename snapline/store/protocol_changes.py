"""The seam's protocols for the file changes table, beside ``protocol.py``'s others."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Protocol

from snapline.store.rows import ChangeRow

__all__ = ["ChangeReader", "ChangeWriter"]


class ChangeReader(Protocol):
    """File changes, read."""

    def of(self, snapshot: int, *, deltas: bool = True) -> list[ChangeRow]:
        """The changes of one snapshot, by path; without deltas they are ``None``."""

    def stream_of(self, snapshot: int) -> Iterator[ChangeRow]:
        """The changes of one snapshot with their deltas, streamed in Python's path order."""

    def totals(self, snapshot: int) -> tuple[int, int]:
        """How many files one snapshot changed, and the sum of their recorded sizes."""

    def paths(self, first: int, last: int) -> list[tuple[int, str, str | None]]:
        """``(snapshot, path, old path)`` of each change of ``first..last``, in order."""

    def touched(self, first: int, last: int) -> set[str]:
        """Every path a change of ``first..last`` made or moved away (path or old path)."""

    def in_range(self, first: int, last: int, *, deltas: bool = False) -> list[ChangeRow]:
        """The changes of snapshots ``first..last``, in (snapshot, path) order."""

    def iter(self, *, deltas: bool = True) -> Iterator[ChangeRow]:
        """Every change, in (snapshot, path) order, streamed."""

    def version_at(self, path: str, at: int) -> ChangeRow | None:
        """The last change at or before ``at`` that touched ``path`` (path or old path)."""

    def path_history(self, path: str, *, last: int, count: int) -> list[ChangeRow]:
        """Up to ``count`` changes made to ``path`` at or before ``last``, newest first."""

    def versions_at(self, paths: Iterable[str], at: int) -> dict[str, ChangeRow]:
        """The change that made each path's version at ``at``, where one did.

        What ``version_at`` finds, for the paths it finds a change *of* (not one that
        moved the path away last). This default asks ``version_at`` path by path; the
        index's table answers in two queries.
        """
        found = {path: self.version_at(path, at) for path in paths}
        return {path: row for path, row in found.items() if row is not None and row.path == path}


class ChangeWriter(ChangeReader, Protocol):
    """File changes, read and inserted."""

    def insert(self, changes: Iterable[ChangeRow]) -> None:
        """Insert changes of a snapshot inserted in this transaction (a baseline, in batches)."""
