"""The worker operations behind benchmark row 11 (the review page) do what the row says."""

from __future__ import annotations

from pathlib import Path

from benchmarks.worker import _Session
from benchmarks.workspace_gen import generate
from snapline import Workspace


def test_page_history_and_report_operations(tmp_path: Path) -> None:
    layout = generate(tmp_path / "ws", 60, seed=3, big_file_lines=100)
    session = _Session()
    session.handle({"op": "init", "root": str(layout.root)})
    paths = list(layout.history_files)
    reply = session.handle(
        {"op": "page_history", "paths": paths, "count": 12, "milestone_every": 5}
    )
    page = tmp_path / "page.html"
    report = session.handle({"op": "report", "path": str(page)})
    session.handle({"op": "close"})

    assert reply["latest"] == 12
    assert report["bytes"] == page.stat().st_size > 0
    assert report["seconds"] > 0
    with Workspace.open(layout.root) as ws:
        assert [(m.first, m.last) for m in ws.milestones.list()] == [(1, 5), (6, 10)]
        assert {s.session for s in ws.snapshots(since=1)} == {"agent-0", "agent-1", "agent-2"}
        assert {s.tool for s in ws.snapshots(since=1)} == {"edit", "write", "shell"}
