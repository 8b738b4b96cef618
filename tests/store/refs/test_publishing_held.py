"""Publishing on git's refs without reading back: held bytes, and a catch-up at its mark.

A record hands the refs store the new versions it holds (``SnapshotWriter.insert``'s
``contents``), which go into the line's ``state`` as they are once their SHA-256 is the
recorded one; and a command's catch-up with nothing to take in neither parses the
line's latest record nor rewrites the index's marks (row R8, R5 of the benchmarks).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

import snapline.store.refs.reading as reading
from snapline.hashing import hash_bytes
from snapline.store.refs.edits import UnpublishableError
from snapline.store.refs.layout import STATE, line_ref
from snapline.store.refs.store import RefsStore
from snapline.store.rows import SnapshotRow
from tests.store.refs.lines import make_repo
from tests.store.refs.recording import Writer, open_refs_store, stored_change

BASE = {"README.md": b"# a project\n", "src/app.py": b"print('hello')\nprint('bye')\n"}
NEW = b"print('hello')\nprint('held')\nprint('bye')\n"


@pytest.fixture
def store(tmp_path: Path) -> Iterator[RefsStore]:
    opened = open_refs_store(make_repo(tmp_path / "work", BASE), create=True)
    yield opened
    opened.close()


def _next_row(store: RefsStore) -> SnapshotRow:
    latest = store.snapshots.latest_number()
    assert latest is not None
    previous = store.snapshots.get(latest)
    assert previous is not None
    return SnapshotRow(
        number=latest + 1,
        id=uuid.uuid4().hex,
        parent_id=previous.id,
        time="2026-11-29T01:00:00.000000+00:00",
        tool="edit",
        description="held",
        session=None,
        metadata="{}",
        skipped="[]",
        version=2,
        chain_hash=hash_bytes(previous.chain_hash.encode()),
        merges="[]",
    )


def _state_file(store: RefsStore, path: str) -> bytes | None:
    tip = store.tip()
    assert tip is not None
    state = store.repo.entry(store.repo.read_commit(tip).tree, STATE)
    assert state is not None
    return store.repo.read_path(state.id, path)


def test_held_bytes_become_the_state_as_the_delta_rebuilds_them(store: RefsStore) -> None:
    Writer(store).snapshot(dict(BASE))
    row = _next_row(store)
    change = stored_change(row.number, "src/app.py", BASE["src/app.py"], NEW)
    assert change.storage == "delta"
    with store.write():
        store.snapshots.insert(row, [change], {hash_bytes(NEW): NEW})
    assert _state_file(store, "src/app.py") == NEW
    assert _state_file(store, "README.md") == BASE["README.md"]


def test_held_bytes_other_than_the_recorded_version_are_refused(store: RefsStore) -> None:
    baseline = Writer(store).snapshot(dict(BASE))
    tip = store.tip()
    row = _next_row(store)
    change = stored_change(row.number, "src/app.py", BASE["src/app.py"], NEW)
    with pytest.raises(UnpublishableError) as caught, store.write():
        # Handed under the recorded hash, but other bytes: they never enter a tree.
        store.snapshots.insert(row, [change], {hash_bytes(NEW): b"print('other')\n"})
    assert caught.value.file == "src/app.py"
    assert hash_bytes(NEW) in str(caught.value)
    assert store.snapshots.latest_number() == 0
    assert store.repo.ref(line_ref(baseline.id)) == tip


def test_a_catch_up_at_the_mark_reads_no_record_and_writes_no_row(
    store: RefsStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    writer = Writer(store)
    writer.snapshot(dict(BASE))
    writer.snapshot({"src/app.py": NEW})
    parsed: list[bytes] = []
    parse = reading.parse_snapshot

    def counting(data: bytes) -> object:
        parsed.append(data)
        return parse(data)

    monkeypatch.setattr(reading, "parse_snapshot", counting)
    changes = store.index.connection.db.total_changes
    assert store.refresh() is False
    assert parsed == []
    assert store.index.connection.db.total_changes == changes
