"""Who made a change and why: one parameter object through every write method (issue 39.4).

The write methods of ``Workspace`` take the same keyword arguments as ever (``tool``,
``description``, ``session``, ``metadata``, or ``info``), declared once
(``info_fields.Who``) and turned into one info in one place (``info_fields.info_of``),
with each method's own defaults; what reaches the history is what the caller said.
"""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

import pytest

from snapline import SnapshotInfo, Workspace
from snapline.snapshots.info_fields import Who

WHO = set(Who.__annotations__)


def _writers() -> list[str]:
    found = []
    for name, member in inspect.getmembers(Workspace, inspect.isfunction):
        parameters = inspect.signature(member).parameters
        if not name.startswith("_") and any(
            p.annotation == "Unpack[Who]" for p in parameters.values()
        ):
            found.append(name)
    return found


# Every method that records a snapshot (guard's `session`, and the readers', filter).
WRITERS = {
    "record",
    "merge",
    "track",
    "write_file",
    "edit_file",
    "delete_file",
    "move_file",
    "run",
    "resync",
    "rollback",
    "revert",
    "undo",
    "redo",
}


def test_every_write_method_takes_who_and_why_once() -> None:
    assert set(_writers()) == WRITERS
    for name in WRITERS:
        declared = set(inspect.signature(getattr(Workspace, name)).parameters) & WHO
        assert not declared, f"Workspace.{name} declares {sorted(declared)} beside Who"


@pytest.fixture
def ws(tmp_path: Path) -> Any:
    (tmp_path / "a.txt").write_text("one\n")
    with Workspace.init(tmp_path) as opened:
        yield opened


def test_the_keywords_reach_the_history(ws: Workspace) -> None:
    made = ws.write_file(
        "a.txt", "two\n", tool="agent", description="why", session="s1", metadata={"k": 1}
    )
    assert made is not None
    assert (made.tool, made.description, made.session, made.metadata) == (
        "agent",
        "why",
        "s1",
        {"k": 1},
    )
    # Each method's defaults: its tool, and a description derived from the call.
    moved = ws.move_file("a.txt", "b.txt")
    assert (moved.tool, moved.description) == ("move", "move a.txt -> b.txt")
    info = SnapshotInfo(tool="bot", description="as one", session="s2")
    back = ws.rollback(1, info=info).snapshot
    assert back is not None and (back.tool, back.description, back.session) == (
        "bot",
        "as one",
        "s2",
    )


def test_run_keeps_an_empty_description_and_resync_its_tool(ws: Workspace) -> None:
    done = ws.run(["sh", "-c", "echo x > c.txt"], description="")
    assert done.snapshot is not None and done.snapshot.description == ""
    (ws.root / "a.txt").write_text("outside\n")
    adopted = ws.resync(description="formatter", session="s3")
    assert adopted is not None
    assert (adopted.tool, adopted.description, adopted.session) == ("external", "formatter", "s3")
    with pytest.raises(TypeError):
        ws.resync(tool="mine")  # type: ignore[call-arg]


def test_an_unknown_keyword_is_refused_as_python_refuses_it(ws: Workspace) -> None:
    with pytest.raises(TypeError, match="desription"):
        ws.write_file("a.txt", "three\n", desription="typo")  # type: ignore[call-arg]
    assert ws.latest == 0
