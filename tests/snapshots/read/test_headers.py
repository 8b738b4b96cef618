"""``log``'s headers: the same as the models say, without building them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from snapline import StoreCorruptError, Workspace
from snapline.workspace.rows import log_headers
from tests.reliability.crafting import sql


def _history(root: Path) -> None:
    for index in range(12):
        (root / f"f{index}.txt").write_text(f"{index}\n")
    with Workspace.init(root) as ws:
        ws.write_file("f1.txt", "one\n", tool="agent", description="first", session="s1")
        ws.write_file("new.txt", "new\n", session="s2")
        ws.move_file("f2.txt", "moved.txt")
        ws.delete_file("f3.txt", tool="cleaner")
        (root / "f4.txt").write_text("4 again\n")
        (root / "f5.txt").write_text("5 again\n")
        ws.record(description="two at once")


@pytest.mark.parametrize(
    ("tool", "session", "limit", "newest_first"),
    [(None, None, None, True), (None, None, 2, False), ("agent", None, None, True),
     (None, "s2", None, False)],
)  # fmt: skip
def test_headers_say_what_the_models_say(
    root: Path, tool: str | None, session: str | None, limit: int | None, newest_first: bool
) -> None:
    _history(root)
    with Workspace.open(root) as ws:
        chosen = {"tool": tool, "session": session, "limit": limit, "newest_first": newest_first}
        models = list(ws.snapshots(**chosen))  # type: ignore[arg-type]
        headers = log_headers(ws, file=None, **chosen)  # type: ignore[arg-type]
    assert models, "the filters should select something"
    assert [(h.number, h.time, h.tool, h.session, h.description, h.files) for h in headers] == [
        (m.number, m.time, m.tool, m.session, m.description, len(m.files)) for m in models
    ]


def test_headers_of_one_file_are_those_that_touched_it(root: Path) -> None:
    _history(root)
    with Workspace.open(root) as ws:
        headers = log_headers(
            ws, file="moved.txt", tool=None, session=None, limit=None, newest_first=False
        )
    assert [h.number for h in headers] == [3]
    assert headers[0].files == 1  # a rename is one change


def test_a_time_that_is_not_a_time_is_damage(root: Path) -> None:
    _history(root)
    sql(root, "UPDATE snapshots SET time = 'yesterday' WHERE number = 2")
    with Workspace.open(root) as ws, pytest.raises(StoreCorruptError, match="snapshot 2"):
        log_headers(ws, file=None, tool=None, session=None, limit=None, newest_first=True)
    shown = subprocess.run(
        [sys.executable, "-m", "snapline", "--root", str(root), "log"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert shown.returncode == 3 and shown.stderr.count("\n") == 1, shown.stderr
    assert "snapshot 2" in shown.stderr and "Traceback" not in shown.stderr
