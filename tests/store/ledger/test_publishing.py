"""Publishing a snapshot to the ledger: the file its rows render to, streamed from the index."""

from __future__ import annotations

import hashlib
import os
import tracemalloc
from collections.abc import Iterator
from pathlib import Path

import pytest

from snapline.store import ChangeRow, SnapshotRow, SqliteStore
from snapline.store.ledger.files import SNAPSHOTS, Ledger, LedgerFileError
from snapline.store.ledger.format import render_snapshot, render_snapshot_parts
from snapline.store.ledger.opening import start_ledger
from snapline.store.ledger.store import LedgerStore
from tests.store.builders import NOT_UTF8

CONFIG = {"large_file_limit": 1024, "max_chain": 5}
ID = "3f2a9c0b5d6e4f718293a4b5c6d7e8f9"
HASH = "sha256:" + "c" * 64

# Paths whose order in Python differs from SQLite's: a name that is not UTF-8 is kept
# as bytes, which SQLite sorts after every text.
PATHS = ["a.txt", NOT_UTF8, NOT_UTF8 + "/x", "b\udcff.bin", "caf\u00e9.md", "z.txt", "\ue000"]


@pytest.fixture
def store(tmp_path: Path) -> Iterator[LedgerStore]:
    """An empty ledger store, as ``init`` starts one."""
    ledger = Ledger(tmp_path / "ledger")
    start_ledger(ledger, CONFIG)
    opened = LedgerStore(ledger, SqliteStore.create(tmp_path / "index.db", CONFIG))
    yield opened
    opened.close()


def _baseline() -> SnapshotRow:
    return SnapshotRow(
        0, ID, None, "2026-11-23T05:48:11.123456+00:00", "init", "baseline", None, "{}",
        "[]", 2, HASH,
    )  # fmt: skip


def _added(path: str) -> ChangeRow:
    digest = "sha256:" + hashlib.sha256(os.fsencode(path)).hexdigest()
    return ChangeRow(
        0, path, "added", None, None, digest, None, 0o100644, 10, "full", None, None, digest,
        0, 0,
    )  # fmt: skip


def _publish(store: LedgerStore, paths: Iterator[str] | list[str]) -> bytes:
    with store.write():
        store.snapshots.insert(_baseline(), ())
        store.changes.insert(_added(path) for path in paths)
    (name,) = store.ledger.names(SNAPSHOTS)
    return store.ledger.file(SNAPSHOTS, name).read_bytes()


def test_the_rows_stream_in_the_ledgers_path_order(store: LedgerStore) -> None:
    with store.write():
        store.snapshots.insert(_baseline(), [_added(path) for path in PATHS])
        streamed = list(store.index.changes.stream_of(0))
    assert streamed == sorted(store.index.changes.of(0), key=lambda change: change.path)
    assert [change.path for change in streamed] == sorted(PATHS)


def test_the_published_file_is_the_rendering_of_its_rows(store: LedgerStore) -> None:
    data = _publish(store, list(reversed(PATHS)))
    assert data == render_snapshot(_baseline(), [_added(path) for path in PATHS])


def test_a_baseline_is_published_without_holding_its_rows_or_its_file(
    store: LedgerStore,
) -> None:
    # A baseline's file is tens of megabytes at 100,000 files: its rows go from the
    # index to the file as it is written. Traced from just before the write commits,
    # publishing holds neither the rows (several times the file) nor the file.
    files = 10_000
    with store.write():
        store.snapshots.insert(_baseline(), ())
        for start in range(0, files, 1000):
            names = (f"src/package/module_{number:05d}.py" for number in range(start, start + 1000))
            store.changes.insert(_added(name) for name in names)
        tracemalloc.start()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    (name,) = store.ledger.names(SNAPSHOTS)
    size = store.ledger.file(SNAPSHOTS, name).stat().st_size
    assert size > 2_000_000
    assert peak < size / 10


def test_changes_out_of_order_are_not_rendered() -> None:
    parts = render_snapshot_parts(_baseline(), [_added("b"), _added("a")])
    with pytest.raises(ValueError, match="out of order: 'a'"):
        list(parts)
    with pytest.raises(ValueError, match="two changes to 'a'"):
        list(render_snapshot_parts(_baseline(), [_added("a"), _added("a")]))


def test_a_file_written_in_pieces_is_whole_or_absent(tmp_path: Path) -> None:
    ledger = Ledger(tmp_path / "ledger")
    ledger.write_new(SNAPSHOTS, "one", iter([b"ab", b"", b"cd"]))
    assert ledger.file(SNAPSHOTS, "one").read_bytes() == b"abcd"
    ledger.write_new(SNAPSHOTS, "one", [b"a", b"bcd"])  # the same bytes again: a repeat
    with pytest.raises(LedgerFileError, match="another file already has this name"):
        ledger.write_new(SNAPSHOTS, "one", [b"abc", b"e"])
    with pytest.raises(LedgerFileError, match="another file already has this name"):
        ledger.write_new(SNAPSHOTS, "one", [b"abcd", b"e"])

    def failing() -> Iterator[bytes]:
        yield b"half"
        raise ValueError("a row the ledger cannot write")

    with pytest.raises(ValueError, match="cannot write"):
        ledger.write_new(SNAPSHOTS, "two", failing())
    assert ledger.entries(SNAPSHOTS) == ["one"]
