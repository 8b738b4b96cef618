"""The events benchmark row 12 feeds the hook are ones the hook acts on as the row says."""

from __future__ import annotations

from pathlib import Path

from benchmarks.hooks import hook_event
from snapline import Workspace
from snapline.hosts.claude_code import HookOutcome, handle_input


def test_the_row_events_check_then_record_one_file(ws: Workspace) -> None:
    root = Path(ws.root)

    pre = handle_input(hook_event(root, "PreToolUse", "src/app.py").decode())
    (root / "src" / "app.py").write_text("print('bye')\n")
    post = handle_input(hook_event(root, "PostToolUse", "src/app.py").decode())

    assert pre == HookOutcome()
    assert post == HookOutcome(snapshot=1)
    assert [f.path for f in ws.snapshot(1).files] == ["src/app.py"]
