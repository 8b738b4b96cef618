"""Issue 14, item 5: revert finds a snapshot's change by its place in the history.

Regressions: ``revert N`` patched a look-alike block pasted later instead of the block N
edited; when N's change no longer applied, matching text elsewhere counted as "already
reverted" (success, no snapshot, the change still there); a file N added and later
rollbacks brought back byte-identical was left alone.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from snapline import RevertConflictError, Workspace


@pytest.fixture
def ws(tmp_path: Path) -> Workspace:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "keep.txt").write_text("keep\n")
    return Workspace.init(root)


_BLOCK = "START\nvalue = {}\nEND\n"
_FILLER = "".join(f"new {i}\n" for i in range(10))

# (file before N, N's result, today's file, expected after revert)
_LOOK_ALIKES = {
    "pasted-above": (
        "a\nb\n" + _BLOCK.format(1) + "z\n",
        "a\nb\n" + _BLOCK.format(2) + "z\n",
        "a\n" + _BLOCK.format(2) + "b\n" + _BLOCK.format(2) + "z\n",
        "a\n" + _BLOCK.format(2) + "b\n" + _BLOCK.format(1) + "z\n",
    ),
    "pasted-below": (
        "a\n" + _BLOCK.format(1) + "b\nz\n",
        "a\n" + _BLOCK.format(2) + "b\nz\n",
        "a\n" + _BLOCK.format(2) + "b\n" + _BLOCK.format(2) + "z\n",
        "a\n" + _BLOCK.format(1) + "b\n" + _BLOCK.format(2) + "z\n",
    ),
    "pasted-above-with-lines-between": (
        "a\nb\n" + _BLOCK.format(1) + "z\n",
        "a\nb\n" + _BLOCK.format(2) + "z\n",
        "a\n" + _BLOCK.format(2) + _FILLER + "b\n" + _BLOCK.format(2) + "z\n",
        "a\n" + _BLOCK.format(2) + _FILLER + "b\n" + _BLOCK.format(1) + "z\n",
    ),
}


@pytest.mark.parametrize("case", sorted(_LOOK_ALIKES))
def test_a_look_alike_block_is_never_patched_instead(ws: Workspace, case: str) -> None:
    before, result, today, expected = _LOOK_ALIKES[case]
    ws.write_file("f.txt", before)
    n = ws.write_file("f.txt", result)
    assert n is not None
    ws.write_file("f.txt", today)
    reverted = ws.revert(n.number)
    assert reverted.snapshot is not None and reverted.restored == ("f.txt",)
    assert (ws.root / "f.txt").read_text() == expected


_NO_LONGER_APPLIES = {
    # N's line edited again since; its old text appears elsewhere (a comment, a copy).
    "old-text-kept-as-comment": (
        "[cfg]\nx = 1\n[end]\n",
        "[cfg]\nx = 2\n[end]\n",
        "[cfg]\nx = 3\n[end]\n# was:\n[cfg]\nx = 1\n[end]\n",
    ),
    "old-line-below": (
        "head\nx = 1\ntail\n",
        "head\nx = 2\ntail\n",
        "head\nx = 3\ntail\nmore\nx = 1\nend\n",
    ),
    "line-deleted-since": (
        "one\nx = 1\ntwo\n",
        "one\nx = 2\ntwo\n",
        "one\ntwo\nold: one\nx = 1\ntwo\n",
    ),
}


@pytest.mark.parametrize("case", sorted(_NO_LONGER_APPLIES))
def test_matching_text_elsewhere_is_not_already_reverted(ws: Workspace, case: str) -> None:
    before, result, today = _NO_LONGER_APPLIES[case]
    ws.write_file("f.txt", before)
    n = ws.write_file("f.txt", result)
    assert n is not None
    ws.write_file("f.txt", today)
    latest = ws.latest
    with pytest.raises(RevertConflictError) as caught:
        ws.revert(n.number)
    assert [c.kind for c in caught.value.conflicts] == ["hunks-failed"]
    assert (ws.root / "f.txt").read_text() == today
    assert ws.latest == latest


def test_a_file_added_then_brought_back_identical_is_deleted(ws: Workspace) -> None:
    n = ws.write_file("new.txt", "hello\n")
    assert n is not None
    ws.rollback(0)  # new.txt deleted
    ws.rollback(n.number)  # and back, byte-identical
    assert (ws.root / "new.txt").read_text() == "hello\n"
    reverted = ws.revert(n.number)
    assert reverted.snapshot is not None and reverted.deleted == ("new.txt",)
    assert not (ws.root / "new.txt").exists()
    assert ws.check_sync().ok


@pytest.mark.parametrize("how", ["rolled-back-then-edited", "recreated-different"])
def test_a_file_added_then_brought_back_different_is_a_conflict(ws: Workspace, how: str) -> None:
    n = ws.write_file("new.txt", "hello\n")
    assert n is not None
    ws.rollback(0)
    if how == "rolled-back-then-edited":
        ws.rollback(n.number)
        ws.write_file("new.txt", "hello, edited\n")
    else:
        ws.write_file("new.txt", "someone else's\n")
    text = (ws.root / "new.txt").read_text()
    with pytest.raises(RevertConflictError) as caught:
        ws.revert(n.number)
    assert [c.path for c in caught.value.conflicts] == ["new.txt"]
    assert (ws.root / "new.txt").read_text() == text


def test_a_modified_file_deleted_and_brought_back_is_reverted_in_place(ws: Workspace) -> None:
    ws.write_file("f.txt", "one\ntwo\nthree\n")
    n = ws.write_file("f.txt", "one\nTWO\nthree\n")
    assert n is not None
    ws.delete_file("f.txt")
    ws.rollback(n.number)  # f.txt back, as N left it
    ws.write_file("f.txt", "zero\none\nTWO\nthree\n")
    reverted = ws.revert(n.number)
    assert reverted.snapshot is not None
    assert (ws.root / "f.txt").read_text() == "zero\none\ntwo\nthree\n"
