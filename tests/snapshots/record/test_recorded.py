"""Recording answered from its rows: the same snapshot and notes as the public models.

``snapline record`` and the hook answer from the rows a recording committed
(``record/recorded.py``, ``workspace/rows.py``) and check their info with ``PlainInfo``
rather than ``SnapshotInfo``; these tests hold both paths to the same result.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from snapline import MetadataError, SnapshotInfo, Workspace
from snapline.snapshots.info_fields import PlainInfo
from snapline.workspace.rows import record_rows, sync_problems


def test_the_rows_make_the_snapshot_the_store_reads_back(ws: Workspace) -> None:
    (ws.root / ".gitignore").write_text("*.log\n")
    (ws.root / "debug.log").write_text("noise")
    (ws.root / "src" / "app.py").write_text("print('bye')\n")
    (ws.root / "notes.txt").write_text("new\n")
    recorded = record_rows(ws, ["src", "notes.txt", "debug.log"], PlainInfo.checked("t", "d", "s"))
    assert recorded.number == 1
    assert [(c.path, c.kind) for c in recorded.changes] == [
        ("notes.txt", "added"),
        ("src/app.py", "modified"),
    ]
    assert [(s.path, s.reason) for s in recorded.skipped] == [("debug.log", "ignored")]
    snapshot = recorded.snapshot()
    assert snapshot is not None
    assert snapshot == ws.snapshot(1)
    assert (snapshot.tool, snapshot.description, snapshot.session) == ("t", "d", "s")
    assert [(s.path, s.reason) for s in snapshot.skipped] == [("debug.log", "ignored")]
    assert ws.last_skipped == snapshot.skipped


def test_nothing_changed_is_no_rows_and_still_the_notes(ws: Workspace) -> None:
    (ws.root / ".gitignore").write_text("*.log\n")
    ws.record()
    (ws.root / "debug.log").write_text("noise")
    recorded = record_rows(ws, ["debug.log"], PlainInfo.checked("t", "", None))
    assert recorded.number is None and recorded.changes == [] and recorded.snapshot() is None
    assert [(s.path, s.reason) for s in recorded.skipped] == [("debug.log", "ignored")]
    assert ws.latest == 1


def test_sync_problems_are_check_syncs(ws: Workspace) -> None:
    assert sync_problems(ws, None) == []
    (ws.root / "src" / "app.py").write_text("outside\n")
    (ws.root / "stray.txt").write_text("new\n")
    problems = sync_problems(ws, None)
    assert [(p.kind, p.path) for p in problems] == [
        ("modified", "src/app.py"),
        ("untracked", "stray.txt"),
    ]
    assert tuple(problems) == ws.check_sync().problems
    assert [p.path for p in sync_problems(ws, ["stray.txt"])] == ["stray.txt"]


_TEXT = st.text(st.characters(codec="utf-8") | st.sampled_from(["\udcff", "\udc80", "\x00"]))


@given(tool=_TEXT, description=_TEXT, session=st.none() | _TEXT)
def test_plain_info_checks_as_snapshot_info_does(
    tool: str, description: str, session: str | None
) -> None:
    try:
        model = SnapshotInfo(tool=tool, description=description, session=session)
    except MetadataError as error:
        with pytest.raises(MetadataError, match=re.escape(str(error))):
            PlainInfo.checked(tool, description, session)
        return
    plain = PlainInfo.checked(tool, description, session)
    assert (plain.tool, plain.description, plain.session, plain.metadata) == (
        model.tool,
        model.description,
        model.session,
        model.metadata,
    )
