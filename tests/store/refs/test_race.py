"""Two writers on one line: one wins, the other is told (compare-and-swap), none is lost."""

from __future__ import annotations

import multiprocessing
from pathlib import Path

import pytest

from snapline.store.refs.git import RefConflictError, open_repository
from snapline.store.refs.layout import line_ref
from snapline.store.refs.reading import read_line
from tests.store.refs.lines import Line, git, make_repo

FILES = {"a.txt": b"a\n"}


def _follow(root: Path, line: Line) -> Line:
    """A second writer that has read the line as it is now."""
    other = Line.at(root)
    other.line, other.tip = line.line, line.tip
    other.rows, other.changes, other.files = list(line.rows), list(line.changes), dict(line.files)
    return other


def test_the_second_writer_on_a_moved_tip_gets_a_conflict(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", FILES)
    first = Line.at(root)
    first.snapshot(dict(FILES), tool="init")
    second = _follow(root, first)
    tip = first.tip
    winner = first.snapshot({"a.txt": b"first\n"}, description="first writer")
    with pytest.raises(RefConflictError) as caught:
        second.snapshot({"a.txt": b"second\n"}, description="second writer")
    assert caught.value.expected == tip
    assert caught.value.actual == winner
    assert caught.value.exit_code == 1
    assert "nothing was lost" in str(caught.value)
    ref = line_ref(first.line or "")
    assert git(root, "rev-parse", ref).strip() == winner
    # The loser reads the line again and records on its new tip: both snapshots stay.
    again = _follow(root, first)
    again.snapshot({"a.txt": b"second\n"}, description="second writer")
    snapshots = read_line(again.repo, first.line or "")
    assert [s.record.row.description for s in snapshots] == [
        "an edit",
        "first writer",
        "second writer",
    ]
    assert [s.record.row.number for s in snapshots] == [0, 1, 2]


def test_a_new_line_is_created_once(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", FILES)
    first = Line.at(root)
    first.snapshot(dict(FILES), tool="init")
    copy = Line.at(root)
    # The same line id started a second time: the ref exists, the writer is told.
    with pytest.raises(RefConflictError) as caught:
        copy.repo.set_ref(line_ref(first.line or ""), first.tip or "", None, "again")
    assert caught.value.expected is None
    assert caught.value.actual == first.tip


def test_a_held_lock_is_a_conflict_not_a_wait_or_a_loss(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", FILES)
    line = Line.at(root)
    line.snapshot(dict(FILES), tool="init")
    ref = line_ref(line.line or "")
    lock = root / ".git" / f"{ref}.lock"
    lock.write_text("held by another writer\n")
    tip = line.tip
    with pytest.raises(RefConflictError) as caught:
        line.snapshot({"a.txt": b"b\n"})
    assert caught.value.actual is None
    assert "someone else holding its lock" in str(caught.value)
    assert git(root, "rev-parse", ref).strip() == tip
    assert lock.read_text() == "held by another writer\n"
    lock.unlink()


def _writer(root: str, line: str, name: str, count: int) -> int:
    """Append ``count`` snapshots to ``line``, each read fresh, retrying on a conflict."""
    repo = open_repository(Path(root))
    path, written, conflicts = f"{name}.txt", 0, 0
    while written < count:
        last = read_line(repo, line)[-1]
        old = repo.read_path(last.state, path)
        writer = Line(repo, line, last.commit)
        writer.rows = [last.record.row]
        writer.files = {} if old is None else {path: old}
        try:
            writer.snapshot(
                {path: (old or b"") + b"%d\n" % written}, tool=name, description=f"{name} {written}"
            )
        except RefConflictError:
            conflicts += 1
            continue
        written += 1
    return conflicts


def test_parallel_writers_never_lose_a_snapshot(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", FILES)
    line = Line.at(root)
    line.snapshot(dict(FILES), tool="init")
    writers, count = ["w0", "w1", "w2", "w3"], 6
    context = multiprocessing.get_context("spawn")
    with context.Pool(len(writers)) as pool:
        pool.starmap(_writer, [(str(root), line.line, name, count) for name in writers])
    snapshots = read_line(line.repo, line.line or "")
    assert [s.record.row.number for s in snapshots] == list(range(1 + len(writers) * count))
    descriptions = sorted(s.record.row.description for s in snapshots[1:])
    assert descriptions == sorted(f"{name} {n}" for name in writers for n in range(count))
    for name in writers:
        expected = b"".join(b"%d\n" % n for n in range(count))
        assert line.repo.read_path(snapshots[-1].state, f"{name}.txt") == expected
