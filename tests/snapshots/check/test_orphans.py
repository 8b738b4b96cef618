"""validate(): file changes whose snapshot is gone, or damaged, are named once, and only they.

The check of the history reads every change in (snapshot, path) order and hands them to
each snapshot in turn: changes of a snapshot that no longer exists are orphans, and must
not take the next snapshot's changes with them; a damaged baseline's changes are passed
over, not called orphans; a snapshot number that is not a number is damage, reported,
not a crash.
"""

from __future__ import annotations

import sqlite3

import pytest

from snapline import Workspace


def _tamper(ws: Workspace, sql: str) -> None:
    db = sqlite3.connect(ws.root / ".snapline" / "index.db")
    with db:
        db.execute(sql)
    db.close()


@pytest.fixture
def history(ws: Workspace) -> Workspace:
    ws.write_file("one.txt", "1\n")
    ws.write_file("two.txt", "2\n")
    ws.write_file("three.txt", "3\n")
    return ws


def _found(ws: Workspace) -> list[tuple[str, int | None, str | None]]:
    return sorted(
        ((p.kind, p.number, p.path) for p in ws.validate().problems), key=lambda p: str(p)
    )


def test_the_changes_of_a_deleted_snapshot_are_orphans_and_only_they(history: Workspace) -> None:
    _tamper(history, "DELETE FROM snapshots WHERE number = 2")

    # Snapshot 3 now follows 1 (a gap, a broken link, a chain built on another), and
    # what 2 recorded no longer follows; 3's own changes are still 3's.
    assert _found(history) == sorted(
        [
            ("broken-link", 3, None),
            ("chain-mismatch", 3, None),
            ("gap", 3, None),
            ("orphan-change", 2, None),
            ("state-mismatch", None, "two.txt"),
        ],
        key=str,
    )


def test_a_damaged_baseline_is_reported_and_its_changes_are_not_orphans(
    history: Workspace,
) -> None:
    # A value no snapline writes (text where a number belongs) in the baseline's row.
    _tamper(history, "UPDATE snapshots SET version = 'two' WHERE number = 0")

    # The baseline is not replayed: what it left is unknown, so its files' known state
    # is held to nothing (no "does not follow" for each), and no change is called an
    # orphan. (An in-tree ledger's file saying otherwise is the ledger reader's check.)
    assert _found(history) == [("bad-record", 0, None)]


def test_a_change_numbered_with_text_is_damage_not_a_crash(history: Workspace) -> None:
    # verify exited 70 (an internal error: the problem's number must be a number).
    _tamper(history, "UPDATE changes SET snapshot = 'x' WHERE snapshot = 3")

    orphans = [p for p in history.validate().problems if p.kind == "orphan-change"]

    assert [(p.number, p.severity, p.message) for p in orphans] == [
        (None, "corrupt", "file changes recorded for snapshot 'x', which does not exist")
    ]
