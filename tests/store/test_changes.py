"""File changes: order, deltas on and off, a path's version (across renames) and history."""

from __future__ import annotations

import pytest

from snapline.store import ChangeRow, Store
from tests.store.builders import NOT_UTF8, change, record, snapshot, store_contents


def _bare(row: ChangeRow) -> ChangeRow:
    return row._replace(forward=None, reverse=None)


@pytest.fixture
def changes(store: Store) -> list[ChangeRow]:
    """Three snapshots whose changes were inserted out of path order."""
    rows = [
        change(0, "z.txt", kind="added"),
        change(0, "a.txt", kind="added", forward=None, reverse=None),
        change(0, "m/x.txt", kind="added"),
        change(1, "b.txt"),
        change(1, "a.txt", kind="deleted", result_hash=None, storage="none"),
        change(2, NOT_UTF8, kind="added", old_path=None),
    ]
    for number in range(3):
        record(store, number, *[row for row in rows if row.snapshot == number])
    return rows


def _ordered(rows: list[ChangeRow]) -> list[ChangeRow]:
    return sorted(rows, key=lambda c: (c.snapshot, c.path))


def test_of_returns_one_snapshot_by_path_with_deltas(
    store: Store, changes: list[ChangeRow]
) -> None:
    assert store.changes.of(0) == _ordered(changes)[:3]
    assert store.changes.of(1) == _ordered(changes)[3:5]
    assert store.changes.of(7) == []


def test_of_without_deltas_leaves_them_out(store: Store, changes: list[ChangeRow]) -> None:
    assert store.changes.of(0, deltas=False) == [_bare(c) for c in _ordered(changes)[:3]]


def test_in_range_is_in_snapshot_and_path_order(store: Store, changes: list[ChangeRow]) -> None:
    assert store.changes.in_range(0, 2) == [_bare(c) for c in _ordered(changes)]
    assert store.changes.in_range(1, 1, deltas=True) == _ordered(changes)[3:5]
    assert store.changes.in_range(3, 9) == []


def test_paths_name_each_change_in_order(store: Store, changes: list[ChangeRow]) -> None:
    expected = [(c.snapshot, c.path, c.old_path) for c in _ordered(changes)]
    assert store.changes.paths(0, 2) == expected
    assert store.changes.paths(1, 1) == expected[3:5]
    assert store.changes.paths(3, 9) == []


def test_iter_streams_every_change_in_order(store: Store, changes: list[ChangeRow]) -> None:
    assert list(store.changes.iter()) == _ordered(changes)
    assert list(store.changes.iter(deltas=False)) == [_bare(c) for c in _ordered(changes)]


def test_insert_adds_changes_to_a_snapshot(store: Store) -> None:
    # In the transaction that inserts it, as a baseline's changes come in batches.
    later = [change(0, "late.txt"), change(0, "early.txt")]
    with store.write():
        store.snapshots.insert(snapshot(0), [])
        store_contents(store, later)
        store.changes.insert(later)
    assert [c.path for c in store.changes.of(0)] == ["early.txt", "late.txt"]


@pytest.fixture
def renames(store: Store) -> Store:
    """A history of renames.

    a.txt is added in 1, edited in 2 and renamed to b.txt in 3, then added anew in 4;
    in 5 it moves on to d.txt while c.txt becomes a.txt; b.txt is edited in 6.
    """
    record(store, 0, change(0, "c.txt", kind="added"))
    record(store, 1, change(1, "a.txt", kind="added"))
    record(store, 2, change(2, "a.txt"))
    record(store, 3, change(3, "b.txt", kind="renamed", old_path="a.txt"))
    record(store, 4, change(4, "a.txt", kind="added"), change(4, "c.txt"))
    record(
        store,
        5,
        change(5, "a.txt", kind="renamed", old_path="c.txt"),
        change(5, "d.txt", kind="renamed", old_path="a.txt"),
    )
    record(store, 6, change(6, "b.txt"))
    return store


def test_versions_at_is_version_at_for_the_paths_a_change_made(renames: Store) -> None:
    # a.txt is moved away in 3 and 5 and made anew in 4 and 5; c.txt moved away in 5.
    paths = ["a.txt", "b.txt", "c.txt", "d.txt", "never.txt"]
    for number in range(8):
        expected = {}
        for path in paths:
            row = renames.changes.version_at(path, number)
            if row is not None and row.path == path:
                expected[path] = row
        assert renames.changes.versions_at(paths, number) == expected, number
    assert set(renames.changes.versions_at(paths, 3)) == {"b.txt", "c.txt"}
    assert set(renames.changes.versions_at(paths, 5)) == {"a.txt", "b.txt", "d.txt"}


def _touched_by_rows(store: Store, first: int, last: int) -> set[str]:
    return {p for _, path, old in store.changes.paths(first, last) for p in (path, old) if p}


def test_touched_names_each_path_and_old_path_of_a_range(renames: Store) -> None:
    assert renames.changes.touched(4, 6) == {"a.txt", "b.txt", "c.txt", "d.txt"}
    assert renames.changes.touched(3, 3) == {"a.txt", "b.txt"}  # the old path too
    assert renames.changes.touched(6, 6) == {"b.txt"}
    assert renames.changes.touched(7, 9) == set()
    for first in range(7):
        assert renames.changes.touched(first, 6) == _touched_by_rows(renames, first, 6)


def test_touched_across_many_snapshots_is_what_their_rows_name(store: Store) -> None:
    # Past 64 snapshots the paths come from the index of paths, not the rows: the same.
    record(store, 0, change(0, "gone.txt", kind="added"), change(0, NOT_UTF8, kind="added"))
    for number in range(1, 150):
        rows = [change(number, f"f{number % 7}.txt")]
        if number == 100:
            rows = [change(number, "moved.txt", kind="renamed", old_path="gone.txt")]
        if number == 120:
            rows.append(change(number, NOT_UTF8))
        record(store, number, *rows)
    for first, last in ((1, 149), (2, 130), (101, 149), (100, 100), (121, 149), (0, 149)):
        touched = store.changes.touched(first, last)
        assert touched == _touched_by_rows(store, first, last), (first, last)
    assert {"gone.txt", "moved.txt", NOT_UTF8} <= store.changes.touched(1, 149)
    assert "gone.txt" not in store.changes.touched(101, 149)


def _at(store: Store, path: str, number: int) -> tuple[int, str, str | None] | None:
    row = store.changes.version_at(path, number)
    return None if row is None else (row.snapshot, row.path, row.old_path)


@pytest.mark.parametrize(
    ("path", "number", "expected"),
    [
        ("a.txt", 0, None),
        ("a.txt", 1, (1, "a.txt", None)),
        ("a.txt", 2, (2, "a.txt", None)),
        ("a.txt", 3, (3, "b.txt", "a.txt")),  # renamed away: the rename says it is gone
        ("a.txt", 4, (4, "a.txt", None)),
        ("a.txt", 5, (5, "a.txt", "c.txt")),  # moved away and made anew in one snapshot
        ("b.txt", 2, None),
        ("b.txt", 3, (3, "b.txt", "a.txt")),
        ("b.txt", 9, (6, "b.txt", None)),
        ("c.txt", 4, (4, "c.txt", None)),
        ("c.txt", 5, (5, "a.txt", "c.txt")),
        ("d.txt", 5, (5, "d.txt", "a.txt")),
    ],
)
def test_version_at_follows_renames(
    renames: Store, path: str, number: int, expected: tuple[int, str, str | None] | None
) -> None:
    assert _at(renames, path, number) == expected


def test_version_at_returns_the_whole_row(renames: Store) -> None:
    assert renames.changes.version_at("b.txt", 6) == change(6, "b.txt")


def test_path_history_is_newest_first_and_bounded(renames: Store) -> None:
    def history(path: str, last: int, count: int) -> list[int]:
        return [c.snapshot for c in renames.changes.path_history(path, last=last, count=count)]

    assert history("a.txt", 9, 10) == [5, 4, 2, 1]  # the renames away are not a.txt's
    assert history("a.txt", 3, 10) == [2, 1]
    assert history("a.txt", 9, 2) == [5, 4]
    assert history("b.txt", 9, 10) == [6, 3]
    assert history("nowhere", 9, 10) == []
    assert renames.changes.path_history("b.txt", last=9, count=1) == [change(6, "b.txt")]


def test_paths_that_are_not_utf8_round_trip(store: Store) -> None:
    moved = NOT_UTF8 + "/moved"
    record(store, 0, change(0, NOT_UTF8, kind="added"))
    record(store, 1, change(1, moved, kind="renamed", old_path=NOT_UTF8))
    assert store.changes.of(0) == [change(0, NOT_UTF8, kind="added")]
    assert store.changes.of(1)[0].old_path == NOT_UTF8
    assert _at(store, NOT_UTF8, 0) == (0, NOT_UTF8, None)
    assert _at(store, NOT_UTF8, 1) == (1, moved, NOT_UTF8)
    assert _at(store, moved, 1) == (1, moved, NOT_UTF8)
    assert [c.snapshot for c in store.changes.path_history(moved, last=1, count=5)] == [1]
    assert [c.path for c in store.changes.iter()] == [NOT_UTF8, moved]


def test_paths_name_a_rename_from_where_it_came(renames: Store) -> None:
    assert renames.changes.paths(3, 3) == [(3, "b.txt", "a.txt")]
