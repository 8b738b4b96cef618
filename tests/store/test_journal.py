"""The journal: entries are added, listed oldest first, and deleted one by one."""

from __future__ import annotations

from snapline.store import JournalRow, Store


def test_add_list_and_delete(store: Store) -> None:
    assert store.journal.entries() == []
    with store.write():
        first = store.journal.add("write", "2024-01-01T00:00:00+00:00", '[{"path": "a"}]')
        second = store.journal.add("run", "2024-01-02T00:00:00+00:00", "{}")
    assert second > first
    assert store.journal.entries() == [
        JournalRow(first, "write", "2024-01-01T00:00:00+00:00", '[{"path": "a"}]'),
        JournalRow(second, "run", "2024-01-02T00:00:00+00:00", "{}"),
    ]
    with store.write():
        store.journal.delete(first)
        store.journal.delete(first)
    assert [row.id for row in store.journal.entries()] == [second]
    with store.write():
        third = store.journal.add("discard", "t", "[]")
        store.journal.delete(second)
    assert third > second
    assert [(row.id, row.op) for row in store.journal.entries()] == [(third, "discard")]
