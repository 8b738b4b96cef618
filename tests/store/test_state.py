"""The known state and the stat cache: lookups, prefixes, non-UTF-8 paths, fingerprints."""

from __future__ import annotations

from typing import Any

import pytest

from snapline.store import Store
from tests.store.builders import NOT_UTF8, stat, state

# Paths around the directory "a": only those inside "a/" are under it.
_AROUND_A = ["a", "a-b", "a-b/x", "a.txt", "a0", "a0/x", "ab/x", "b/a/x", "A/x"]
_INSIDE_A = ["a/x", "a/b/c", "a/.hidden", "a/" + NOT_UTF8, "a/b/" + NOT_UTF8]


def _set(store: Store, rows: list[str], deletes: tuple[str, ...] = ()) -> None:
    with store.write():
        store.state.set([state(path) for path in rows], deletes)


def test_set_and_get(store: Store) -> None:
    _set(store, ["a.txt", "b/c.txt", NOT_UTF8])
    assert store.state.get() == {p: state(p) for p in ["a.txt", "b/c.txt", NOT_UTF8]}
    assert store.state.get(["a.txt", "missing", NOT_UTF8]) == {
        "a.txt": state("a.txt"),
        NOT_UTF8: state(NOT_UTF8),
    }
    assert store.state.get([]) == {}


def test_set_replaces_and_deletes(store: Store) -> None:
    _set(store, ["a.txt", "b.txt", NOT_UTF8])
    with store.write():
        store.state.set([state("a.txt", 3, mode=0o100755)], ["b.txt", NOT_UTF8, "never"])
    assert store.state.get() == {"a.txt": state("a.txt", 3, mode=0o100755)}


def test_get_many_paths(store: Store) -> None:
    paths = [f"d{n // 100}/f{n}.txt" for n in range(1234)]
    _set(store, paths)
    wanted = paths[::2] + [f"missing{n}" for n in range(700)]
    assert store.state.get(wanted) == {p: state(p) for p in paths[::2]}


def test_under_takes_exactly_the_paths_inside_the_directory(store: Store) -> None:
    _set(store, _AROUND_A + _INSIDE_A)
    assert sorted(store.state.under("a")) == sorted(_INSIDE_A)
    assert store.state.under("a")["a/x"] == state("a/x")
    assert sorted(store.state.under("a/b")) == ["a/b/c", "a/b/" + NOT_UTF8]
    assert sorted(store.state.under("a-b")) == ["a-b/x"]
    assert store.state.under("a/x") == {}
    assert store.state.under("nowhere") == {}


def test_under_a_directory_that_is_not_utf8(store: Store) -> None:
    inside = [NOT_UTF8 + "/x", NOT_UTF8 + "/" + NOT_UTF8, NOT_UTF8 + "/d/y"]
    _set(store, [NOT_UTF8, NOT_UTF8 + "0", NOT_UTF8 + "-b/x", *inside])
    assert sorted(store.state.under(NOT_UTF8)) == sorted(inside)


def test_stat_cache_put_get_and_delete(store: Store) -> None:
    with store.write():
        store.stat_cache.put([stat("a.txt"), stat(NOT_UTF8), stat("b.txt")])
    assert store.stat_cache.get() == {p: stat(p) for p in ["a.txt", "b.txt", NOT_UTF8]}
    assert store.stat_cache.get([NOT_UTF8, "missing"]) == {NOT_UTF8: stat(NOT_UTF8)}
    with store.write():
        store.stat_cache.put([stat("a.txt", ino=7)], deletes=[NOT_UTF8, "b.txt"])
    assert store.stat_cache.get() == {"a.txt": stat("a.txt", ino=7)}


_WINDOW = 1_000


@pytest.mark.parametrize(
    ("entry", "trusted"),
    [
        ({}, True),
        ({"checked_ns": 1_000 + _WINDOW + 1}, True),
        ({"checked_ns": 1_000 + _WINDOW}, False),  # hashed within the racy window
        ({"checked_ns": 1_000}, False),
        ({"mtime_ns": 999_500}, False),  # modified just before it was hashed
        ({"ctime_ns": 999_500}, False),
        ({"hash": "sha256:something else"}, False),  # describes other content
        ({"mode": 0o100755}, False),
    ],
)
def test_fingerprints_trust_only_safe_matching_entries(
    store: Store, entry: dict[str, Any], trusted: bool
) -> None:
    row = stat("a.txt", **entry)
    with store.write():
        store.state.set([state("a.txt")], ())
        store.stat_cache.put([row])
    expected = (row.size, row.mtime_ns, row.ino, row.ctime_ns) if trusted else None
    assert store.stat_cache.fingerprints(_WINDOW) == [("a.txt", 0o100644, expected)]
    assert store.stat_cache.fingerprints(_WINDOW, ["a.txt"]) == [("a.txt", 0o100644, expected)]
    stamp = (row.ino, row.ctime_ns) if trusted else (None, None)
    assert store.stat_cache.stamps(_WINDOW) == [("a.txt", *stamp)]


def test_fingerprints_cover_tracked_paths_only(store: Store) -> None:
    with store.write():
        store.state.set([state("a.txt"), state(NOT_UTF8, mode=0o100755), state("new")], ())
        store.stat_cache.put([stat("a.txt"), stat(NOT_UTF8, mode=0o100755), stat("gone")])
    expected = {
        "a.txt": ("a.txt", 0o100644, (10, 1_000, 42, 1_000)),
        NOT_UTF8: (NOT_UTF8, 0o100755, (10, 1_000, 42, 1_000)),
        "new": ("new", 0o100644, None),
    }
    assert sorted(store.stat_cache.fingerprints(_WINDOW)) == sorted(expected.values())
    chosen = store.stat_cache.fingerprints(_WINDOW, [NOT_UTF8, "new", "gone", "untracked"])
    assert sorted(chosen) == sorted([expected[NOT_UTF8], expected["new"]])
    assert store.stat_cache.fingerprints(_WINDOW, []) == []
    assert sorted(store.stat_cache.stamps(_WINDOW), key=str) == sorted(
        [("a.txt", 42, 1_000), (NOT_UTF8, 42, 1_000), ("new", None, None)], key=str
    )
