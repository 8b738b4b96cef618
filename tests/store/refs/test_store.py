"""The refs store: each committed write's snapshots on their line's ref, the index a cache."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from snapline.hashing import hash_bytes
from snapline.store.ledger.milestone_format import render_milestone
from snapline.store.refs.edits import UnpublishableError
from snapline.store.refs.git import GitRepository, RefConflictError
from snapline.store.refs.layout import line_ref, milestones_ref
from snapline.store.refs.reading import read_line, read_milestones
from snapline.store.refs.store import LineMovedError, RefsStore
from snapline.store.refs.writing import StateEdit, append_milestone, append_snapshot
from snapline.store.rows import MilestoneRow, SnapshotRow
from tests.store.refs.lines import git, git_bytes, make_repo
from tests.store.refs.recording import Writer, change_row, open_refs_store

BASE = {"README.md": b"# a project\n", "src/app.py": b"print('hello')\nprint('bye')\n"}


@pytest.fixture
def work_tree(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "work", BASE)


@pytest.fixture
def store(work_tree: Path) -> Iterator[RefsStore]:
    opened = open_refs_store(work_tree, create=True)
    yield opened
    opened.close()


def _history(store: RefsStore) -> Writer:
    """A baseline of the checkout, then an edit, a binary, a rename and a deletion."""
    writer = Writer(store)
    writer.snapshot(dict(BASE))
    writer.snapshot({"src/app.py": b"print('hello')\nprint('world')\nprint('bye')\n"})
    writer.snapshot({"logo.png": b"\x89PNG\x00\x01\x02", "notes.txt": b"one\n"})
    writer.snapshot({}, renames={"docs/README.md": "README.md"})
    writer.snapshot({"notes.txt": None})
    _milestone(store, 1, 0, 2)
    _milestone(store, 2, 3, 4)
    return writer


def _milestone(store: RefsStore, number: int, first: int, last: int) -> MilestoneRow:
    row = MilestoneRow(
        number=number,
        title=f"milestone {number}",
        description="",
        tags='["t"]',
        time="2026-11-28T17:01:00.000000+00:00",
        first=first,
        last=last,
        version=1,
        chain_hash=hash_bytes(f"milestone {number}".encode()),
    )
    with store.write():
        store.milestones.insert(row)
    return row


def _index(store: RefsStore) -> list[tuple[SnapshotRow, list[Any]]]:
    return [(row, store.changes.of(row.number)) for row in store.snapshots.select()]


def _line(store: RefsStore) -> list[tuple[SnapshotRow, list[Any]]]:
    line = store.main_line()
    assert line is not None
    return [(s.record.row, list(s.record.changes)) for s in read_line(store.repo, line)]


def test_the_ref_holds_exactly_what_the_index_holds(store: RefsStore) -> None:
    writer = _history(store)
    assert len(_index(store)) == 5
    assert _line(store) == _index(store)
    # The last state is the files as written, git's own blobs: an oracle we did not write.
    line = read_line(store.repo, store.main_line() or "")
    state = dict(store.repo.walk(line[-1].state))
    assert {path: store.repo.read_blob(e.id) for path, e in state.items()} == writer.files


def test_milestones_are_on_the_lines_milestones_ref(store: RefsStore, work_tree: Path) -> None:
    _history(store)
    line = store.main_line() or ""
    on_ref = read_milestones(store.repo, line)
    assert [m.row for m in on_ref] == store.milestones.all()
    last = store.snapshots.get(4)
    assert last is not None
    second = store.snapshots.get(2)
    assert second is not None
    assert [m.last_id for m in on_ref] == [second.id, last.id]
    shown = git_bytes(work_tree, "show", f"refs/snapline/milestones/{line}:record")
    assert shown == render_milestone(store.milestones.all()[1], last.id)
    assert git(work_tree, "log", "--format=%s", f"refs/snapline/milestones/{line}").split("\n")[
        :2
    ] == ["snapline milestone 2: milestone 2", "snapline milestone 1: milestone 1"]


def test_a_milestone_after_another_writers_is_refused(store: RefsStore) -> None:
    _history(store)
    line = store.main_line() or ""
    last = store.snapshots.get(4)
    assert last is not None
    theirs = store.milestones.all()[1]._replace(number=3, title="theirs")
    append_milestone(store.repo, line, theirs, last.id, tip=store.repo.ref(milestones_ref(line)))
    with pytest.raises(LineMovedError) as caught:
        _milestone(store, 3, 0, 4)
    assert (caught.value.what, caught.value.found, caught.value.expected) == ("milestone", "3", "2")
    assert [m.number for m in store.milestones.all()] == [1, 2]
    assert store.refresh()
    assert store.milestones.get(3) == theirs


def test_a_baseline_of_a_clean_checkout_is_heads_tree(store: RefsStore, work_tree: Path) -> None:
    Writer(store).snapshot(dict(BASE))
    (snapshot,) = read_line(store.repo, store.main_line() or "")
    assert snapshot.state == git(work_tree, "rev-parse", "HEAD^{tree}").strip()


def test_nothing_is_written_into_the_work_tree(store: RefsStore, work_tree: Path) -> None:
    _history(store)
    assert git(work_tree, "status", "--porcelain", "--ignored", "--untracked-files=all") == ""


def test_a_line_moved_by_another_writer_rolls_the_write_back(store: RefsStore) -> None:
    writer = Writer(store)
    baseline = writer.snapshot(dict(BASE))
    ref = line_ref(baseline.id)
    theirs = _append_elsewhere(store.repo, baseline)
    with pytest.raises(LineMovedError) as caught:
        writer.snapshot({"README.md": b"mine\n"})
    assert caught.value.exit_code == 1
    assert caught.value.found == theirs.id
    assert "another writer recorded first" in str(caught.value)
    assert store.snapshots.latest_number() == 0  # the index transaction rolled back
    assert [s.record.row.id for s in read_line(store.repo, baseline.id)] == [
        baseline.id,
        theirs.id,
    ]
    assert store.stale()
    assert store.refresh()  # the other writer's snapshot comes into the index
    assert [row.id for row in store.snapshots.select()] == [baseline.id, theirs.id]
    assert store.state.get(["README.md"])["README.md"].hash == hash_bytes(b"theirs\n")
    assert store.repo.ref(ref) is not None
    writer.files["README.md"] = b"theirs\n"  # as the recorder would find the file
    writer.snapshot({"README.md": b"mine\n"})  # and this writer records on the new tip
    assert _line(store) == _index(store)


def test_a_ref_moved_during_the_write_is_a_conflict(
    store: RefsStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    writer = Writer(store)
    baseline = writer.snapshot(dict(BASE))
    real = append_snapshot

    def racing(repo: GitRepository, *args: Any, **kwargs: Any) -> str:
        _append_elsewhere(repo, baseline)  # another writer wins between the read and the CAS
        return real(repo, *args, **kwargs)

    monkeypatch.setattr("snapline.store.refs.store.append_snapshot", racing)
    with pytest.raises(RefConflictError):
        writer.snapshot({"README.md": b"mine\n"})
    assert store.snapshots.latest_number() == 0


def test_a_crash_after_the_ref_moved_leaves_the_ref_the_truth(
    store: RefsStore, work_tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    writer = _history(store)
    real = append_snapshot
    moved: list[str] = []

    def then_crash(*args: Any, **kwargs: Any) -> str:
        moved.append(real(*args, **kwargs))
        raise KeyboardInterrupt  # killed before the index commits

    monkeypatch.setattr("snapline.store.refs.store.append_snapshot", then_crash)
    with pytest.raises(KeyboardInterrupt):
        writer.snapshot({"src/app.py": b"print('crashed')\n"})
    monkeypatch.undo()
    mark = read_line(store.repo, store.main_line() or "")[4].commit
    store.close()
    reads: list[str | None] = []

    def reading(repo: GitRepository, line: str, *, after: str | None = None) -> Any:
        reads.append(after)
        return read_line(repo, line, after=after)

    monkeypatch.setattr("snapline.store.refs.catchup.read_line", reading)
    reopened = open_refs_store(work_tree)
    try:
        assert reopened.snapshots.latest_number() == 4
        assert reopened.tip() == moved[0]
        assert reopened.stale()
        assert reopened.refresh()
        assert reads == [mark]  # only what follows the index's mark was read
        assert not reopened.stale()
        assert reopened.snapshots.latest_number() == 5
        assert _line(reopened) == _index(reopened)
        app = reopened.state.get(["src/app.py"])["src/app.py"]
        assert (app.hash, app.snapshot) == (hash_bytes(b"print('crashed')\n"), 5)
    finally:
        reopened.close()


def test_an_empty_index_is_rebuilt_from_the_ref(store: RefsStore, work_tree: Path) -> None:
    _history(store)
    expected = (
        _index(store),
        store.state.get(),
        sorted(store.blobs.hashes()),
        store.milestones.all(),
    )
    index = store.index.path
    store.close()
    for name in (index.name, index.name + "-wal", index.name + "-shm"):
        (index.parent / name).unlink(missing_ok=True)
    rebuilt = open_refs_store(work_tree, create=True)
    try:
        assert rebuilt.snapshots.latest_number() is None
        assert rebuilt.refresh()
        assert not rebuilt.refresh()  # nothing more to add
        assert (
            _index(rebuilt),
            rebuilt.state.get(),
            sorted(rebuilt.blobs.hashes()),
            rebuilt.milestones.all(),
        ) == expected
        assert len(expected[3]) == 2
    finally:
        rebuilt.close()


def test_a_version_kept_by_hash_only_is_refused_whole(store: RefsStore) -> None:
    writer = Writer(store)
    baseline = writer.snapshot(dict(BASE))
    tip = store.tip()
    with pytest.raises(UnpublishableError) as caught:
        writer.snapshot({"big.bin": b"x" * 2000}, hash_only=("big.bin",))
    assert caught.value.file == "big.bin"
    assert "hash only" in str(caught.value)
    assert store.snapshots.latest_number() == 0
    assert store.tip() == tip
    assert store.repo.ref(line_ref(baseline.id)) == tip


def _append_elsewhere(repo: GitRepository, baseline: SnapshotRow) -> SnapshotRow:
    """Snapshot 1 appended to the line by another writer, not through this index."""
    data = b"theirs\n"
    row = baseline._replace(number=1, id="f" * 32, parent_id=baseline.id, description="theirs")
    old = BASE["README.md"]
    changes = [change_row(1, "README.md", old, data, "modified")]
    tip = repo.ref(line_ref(baseline.id))
    append_snapshot(repo, baseline.id, row, changes, [StateEdit("README.md", data)], tip=tip)
    return row


def test_a_published_snapshot_is_not_changed_afterwards(store: RefsStore) -> None:
    baseline = Writer(store).snapshot(dict(BASE))
    tip = store.tip()
    late = change_row(0, "late.txt", None, b"late\n", "added")
    with pytest.raises(RuntimeError, match="on its line already"), store.write():
        store.changes.insert([late])
    with pytest.raises(RuntimeError, match="on its line already"), store.write():
        store.snapshots.seal(0, "[]", baseline.chain_hash)
    assert [c.path for c in store.changes.of(0)] == sorted(BASE)
    assert store.tip() == tip
    assert _line(store) == _index(store)
