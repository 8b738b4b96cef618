"""Revert: undo one snapshot, keep the later ones, report what overlaps and write nothing then."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given

from snapline import (
    BaselineRevertError,
    RevertConflictError,
    SnapshotNotFoundError,
    Workspace,
)
from snapline.snapshots.record import detect
from tests.snapshots.histories import OPS, Session
from tests.snapshots.trees import files, stats

LINES = [f"line {i}\n" for i in range(40)]


def _text(**changes: str) -> str:
    lines = list(LINES)
    for key, value in changes.items():
        lines[int(key[1:])] = value
    return "".join(lines)


@pytest.fixture
def edited(root: Path) -> Workspace:
    """notes.txt (40 lines) in the baseline; snapshot 1 edits line 5, snapshot 2 line 30."""
    (root / "notes.txt").write_text(_text())
    (root / "other.txt").write_text("untouched\n")
    ws = Workspace.init(root)
    ws.write_file("notes.txt", _text(l5="line five\n"))
    ws.write_file("notes.txt", _text(l5="line five\n", l30="line thirty\n"))
    return ws


def test_revert_keeps_later_edits_that_do_not_overlap(edited: Workspace) -> None:
    result = edited.revert(1)
    assert (edited.root / "notes.txt").read_text() == _text(l30="line thirty\n")
    assert result.restored == ("notes.txt",) and result.conflicts == ()
    assert result.snapshot is not None and result.snapshot.number == 3
    assert result.snapshot.tool == "revert" and result.snapshot.metadata["reverts"] == 1
    assert result.snapshot.description == "revert snapshot 1"
    assert edited.validate(deep=True).ok and edited.check_sync().ok


def test_revert_of_a_revert_restores_the_change(edited: Workspace) -> None:
    edited.revert(2)
    assert (edited.root / "notes.txt").read_text() == _text(l5="line five\n")
    edited.revert(3)
    assert (edited.root / "notes.txt").read_text() == _text(l5="line five\n", l30="line thirty\n")


def test_overlapping_later_edits_are_conflicts_and_nothing_is_written(edited: Workspace) -> None:
    edited.write_file("notes.txt", _text(l5="line FIVE\n", l30="line thirty\n"))
    edited.write_file("other.txt", "changed\n")
    edited.delete_file("other.txt")
    (edited.root / "new.txt").write_text("untracked\n")
    before_files, before_stats, latest = files(edited.root), stats(edited.root), edited.latest

    dry = edited.revert(1, dry_run=True)
    assert dry.snapshot is None and [c.path for c in dry.conflicts] == ["notes.txt"]
    assert dry.conflicts[0].kind == "hunks-failed"
    assert "1 of 1 hunks" in dry.conflicts[0].message

    with pytest.raises(RevertConflictError) as caught:
        edited.revert(1)
    assert caught.value.paths == ["notes.txt"] and caught.value.number == 1
    assert caught.value.exit_code == 1 and "notes.txt" in str(caught.value)
    assert files(edited.root) == before_files and stats(edited.root) == before_stats
    assert edited.latest == latest


def test_one_conflicting_file_blocks_the_whole_revert(root: Path) -> None:
    (root / "a.txt").write_text(_text())
    (root / "b.txt").write_text(_text())
    with Workspace.init(root) as ws:
        (root / "a.txt").write_text(_text(l1="A\n"))
        (root / "b.txt").write_text(_text(l1="B\n"))
        ws.record()
        ws.write_file("b.txt", _text(l1="B again\n"))
        with pytest.raises(RevertConflictError) as caught:
            ws.revert(1)
        assert caught.value.paths == ["b.txt"]
        assert (root / "a.txt").read_text() == _text(l1="A\n")  # not half reverted


def test_crlf_and_a_missing_final_newline_survive_the_patch(root: Path) -> None:
    crlf = "".join(line.replace("\n", "\r\n") for line in LINES[:20]) + "last, no newline"
    (root / "win.txt").write_bytes(crlf.encode())
    with Workspace.init(root) as ws:
        ws.write_file("win.txt", crlf.replace("line 3\r\n", "line three\r\n"))
        ws.write_file("win.txt", crlf.replace("line 3\r\n", "line three\r\n") + " (edited)")
        ws.revert(1)
        assert (root / "win.txt").read_bytes() == (crlf + " (edited)").encode()


def test_binary_files_revert_only_when_unchanged_since(root: Path) -> None:
    (root / "img.bin").write_bytes(b"\x00\x01" * 50)
    with Workspace.init(root) as ws:
        ws.write_file("img.bin", b"\x00\x02" * 50)
        ws.write_file("img.bin", b"\x00\x03" * 50)
        with pytest.raises(RevertConflictError) as caught:
            ws.revert(1)
        assert caught.value.conflicts[0].kind == "changed-since"
        assert "binary" in caught.value.conflicts[0].message
        ws.revert(2)
        assert (root / "img.bin").read_bytes() == b"\x00\x02" * 50
        ws.revert(1)
        assert (root / "img.bin").read_bytes() == b"\x00\x01" * 50


def test_an_added_file_is_deleted_only_if_unchanged(root: Path) -> None:
    (root / "keep.txt").write_text("keep\n")
    with Workspace.init(root) as ws:
        ws.write_file("new.txt", "new\n")
        ws.write_file("later.txt", "later\n")
        result = ws.revert(1)
        assert result.deleted == ("new.txt",) and not (root / "new.txt").exists()
        assert (root / "later.txt").exists()

        ws.write_file("again.txt", "v1\n")
        ws.write_file("again.txt", "v2\n")
        with pytest.raises(RevertConflictError) as caught:
            ws.revert(ws.latest - 1)
        assert caught.value.paths == ["again.txt"]
        assert caught.value.conflicts[0].kind == "changed-since"


def test_a_deleted_file_is_recreated_only_if_its_path_is_free(root: Path) -> None:
    (root / "gone.txt").write_bytes(b"old content, no newline")
    (root / "tool.sh").write_text("#!/bin/sh\n")
    (root / "tool.sh").chmod(0o755)
    with Workspace.init(root) as ws:
        ws.delete_file("gone.txt")
        ws.delete_file("tool.sh")
        ws.write_file("tool.sh", "a different file\n")
        result = ws.revert(1)
        assert result.recreated == ("gone.txt",)
        assert files(root)["gone.txt"] == ("file", b"old content, no newline")
        with pytest.raises(RevertConflictError) as caught:
            ws.revert(2)
        assert caught.value.paths == ["tool.sh"]


def test_a_file_where_a_directory_must_be_is_a_conflict(root: Path) -> None:
    (root / "a").mkdir()
    (root / "a" / "b.txt").write_text("b\n")
    with Workspace.init(root) as ws:
        ws.delete_file("a/b.txt")
        ws.write_file("a", "now a file\n")
        result = ws.revert(1, dry_run=True)
        assert [(c.path, c.kind) for c in result.conflicts] == [("a/b.txt", "in-the-way")]
        ws.revert(2)  # once the file is gone, the deletion can be undone
        ws.revert(1)
        assert files(root) == {"a/b.txt": ("file", b"b\n")}


def test_an_unreadable_file_blocks_a_revert_only_at_a_path_it_touches(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The suite runs as root, which reads every file: the OS's refusal is made where
    # snapline reads a file. "d" was a file that snapshot 1 added; today it is a
    # directory, and what lies beneath it is no path the revert touches.
    real = detect.read_disk_file
    unreadable = {"d/inner.txt"}

    def refusing(path: Path, relpath: str, *args: Any, **kwargs: Any) -> Any:
        if relpath in unreadable:
            raise PermissionError(13, "Permission denied", str(path))
        return real(path, relpath, *args, **kwargs)

    monkeypatch.setattr(detect, "read_disk_file", refusing)
    (root / "a.txt").write_text("a\n")
    with Workspace.init(root) as ws:
        (root / "d").write_text("a file\n")
        (root / "a.txt").write_text("a, edited\n")
        ws.record()  # 1: adds d, edits a.txt
        ws.delete_file("d")
        ws.write_file("d/inner.txt", "inner\n")
        promised = ws.revert(1, dry_run=True)
        assert promised.conflicts == ()
        done = ws.revert(1)
        assert done.restored == ("a.txt",)
        assert (root / "a.txt").read_text() == "a\n"
        assert (root / "d" / "inner.txt").read_text() == "inner\n"
        # A touched path that cannot be read is a conflict, and nothing is written.
        ws.write_file("a.txt", "a, again\n")
        unreadable.add("a.txt")
        (root / "a.txt").write_text("a, changed outside\n")
        with pytest.raises(RevertConflictError) as caught:
            ws.revert(ws.latest)
    assert [(c.path, c.kind) for c in caught.value.conflicts] == [("a.txt", "unreadable")]
    assert (root / "a.txt").read_text() == "a, changed outside\n"


def test_a_rename_is_moved_back_keeping_later_edits(root: Path) -> None:
    (root / "src").mkdir()
    (root / "src" / "mod.py").write_text(_text())
    with Workspace.init(root) as ws:
        ws.move_file("src/mod.py", "lib/mod.py")
        ws.write_file("lib/mod.py", _text(l20="edited after the move\n"))
        ws.move_file("lib/mod.py", "lib/module.py")
        result = ws.revert(1)
        assert [(m.source, m.target) for m in result.moved] == [("lib/module.py", "src/mod.py")]
        assert files(root) == {
            "src/mod.py": ("file", _text(l20="edited after the move\n").encode())
        }
        assert result.snapshot is not None
        back = result.snapshot.file("src/mod.py")
        assert back is not None and back.old_path == "lib/module.py"
        assert ws.validate(deep=True).ok and ws.check_sync().ok


def test_a_rename_comes_back_after_a_rollback_and_its_undo_went_over_it(root: Path) -> None:
    # Found by the replay of diff-so-fancy (make test-deep): the rollback records the
    # renamed file as deleted (its old path did not exist then either), the undo as
    # added, and revert took that for a file replaced since, though it is the same.
    (root / "keep.txt").write_text("keep\n")
    with Workspace.init(root) as ws:
        ws.write_file("third_party/color.pl", _text())
        ws.move_file("third_party/color.pl", "test/color.pl")
        ws.rollback(0)
        ws.undo()
        result = ws.revert(2)
        assert [(m.source, m.target) for m in result.moved] == [
            ("test/color.pl", "third_party/color.pl")
        ]
        assert files(root) == {
            "keep.txt": ("file", b"keep\n"),
            "third_party/color.pl": ("file", _text().encode()),
        }
        assert ws.validate(deep=True).ok and ws.check_sync().ok


def test_a_move_that_overwrote_a_file_brings_that_file_back(root: Path) -> None:
    (root / "a.txt").write_text("a\n")
    (root / "b.txt").write_text("b\n")
    with Workspace.init(root) as ws:
        ws.move_file("a.txt", "b.txt", overwrite=True)
        ws.revert(1)
        assert files(root) == {"a.txt": ("file", b"a\n"), "b.txt": ("file", b"b\n")}


def test_a_rename_is_found_where_later_renames_took_it_not_at_a_new_file_of_its_name(
    root: Path,
) -> None:
    # Snapshot 1 moves a.txt to b.txt, 2 moves it on to c.txt, and 3 adds an unrelated
    # b.txt: reverting 1 moves c.txt back, and the new b.txt is not n's file.
    (root / "a.txt").write_text(_text())
    with Workspace.init(root) as ws:
        ws.move_file("a.txt", "b.txt")
        ws.move_file("b.txt", "c.txt")
        ws.write_file("b.txt", "a different file\n")
        result = ws.revert(1)
        assert [(m.source, m.target) for m in result.moved] == [("c.txt", "a.txt")]
        assert files(root) == {
            "a.txt": ("file", _text().encode()),
            "b.txt": ("file", b"a different file\n"),
        }
        assert ws.validate(deep=True).ok and ws.check_sync().ok


def test_a_rename_moved_back_is_recorded_from_where_it_was_not_from_a_look_alike(
    root: Path,
) -> None:
    # Snapshot 1 (a shell change) moves src/a.txt to dst/b.txt and adds zzz.txt with the
    # same bytes; 2 moves dst/b.txt on to zzzz/b.txt. Reverting 1 deletes zzz.txt and moves
    # zzzz/b.txt back: two deleted files with src/a.txt's bytes, so only the revert's own
    # pairing says which one moved.
    (root / "src").mkdir()
    (root / "src" / "a.txt").write_text(_text())
    with Workspace.init(root) as ws:
        (root / "dst").mkdir()
        (root / "src" / "a.txt").rename(root / "dst" / "b.txt")
        (root / "zzz.txt").write_text(_text())
        first = ws.record()
        assert first is not None and first.file("dst/b.txt") is not None
        assert first.file("dst/b.txt").old_path == "src/a.txt"  # type: ignore[union-attr]
        ws.move_file("dst/b.txt", "zzzz/b.txt")
        result = ws.revert(1)
        assert files(root) == {"src/a.txt": ("file", _text().encode())}
        assert result.snapshot is not None
        back = result.snapshot.file("src/a.txt")
        assert back is not None and back.old_path == "zzzz/b.txt"
        assert ws.validate(deep=True).ok and ws.check_sync().ok


def test_a_content_and_mode_change_whose_content_was_taken_back_reverts_the_mode(
    root: Path,
) -> None:
    (root / "run.sh").write_text(_text())
    with Workspace.init(root) as ws:
        ws.write_file("run.sh", _text(l2="edited\n"), executable=True)
        ws.write_file("run.sh", _text(), executable=True)  # the content edit taken back
        result = ws.revert(1)
        assert result.restored == ("run.sh",)
        assert files(root) == {"run.sh": ("file", _text().encode())}
        assert not os.access(root / "run.sh", os.X_OK)
        assert ws.validate(deep=True).ok and ws.check_sync().ok


def test_an_added_file_is_deleted_where_later_renames_took_it(root: Path) -> None:
    (root / "keep.txt").write_text("keep\n")
    with Workspace.init(root) as ws:
        ws.write_file("new.txt", _text())
        ws.move_file("new.txt", "moved/new.txt")
        result = ws.revert(1)
        assert result.deleted == ("moved/new.txt",)
        assert files(root) == {"keep.txt": ("file", b"keep\n")}
        assert ws.validate(deep=True).ok and ws.check_sync().ok


def test_a_mode_change_is_reverted_under_a_later_content_edit(root: Path) -> None:
    (root / "run.sh").write_text(_text())
    with Workspace.init(root) as ws:
        ws.write_file("run.sh", _text(), executable=True)
        ws.write_file("run.sh", _text(l2="edited\n"))
        ws.revert(1)
        assert files(root)["run.sh"] == ("file", _text(l2="edited\n").encode())


def test_outside_changes_to_the_files_involved_are_conflicts(edited: Workspace) -> None:
    (edited.root / "notes.txt").write_text("outside\n")
    with pytest.raises(RevertConflictError) as caught:
        edited.revert(1)
    assert caught.value.conflicts[0].kind == "modified"
    assert (edited.root / "notes.txt").read_text() == "outside\n"


def test_a_change_already_undone_records_nothing(edited: Workspace) -> None:
    edited.write_file("notes.txt", _text(l30="line thirty\n"))  # line 5 undone by hand
    result = edited.revert(1)
    assert result.snapshot is None and result.restored == () and edited.latest == 3


def test_the_baseline_and_unknown_snapshots_cannot_be_reverted(edited: Workspace) -> None:
    with pytest.raises(BaselineRevertError):
        edited.revert(0)
    with pytest.raises(SnapshotNotFoundError):
        edited.revert(9)


@given(ops=OPS)
def test_reverting_the_latest_snapshot_is_rolling_back_one(ops) -> None:  # type: ignore[no-untyped-def]
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "ws"
        (root / "dir").mkdir(parents=True)
        (root / "a.txt").write_bytes(b"baseline\n")
        (root / "dir" / "c.txt").write_bytes(b"c\r\n")
        with Workspace.init(root) as ws:
            session = Session(ws)
            for op in ops:
                session.apply(op)
            latest = ws.latest
            if latest == 0:
                return
            result = ws.revert(latest)
            assert files(root) == session.states[latest - 1]
            assert result.snapshot is not None and result.conflicts == ()
            ws.revert(result.snapshot.number)
            assert files(root) == session.states[latest]
            assert ws.check_sync().ok and ws.validate(deep=True).ok
