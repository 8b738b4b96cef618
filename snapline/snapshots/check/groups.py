"""The history's changes handed out one snapshot at a time, for the check of the history.

A baseline of a whole check is not even held whole: :func:`streamed_pass` checks its
shape and chain hash from one stream, and :meth:`Groups.chunks` hands out its changes a
few hundred at a time for the rest.

``validate_history`` walks the snapshots in order; their changes come from one query in
(snapshot, path) order and are grouped as they arrive, so the whole history's rows are
never held at once.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from snapline.snapshots.check.chain import chain_hash
from snapline.snapshots.found import make_problem
from snapline.snapshots.kinds import Storage
from snapline.store import ChangeRow, SnapshotRow, StoreReader, shape_problem

if TYPE_CHECKING:
    from snapline.snapshots.snapshot import Problem

__all__ = ["Groups", "shape_problems", "stored_content", "streamed_pass"]

_CHUNK = 512
"""Changes of a streamed snapshot checked together (one query for their content)."""


class Groups:
    """Changes streamed in snapshot order, handed out one snapshot at a time."""

    def __init__(self, changes: Iterable[ChangeRow]) -> None:
        self._groups = itertools.groupby(changes, key=lambda change: change.snapshot)
        self._next = next(self._groups, None)
        self._orphans: list[int] = []

    def take(self, number: int) -> list[ChangeRow]:
        """The changes of snapshot ``number``; those of lower numbers left are orphans."""
        found = self._find(number)
        if found is None:
            return []
        batch = list(found)
        self._next = next(self._groups, None)
        return batch

    def chunks(self, number: int) -> Iterator[list[ChangeRow]]:
        """The changes of snapshot ``number`` a few hundred at a time (consume them all)."""
        found = self._find(number)
        if found is None:
            return
        while chunk := list(itertools.islice(found, _CHUNK)):
            yield chunk
        self._next = next(self._groups, None)

    def _find(self, number: int) -> Iterator[ChangeRow] | None:
        while self._next is not None:
            key, group = self._next
            if key == number:
                return group
            if not (_is_number(key) and _is_number(number) and key < number):
                break
            self._orphans.append(key)
            self._next = next(self._groups, None)
        return None

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


def streamed_pass(store: StoreReader, row: SnapshotRow, previous: str) -> tuple[list[Problem], str]:
    """The shape problems and the chain hash of one snapshot, its changes streamed.

    Args:
        store: The open store.
        row: The snapshot.
        previous: The chain hash it builds on.

    Returns:
        Its shape problems, and its chain hash (meaningless when there are any).
    """
    problems = shape_problems(row, ())
    if problems:
        changes = store.changes.stream_of(row.number)
        return [*problems, *shape_problems(row, changes, with_row=False)], ""

    def sound() -> Iterator[ChangeRow]:
        for change in store.changes.stream_of(row.number):
            found = shape_problems(row, (change,), with_row=False)
            problems.extend(found)
            if not problems:
                yield change

    value = chain_hash(previous, row, sound(), in_order=True)
    return problems, value


def shape_problems(
    row: SnapshotRow, changes: Iterable[ChangeRow], *, with_row: bool = True
) -> list[Problem]:
    """The rows holding a value no snapline writes (of the wrong type, out of range).

    Args:
        row: The snapshot.
        changes: Its changes (any of them).
        with_row: Check the snapshot's row too.
    """
    problems = []
    records: Iterable[SnapshotRow | ChangeRow] = changes
    if with_row:
        records = itertools.chain([row], changes)
    for record in records:
        problem = shape_problem(record)
        if problem is not None:
            what = (
                f"snapshot {row.number}"
                if record is row
                else f"a file change of snapshot {row.number}"
            )
            problems.append(
                make_problem(
                    kind="bad-record",
                    number=row.number,
                    severity="corrupt",
                    message=f"{what} holds a value no snapline writes: {problem}",
                )
            )
    return problems
