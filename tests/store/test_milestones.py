"""Milestones: insert, list, by number, the latest, and the one containing a snapshot."""

from __future__ import annotations

from snapline.store import Store
from tests.store.builders import milestone, record


def test_an_empty_store_has_no_milestones(store: Store) -> None:
    assert store.milestones.all() == []
    assert store.milestones.latest() is None
    assert store.milestones.get(1) is None
    assert store.milestones.containing(0) is None


def test_lookups(store: Store) -> None:
    rows = [milestone(2, 4, 6, tags='["b"]'), milestone(1, 0, 3), milestone(3, 6, 9)]
    for number in range(10):  # a milestone ends at a snapshot of the store
        record(store, number)
    with store.write():
        for row in rows:
            store.milestones.insert(row)
    assert store.milestones.all() == sorted(rows, key=lambda m: m.number)
    assert store.milestones.get(2) == rows[0]
    assert store.milestones.get(4) is None
    assert store.milestones.latest() == rows[2]
    assert store.milestones.containing(0) == rows[1]
    assert store.milestones.containing(3) == rows[1]
    assert store.milestones.containing(4) == rows[0]
    assert store.milestones.containing(6) == rows[0]  # the lowest number of two
    assert store.milestones.containing(9) == rows[2]
    assert store.milestones.containing(10) is None
