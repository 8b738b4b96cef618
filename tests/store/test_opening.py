"""Creating and opening a store: configuration, format versions, files that are not stores.

A file that is not a store, or a store too new to read, is refused and left as it was.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from snapline.store import (
    FORMAT_VERSION,
    AccessProblem,
    Store,
    StoreAccessError,
    StoreCorruptError,
    StoreVersionError,
)
from tests.store.backends import Backend
from tests.store.builders import record
from tests.store.conftest import BUSY, CONFIG


def _files(directory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir()) if p.is_file()}


def test_a_new_store_is_empty_and_keeps_its_configuration(store: Store, location: Path) -> None:
    assert store.path == location
    assert store.config() == CONFIG
    assert store.format_version() == FORMAT_VERSION
    assert store.snapshots.latest_number() is None
    assert store.snapshots.select() == []
    assert store.changes.in_range(0, 100) == []
    assert store.blobs.hashes() == []
    assert store.state.get() == {}
    assert store.stat_cache.get() == {}
    assert store.milestones.all() == []
    assert store.journal.entries() == []


def test_a_reopened_store_holds_what_was_committed(
    backend: Backend, store: Store, location: Path
) -> None:
    row = record(store, 0)
    store.close()
    reopened = backend.open(location, BUSY)
    try:
        assert reopened.config() == CONFIG
        assert reopened.format_version() == FORMAT_VERSION
        assert reopened.snapshots.get(0) == row
    finally:
        reopened.close()


def test_a_newer_format_is_refused_and_left_untouched(
    backend: Backend, store: Store, location: Path
) -> None:
    store.close()
    backend.declare_version(location, FORMAT_VERSION + 1)
    before = location.read_bytes()
    with pytest.raises(StoreVersionError) as caught:
        backend.open(location, BUSY)
    assert caught.value.found == FORMAT_VERSION + 1
    assert caught.value.path == str(location)
    assert str(FORMAT_VERSION + 1) in str(caught.value)
    assert location.read_bytes() == before


@pytest.mark.parametrize(
    "content",
    [b"", b"this is not a store\n" * 200, b"SQLite format 3\x00" + b"\x00" * 100],
    ids=["empty", "text", "damaged-header"],
)
def test_a_file_that_is_not_a_store_is_refused_and_left_untouched(
    backend: Backend, location: Path, content: bytes
) -> None:
    beside = _files(location.parent)  # the local state's other files (a .gitignore)
    location.write_bytes(content)
    with pytest.raises(StoreCorruptError) as caught:
        backend.open(location, BUSY)
    assert not isinstance(caught.value, StoreVersionError)
    assert caught.value.path == str(location)
    assert caught.value.detail
    assert _files(location.parent) == {**beside, location.name: content}


def test_another_database_is_refused_and_left_untouched(backend: Backend, location: Path) -> None:
    with sqlite3.connect(location) as db:
        db.execute("CREATE TABLE notes (text TEXT)")
        db.execute("INSERT INTO notes VALUES ('mine')")
    db.close()
    before = _files(location.parent)
    with pytest.raises(StoreCorruptError):
        backend.open(location, BUSY)
    assert _files(location.parent) == before


def test_a_missing_store_is_refused_and_not_created(backend: Backend, location: Path) -> None:
    # Not a damaged store: one that cannot be opened, said as such (no advice to start over).
    beside = sorted(location.parent.iterdir())  # the private repository, its .gitignore
    with pytest.raises(StoreAccessError) as caught:
        backend.open(location, BUSY)
    assert caught.value.problem is AccessProblem.OPEN
    assert sorted(location.parent.iterdir()) == beside
    assert not location.exists()


def test_a_sound_store_has_no_integrity_problems(store: Store) -> None:
    record(store, 0)
    assert store.integrity_problems() == []
