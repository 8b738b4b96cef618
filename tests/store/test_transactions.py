"""Transactions: all or nothing, nesting, one view per read, writes only inside ``write()``.

Also a store held by another process, and the generation that tells a cache whether
anything was committed.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from snapline.store import Store, StoreBusyError
from tests.store.backends import Backend
from tests.store.builders import (
    change,
    milestone,
    record,
    snapshot,
    stat,
    state,
    store_contents,
)
from tests.store.conftest import BUSY


class _Boom(Exception):
    pass


def _write_everything(store: Store, number: int) -> None:
    """One change to every table, as a snapshot with all its side effects would make."""
    path = f"f{number}.txt"
    row = change(number, path)
    store.snapshots.insert(snapshot(number), [row])
    store_contents(store, [row])
    store.state.set([state(path, number)], ())
    store.stat_cache.put([stat(path, number)])
    store.milestones.insert(milestone(number + 1, number, number))
    store.journal.add("write", "2024-01-01T00:00:00+00:00", "[]")


def _contents(store: Store) -> tuple[Any, ...]:
    return (
        store.snapshots.select(),
        store.changes.in_range(0, 100, deltas=True),
        sorted(store.blobs.hashes()),
        store.state.get(),
        store.stat_cache.get(),
        store.milestones.all(),
        [(row.op, row.payload) for row in store.journal.entries()],
    )


def test_an_exception_rolls_back_every_table(store: Store) -> None:
    with store.write():
        _write_everything(store, 0)
    before = _contents(store)
    with pytest.raises(_Boom), store.write():
        _write_everything(store, 1)
        raise _Boom
    assert _contents(store) == before
    with store.write():  # and the store takes the next write as if nothing happened
        _write_everything(store, 1)
    assert store.snapshots.latest_number() == 1


def test_a_nested_write_commits_with_the_outermost(
    store: Store, connect: Callable[[], Store]
) -> None:
    other = connect()
    with store.write():
        with store.write():
            _write_everything(store, 0)
        assert other.snapshots.latest_number() is None
        store.journal.add("write", "t", "[]")
    assert other.snapshots.latest_number() == 0
    assert len(other.journal.entries()) == 2


def test_an_exception_from_a_nested_write_rolls_back_the_outer_work(store: Store) -> None:
    with pytest.raises(_Boom), store.write():
        _write_everything(store, 0)
        with store.write():
            store.journal.add("write", "t", "[]")
            raise _Boom
    assert _contents(store) == ([], [], [], {}, {}, [], [])


def test_a_read_sees_one_consistent_view(store: Store, connect: Callable[[], Store]) -> None:
    record(store, 0)
    other = connect()
    with store.read():
        assert store.snapshots.latest_number() == 0
        with other.write():
            _write_everything(other, 1)
        assert store.snapshots.latest_number() == 0
        assert store.state.get() == {}
        assert store.journal.entries() == []
    assert store.snapshots.latest_number() == 1
    assert list(store.state.get()) == ["f1.txt"]


def test_a_read_inside_a_write_sees_the_write(store: Store) -> None:
    with store.write():
        _write_everything(store, 0)
        with store.read():
            assert store.snapshots.latest_number() == 0
            assert list(store.state.get()) == ["f0.txt"]


_WRITES: dict[str, Callable[[Store], object]] = {
    "snapshots.insert": lambda s: s.snapshots.insert(snapshot(0), []),
    "snapshots.seal": lambda s: s.snapshots.seal(0, "[]", "sealed"),
    "changes.insert": lambda s: s.changes.insert([change(0, "a")]),
    "blobs.put": lambda s: s.blobs.put("h", 1, b"x"),
    "blobs.put_many": lambda s: s.blobs.put_many([("h", 1, b"x")]),
    "blobs.delete": lambda s: s.blobs.delete(["h"]),
    "state.set": lambda s: s.state.set([state("a")], ()),
    "stat_cache.put": lambda s: s.stat_cache.put([stat("a")]),
    "milestones.insert": lambda s: s.milestones.insert(milestone(1, 0, 0)),
    "journal.add": lambda s: s.journal.add("write", "t", "[]"),
    "journal.delete": lambda s: s.journal.delete(1),
}


@pytest.mark.parametrize("name", sorted(_WRITES))
def test_a_write_outside_a_transaction_is_refused(store: Store, name: str) -> None:
    with pytest.raises(RuntimeError, match=r"inside Store\.write"):
        _WRITES[name](store)
    assert _contents(store) == ([], [], [], {}, {}, [], [])


def test_a_store_held_by_another_writer_is_busy(
    backend: Backend, store: Store, location: Path
) -> None:
    with backend.hold(location):
        with pytest.raises(StoreBusyError) as caught, store.write():
            _write_everything(store, 0)
        assert caught.value.path == str(location)
        assert caught.value.timeout == BUSY
        assert caught.value.exit_code == 4
        # Readers go on meanwhile.
        assert store.snapshots.latest_number() is None
    with store.write():
        _write_everything(store, 0)
    assert store.snapshots.latest_number() == 0


def test_the_generation_changes_with_every_commit(
    store: Store, connect: Callable[[], Store]
) -> None:
    other = connect()

    def generation() -> tuple[int, int]:
        with store.read():
            return store.generation()

    first = generation()
    assert generation() == first
    with other.write():
        _write_everything(other, 0)
    second = generation()
    assert second != first
    assert generation() == second
    with store.write():
        store.journal.add("write", "t", "[]")
    assert generation() not in (first, second)


def test_vacuum_keeps_every_row(store: Store) -> None:
    with store.write():
        _write_everything(store, 0)
        store.blobs.put("unused", 1000, b"x" * 1000)
    with store.write():
        assert store.blobs.delete(["unused"]) == 1000
    before = _contents(store)
    store.vacuum()
    assert _contents(store) == before
    assert store.integrity_problems() == []
