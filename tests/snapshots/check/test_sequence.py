"""validate(): every continuity and integrity problem is found and located."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from snapline import Workspace


def _tamper(ws: Workspace, sql: str, *params: object) -> None:
    db = sqlite3.connect(ws.root / ".snapline" / "index.db")
    with db:
        db.execute(sql, params)
    db.close()


@pytest.fixture
def history(ws: Workspace) -> Workspace:
    ws.write_file("src/app.py", "print('one')\n")
    ws.write_file("src/app.py", "print('two')\n")
    ws.write_file("bin.dat", b"\x00\x01")
    return ws


def test_a_sound_history_validates(history: Workspace) -> None:
    report = history.validate(deep=True)
    assert report.ok and report.problems == ()


def test_hand_edited_description_breaks_the_chain(history: Workspace) -> None:
    _tamper(history, "UPDATE snapshots SET description = 'rewritten' WHERE number = 2")
    problems = history.validate().problems
    # The index row fails its chain. (An in-tree ledger's file disagreeing with the row
    # too is the ledger reader's check: tests/ledger/test_verify_ledger_problems.py.)
    assert [(p.kind, p.number) for p in problems] == [("chain-mismatch", 2)]


def test_a_deleted_snapshot_is_a_gap(history: Workspace) -> None:
    _tamper(history, "DELETE FROM changes WHERE snapshot = 2")
    _tamper(history, "DELETE FROM snapshots WHERE number = 2")
    kinds = {p.kind for p in history.validate().problems}
    # Nothing later touches the file, so the loss shows as a known state that no longer
    # follows from the history.
    assert kinds == {"gap", "broken-link", "chain-mismatch", "state-mismatch"}


def test_missing_and_corrupt_content(history: Workspace) -> None:
    ref = history.snapshot(3).files[0].content_ref
    _tamper(history, "UPDATE blobs SET data = ? WHERE hash = ?", b"rgarbage", ref)
    deep = history.validate(deep=True).problems
    assert any(p.kind == "corrupt-content" and p.expected == ref for p in deep)
    assert history.validate().ok  # the quick check does not read content
    _tamper(history, "DELETE FROM blobs WHERE hash = ?", ref)
    problems = history.validate().problems
    assert [(p.kind, p.path, p.number) for p in problems] == [("missing-content", "bin.dat", 3)]
    assert all(p.severity == "corrupt" for p in problems)


def test_state_that_does_not_follow_from_history(history: Workspace) -> None:
    _tamper(history, "UPDATE state SET hash = ? WHERE path = 'src/app.py'", "sha256:" + "0" * 64)
    problems = history.validate().problems
    assert [(p.kind, p.path) for p in problems] == [("state-mismatch", "src/app.py")]


def test_unsafe_recorded_path_is_reported(history: Workspace) -> None:
    _tamper(history, "UPDATE changes SET path = '../escape' WHERE snapshot = 3")
    assert "unsafe-path" in {p.kind for p in history.validate().problems}


def test_a_rename_over_a_tracked_file_is_a_continuity_break(history: Workspace) -> None:
    history.write_file("other.txt", "other\n")
    history.move_file("other.txt", "moved.txt")
    number = history.latest
    sql = "UPDATE changes SET path = 'README.md' WHERE snapshot = ? AND kind = 'renamed'"
    _tamper(history, sql, number)
    kinds = [(p.kind, p.path) for p in history.validate().problems]
    assert ("continuity", "README.md") in kinds


def test_a_reused_snapshot_id_is_caught(history: Workspace) -> None:
    first = history.snapshot(1).id
    _tamper(history, "UPDATE snapshots SET id = ? WHERE number = 3", first)
    assert ("duplicate-id", 3) in [(p.kind, p.number) for p in history.validate().problems]


def test_an_empty_baseline_validates_in_full(root: Path) -> None:
    # A workspace made empty: its baseline has no change for the streamed pass to hand out.
    with Workspace.init(root) as ws:
        assert ws.snapshot(0).files == ()
        report = ws.validate(deep=True)
        assert report.ok and report.problems == (), report.problems
        ws.write_file("first.txt", "one\n")
        assert ws.validate(deep=True).problems == ()
