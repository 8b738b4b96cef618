"""Snapshot headers: insert, get, and select with every filter, order and limit."""

from __future__ import annotations

from typing import Any

import pytest

from snapline.hashing import hash_bytes
from snapline.store import Store
from tests.store.builders import NOT_UTF8, change, record, snapshot


@pytest.fixture
def history(store: Store) -> Store:
    """Snapshots 0..5: two tools, two sessions, a rename of a.txt to b.txt in 4."""
    record(store, 0, change(0, "a.txt", kind="added"), tool="init")
    record(store, 1, change(1, "a.txt"), session="s1")
    record(store, 2, change(2, "c.txt", kind="added"), session="s2", tool="edit")
    record(store, 3, change(3, NOT_UTF8, kind="added"), session="s1")
    record(store, 4, change(4, "b.txt", kind="renamed", old_path="a.txt"), session="s2")
    record(store, 5, change(5, "c.txt"), tool="edit")
    return store


def _numbers(store: Store, **filters: Any) -> list[int]:
    return [row.number for row in store.snapshots.select(**filters)]


def test_get_returns_the_row_as_inserted(store: Store) -> None:
    row = snapshot(0, session="s", metadata='{"k": 1}', parent_id=None)
    with store.write():
        store.snapshots.insert(row, [])
    assert store.snapshots.get(0) == row
    assert store.snapshots.get(1) is None
    assert store.snapshots.latest_number() == 0


def test_insert_stores_the_changes_with_the_header(store: Store) -> None:
    changes = [change(0, "b.txt"), change(0, "a.txt")]
    record(store, 0, *changes)
    assert store.changes.of(0) == sorted(changes, key=lambda c: c.path)


def test_latest_number_is_the_highest(history: Store) -> None:
    assert history.snapshots.latest_number() == 5


def test_seal_sets_skipped_and_chain_hash(store: Store) -> None:
    provisional, sealed = hash_bytes(b"provisional"), hash_bytes(b"sealed")
    with store.write():
        store.snapshots.insert(snapshot(0, chain_hash=provisional, skipped="[]"), [])
        store.snapshots.seal(0, '["big.bin"]', sealed)
    row = store.snapshots.get(0)
    assert row is not None
    assert (row.skipped, row.chain_hash) == ('["big.bin"]', sealed)
    assert row.description == "snapshot 0"


@pytest.mark.parametrize(
    ("filters", "expected"),
    [
        ({}, [0, 1, 2, 3, 4, 5]),
        ({"first": 2}, [2, 3, 4, 5]),
        ({"last": 2}, [0, 1, 2]),
        ({"first": 1, "last": 3}, [1, 2, 3]),
        ({"tool": "edit"}, [2, 5]),
        ({"session": "s1"}, [1, 3]),
        ({"session": "s2", "tool": "edit"}, [2]),
        ({"path": "a.txt"}, [0, 1, 4]),  # as its path, then as the old path of a rename
        ({"path": "b.txt"}, [4]),
        ({"path": NOT_UTF8}, [3]),
        ({"path": "nowhere"}, []),
        ({"since": "2024-01-03T00:00:00+00:00"}, [2, 3, 4, 5]),
        ({"until": "2024-01-03T00:00:00+00:00"}, [0, 1, 2]),
        ({"descending": True}, [5, 4, 3, 2, 1, 0]),
        ({"limit": 2}, [0, 1]),
        ({"descending": True, "limit": 2}, [5, 4]),
        ({"descending": True, "limit": 2, "session": "s1"}, [3, 1]),
        ({"first": 1, "last": 4, "path": "c.txt", "descending": True}, [2]),
    ],
)
def test_select_applies_every_filter(
    history: Store, filters: dict[str, Any], expected: list[int]
) -> None:
    assert _numbers(history, **filters) == expected


def test_select_returns_whole_rows(history: Store) -> None:
    assert history.snapshots.select(first=2, last=2) == [history.snapshots.get(2)]
