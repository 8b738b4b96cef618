"""What a refused restore tells the person, and which paths a rollback takes for typos.

A refusal is one line the person acts on (what, which path, what to do), so its words
are checked whole here; which scope is a typo is checked against the disk.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from snapline import (
    BaselineRevertError,
    NothingToRedoError,
    NothingToUndoError,
    RevertConflictError,
    RollbackConflictError,
    UnknownPathError,
    Workspace,
)

LINES = [f"line {i}\n" for i in range(40)]


def _text(**changes: str) -> str:
    lines = list(LINES)
    for key, value in changes.items():
        lines[int(key[1:])] = value
    return "".join(lines)


def test_the_baseline_cannot_be_reverted(root: Path) -> None:
    (root / "a.txt").write_text("a\n")
    with Workspace.init(root) as ws, pytest.raises(BaselineRevertError) as caught:
        ws.revert(0)
    assert caught.value.number == 0
    assert str(caught.value) == (
        "snapshot 0 is the baseline, not a change; to return to it, roll back to 0"
    )


def test_a_revert_names_the_hunks_that_overlap_later_edits(root: Path) -> None:
    (root / "notes.txt").write_text(_text())
    with Workspace.init(root) as ws:
        ws.write_file("notes.txt", _text(l5="line five\n", l30="line thirty\n"))
        ws.write_file("notes.txt", _text(l5="line FIVE\n", l30="line thirty\n"))
        with pytest.raises(RevertConflictError) as caught:
            ws.revert(1)
    # Of snapshot 1's two hunks, line 30 could be taken out; line 5 was edited since.
    message = (
        "1 of 2 hunks of snapshot 1's change to notes.txt overlap edits made since in the "
        "same lines, so they cannot be taken out cleanly; edit it by hand"
    )
    assert caught.value.conflicts[0].message == message
    assert str(caught.value) == f"revert of snapshot 1 refused, nothing was written: {message}"


def test_a_revert_of_a_binary_changed_since_says_so(root: Path) -> None:
    (root / "img.bin").write_bytes(b"\x00\x01" * 50)
    with Workspace.init(root) as ws:
        ws.write_file("img.bin", b"\x00\x02" * 50)
        ws.write_file("img.bin", b"\x00\x03" * 50)
        with pytest.raises(RevertConflictError) as caught:
            ws.revert(1)
    assert caught.value.conflicts[0].message == (
        "img.bin is binary and was changed after snapshot 1, so that snapshot's change "
        "cannot be taken out of it; edit it by hand"
    )


def test_a_refusal_names_the_first_conflict_and_counts_the_others(root: Path) -> None:
    for name in ("a.txt", "b.txt", "c.txt"):
        (root / name).write_text("recorded\n")
    with Workspace.init(root) as ws:
        ws.write_file("a.txt", "snapshot 1\n")
        for count, name in enumerate(("a.txt", "b.txt", "c.txt"), start=1):
            (root / name).write_text("outside work\n")
            with pytest.raises(RollbackConflictError) as caught:
                ws.rollback(0)
            first = caught.value.conflicts[0].message
            more = f" (and {count - 1} more)" if count > 1 else ""
            assert len(caught.value.conflicts) == count
            problem = f"rollback to snapshot 0 refused, nothing was written: {first}{more}"
            assert caught.value.problem == problem
            # The library's way out names its own argument (the command line: --force).
            assert str(caught.value) == (
                f"{problem}; record the outside changes first (Workspace.resync), or pass "
                "force=True, which records them first so they are not lost"
            )


def test_a_rollback_scope_is_a_typo_only_if_neither_recorded_nor_on_disk(root: Path) -> None:
    (root / "a.txt").write_text("a\n")
    (root / "my dir").mkdir()
    with Workspace.init(root) as ws:
        ws.write_file("a.txt", "b\n")
        # Never recorded, but on disk (a space in its path): not a typo, an outside file.
        (root / "my dir" / "new.txt").write_text("new\n")
        for scope in ("my dir/new.txt", "my dir"):
            assert not (root / "my" / "dir").exists()
            ws.rollback(0, [scope], dry_run=True)
        # Neither on disk nor ever recorded, even under a file: a typo.
        for scope in ("typo.txt", "a.txt/typo.txt", "my dir/typo.txt"):
            with pytest.raises(UnknownPathError) as caught:
                ws.rollback(0, [scope], dry_run=True)
            assert caught.value.path == scope
            assert str(caught.value) == (
                f"{scope} was never in the history, so there is nothing to roll back there; "
                "check the path (`snapline log --file PATH` lists the snapshots that changed "
                "a path)"
            )
        # A name too long for the file system cannot be looked at: as recording decides,
        # it is not refused as a typo here (the plan then finds nothing there to change).
        long_name = "x" * (os.pathconf(root, "PC_NAME_MAX") + 1)
        ws.rollback(0, [long_name], dry_run=True)


# -- revert: what stands in the way of taking one snapshot's change out --------------------


def _revert_refused(ws: Workspace, number: int) -> list[tuple[str, str, str]]:
    def files() -> dict[Path, bytes]:
        return {p: p.read_bytes() for p in ws.root.iterdir() if p.is_file()}

    latest, before = ws.latest, files()
    with pytest.raises(RevertConflictError) as caught:
        ws.revert(number)
    assert ws.latest == latest and files() == before
    return [(c.path, c.kind, c.message) for c in caught.value.conflicts]


def test_a_modified_file_deleted_since_cannot_be_reverted(root: Path) -> None:
    (root / "a.txt").write_text("a\n")
    with Workspace.init(root) as ws:
        ws.write_file("a.txt", "changed\n")
        ws.delete_file("a.txt")
        assert _revert_refused(ws, 1) == [
            (
                "a.txt",
                "changed-since",
                "a.txt was deleted or replaced after snapshot 1; edit it by hand",
            )
        ]


def test_a_move_whose_file_was_deleted_since_cannot_be_reverted(root: Path) -> None:
    (root / "a.txt").write_text("a\n")
    with Workspace.init(root) as ws:
        ws.move_file("a.txt", "b.txt")
        ws.delete_file("b.txt")
        assert _revert_refused(ws, 1) == [
            (
                "b.txt",
                "changed-since",
                "b.txt was deleted or replaced after snapshot 1; edit it by hand",
            )
        ]


def test_a_move_cannot_go_back_to_a_path_in_use_again(root: Path) -> None:
    (root / "a.txt").write_text("a\n")
    with Workspace.init(root) as ws:
        ws.move_file("a.txt", "b.txt")
        ws.write_file("a.txt", "a new file\n")
        assert _revert_refused(ws, 1) == [
            (
                "a.txt",
                "changed-since",
                "a.txt is in use again, so b.txt cannot move back there; edit it by hand",
            )
        ]


def test_a_change_to_a_file_tracked_by_hash_only_cannot_be_taken_out(root: Path) -> None:
    (root / "big.bin").write_bytes(b"\x00" * 5000)
    with Workspace.init(root, large_file_limit=4096) as ws:
        ws.write_file("big.bin", b"\x01" * 5000)
        ((path, kind, message),) = _revert_refused(ws, 1)
    assert (path, kind) == ("big.bin", "unavailable")
    assert "big.bin" in message, message


def test_a_rollback_to_a_version_tracked_by_hash_only_is_refused_as_unavailable(
    root: Path,
) -> None:
    (root / "big.bin").write_bytes(b"\x00" * 5000)
    (root / "notes.txt").write_text("a\n")
    with Workspace.init(root, large_file_limit=4096) as ws:
        ws.write_file("big.bin", b"\x01" * 5000)
        ws.write_file("notes.txt", "b\n")
        promised = ws.rollback(to=0, dry_run=True)
        with pytest.raises(RollbackConflictError) as caught:
            ws.rollback(to=0)
    for conflicts in (promised.conflicts, caught.value.conflicts):
        ((path, kind, message),) = [(c.path, c.kind, c.message) for c in conflicts]
        assert (path, kind) == ("big.bin", "unavailable")
        assert "big.bin" in message, message
    # The plan goes on past it (to a path after it), and the refusal changed nothing.
    assert promised.restored == ("notes.txt",)
    assert (root / "big.bin").read_bytes() == b"\x01" * 5000
    assert (root / "notes.txt").read_text() == "b\n"


def test_a_later_mode_change_survives_the_revert_of_a_content_edit(root: Path) -> None:
    (root / "a.txt").write_text(_text())
    with Workspace.init(root) as ws:
        ws.write_file("a.txt", _text(l5="five\n"))
        os.chmod(root / "a.txt", 0o755)
        ws.record()
        ws.revert(1)
    assert (root / "a.txt").read_text() == _text()
    assert os.stat(root / "a.txt").st_mode & 0o777 == 0o755


def test_a_change_is_taken_out_where_its_file_moved_not_at_a_new_file_in_its_place(
    root: Path,
) -> None:
    (root / "a.txt").write_text(_text())
    with Workspace.init(root) as ws:
        ws.write_file("a.txt", _text(l5="five\n"))
        ws.move_file("a.txt", "b.txt")
        ws.write_file("a.txt", _text(l5="a new file's line\n"))
        ws.revert(1)
    assert (root / "b.txt").read_text() == _text()
    assert (root / "a.txt").read_text() == _text(l5="a new file's line\n")


def test_a_revert_lists_its_moves_by_where_they_go(root: Path) -> None:
    (root / "a.txt").write_text("first file\n")
    (root / "b.txt").write_text("second file\n")
    with Workspace.init(root) as ws:
        os.rename(root / "a.txt", root / "z.txt")
        os.rename(root / "b.txt", root / "y.txt")
        ws.record()
        result = ws.revert(1)
    # Sorted by source (y, z) or as planned, a.txt would not come first.
    assert [(m.source, m.target) for m in result.moved] == [("z.txt", "a.txt"), ("y.txt", "b.txt")]
    assert (root / "a.txt").read_text() == "first file\n"


def test_a_move_already_undone_by_hand_is_not_a_conflict(root: Path) -> None:
    (root / "a.txt").write_text("a\n")
    with Workspace.init(root) as ws:
        ws.move_file("a.txt", "b.txt")
        ws.delete_file("b.txt")
        ws.write_file("a.txt", "a\n")  # back where it was, as it was
        result = ws.revert(1)
        assert result.conflicts == () and result.snapshot is None
    assert (root / "a.txt").read_text() == "a\n" and not (root / "b.txt").exists()


def test_an_outside_change_blocks_only_the_changes_it_touches(root: Path) -> None:
    for name in ("a.txt", "c.txt", "x.txt"):
        (root / name).write_text(_text())
    with Workspace.init(root) as ws:
        (root / "a.txt").write_text(_text(l5="a five\n"))
        (root / "c.txt").write_text(_text(l5="c five\n"))
        ws.record()
        ws.move_file("a.txt", "b.txt")  # a.txt's change is at b.txt now
        ws.move_file("x.txt", "y.txt")  # an unrelated move
        (root / "b.txt").write_text("changed outside\n")
        dry = ws.revert(1, dry_run=True)
    assert [(c.path, c.kind) for c in dry.conflicts] == [("b.txt", "modified")]
    assert dry.restored == ("c.txt",)


# -- undo and redo with nothing to do ---------------------------------------------------


def test_undo_and_redo_with_nothing_to_do_say_where_the_history_stands(root: Path) -> None:
    (root / "a.txt").write_text("a\n")
    with Workspace.init(root) as ws:
        ws.write_file("a.txt", "b\n")
        ws.undo()  # snapshot 2, standing for the baseline
        with pytest.raises(NothingToUndoError) as undo:
            ws.undo()
        ws.redo()
        ws.write_file("a.txt", "c\n")  # snapshot 4 clears what was undone
        with pytest.raises(NothingToRedoError) as redo:
            ws.redo()
    assert (undo.value.latest, redo.value.latest) == (2, 4)
    assert str(undo.value) == (
        "nothing to undo: snapshot 2 stands for the baseline; see `snapline log` for the history"
    )
    assert str(redo.value) == (
        "nothing to redo: no undo is waiting after snapshot 4 (a new change clears what was undone)"
    )


def test_an_undo_after_a_redo_names_the_change_it_takes_back(root: Path) -> None:
    # The module's rule: a redo of the undo U stands for the snapshot U undid, so the
    # next undo is an undo of that snapshot (1), not of the redo (3).
    (root / "a.txt").write_text("a\n")
    with Workspace.init(root) as ws:
        ws.write_file("a.txt", "b\n")
        ws.undo()
        ws.redo()
        result = ws.undo()
        assert result.snapshot is not None and result.snapshot.metadata["undo_of"] == 1
    assert (root / "a.txt").read_text() == "a\n"


@pytest.mark.parametrize("link", [0, 2])
def test_an_undo_link_that_does_not_point_back_is_not_followed(root: Path, link: int) -> None:
    # Metadata can come from elsewhere: only an earlier snapshot, after the baseline,
    # is a usable link; a snapshot carrying any other is ordinary, and undone itself.
    (root / "a.txt").write_text("a\n")
    with Workspace.init(root) as ws:
        ws.write_file("a.txt", "b\n")
        (root / "a.txt").write_text("c\n")
        ws.record(metadata={"undo_of": link})  # snapshot 2
        result = ws.undo()
        assert result.snapshot is not None and result.snapshot.metadata["undo_of"] == 2
    assert (root / "a.txt").read_text() == "b\n"


def test_a_redo_link_to_an_ordinary_snapshot_waits_for_nothing(root: Path) -> None:
    (root / "a.txt").write_text("a\n")
    with Workspace.init(root) as ws:
        ws.write_file("a.txt", "b\n")
        ws.undo()  # 2, an undo of 1: a new change (3) clears it
        ws.write_file("a.txt", "c\n")
        (root / "a.txt").write_text("d\n")
        ws.record(metadata={"redo_of": 3})  # 4: names an ordinary snapshot, not an undo
        with pytest.raises(NothingToRedoError):
            ws.redo()
    assert (root / "a.txt").read_text() == "d\n"


def test_undo_and_redo_touch_only_the_files_of_the_change(root: Path) -> None:
    (root / "a.txt").write_text("a\n")
    (root / "b.txt").write_text("b\n")
    with Workspace.init(root) as ws:
        ws.write_file("a.txt", "a2\n")
        (root / "b.txt").write_text("edited, not recorded\n")
        (root / "new.txt").write_text("untracked\n")
        ws.undo()
        assert (root / "a.txt").read_text() == "a\n"
        ws.redo()
        assert (root / "a.txt").read_text() == "a2\n"
    assert (root / "b.txt").read_text() == "edited, not recorded\n"
    assert (root / "new.txt").read_text() == "untracked\n"


def test_a_forced_redo_overwrites_an_outside_change(root: Path) -> None:
    (root / "a.txt").write_text("a\n")
    with Workspace.init(root) as ws:
        ws.write_file("a.txt", "a2\n")
        ws.undo()
        (root / "a.txt").write_text("outside\n")
        with pytest.raises(RollbackConflictError):
            ws.redo()
        ws.redo(force=True)
    assert (root / "a.txt").read_text() == "a2\n"
