"""A writer whose refs are still its index's marks records without reading its line again.

Each record catches the index up under the writer lock (``store/refs/catchup.py``).
On its own line, with every ref it follows where the index's marks say (``stale``),
there is nothing to read: the catch-up's line reads and its index transaction were
about a tenth of a library record's CPU (row R8). Whatever moved a ref (another
process's record here) still makes the next record read it in first.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from snapline import Workspace
from snapline.store.refs import catchup
from tests.store.refs.lines import git, make_repo


def _workspace(root: Path) -> Workspace:
    make_repo(root, {"src/app.py": b"one\n", "README.md": b"hi\n"})
    return Workspace.init(root)


def test_a_record_on_its_own_line_reads_nothing_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = _workspace(tmp_path / "work")
    (ws.root / "src/app.py").write_text("two\n")
    ws.record(["src/app.py"])  # the work tree's own line starts

    def unread(*args: object, **kwargs: object) -> object:
        raise AssertionError("the line was read again though no ref moved")

    monkeypatch.setattr(catchup, "_after_mark", unread)
    (ws.root / "src/app.py").write_text("three\n")
    assert ws.record(["src/app.py"]).number == 2
    monkeypatch.undo()
    line = (ws.root / ".git" / "snapline" / "line").read_text().strip()
    shown = git(ws.root, "show", f"refs/snapline/lines/{line}:state/src/app.py")
    assert shown == "three\n"


def test_a_ref_another_writer_moved_is_read_in_before_the_next_record(tmp_path: Path) -> None:
    first = _workspace(tmp_path / "work")
    (first.root / "src/app.py").write_text("two\n")
    first.record(["src/app.py"])
    second = Workspace.open(first.root)  # another process, in effect
    (first.root / "src/app.py").write_text("three\n")
    assert second.record(["src/app.py"]).number == 2
    (first.root / "README.md").write_text("ho\n")
    assert first.record(["README.md"]).number == 3
    assert first.content_at("src/app.py", 2) == b"three\n"
    assert first.snapshot(3).parent_id == second.snapshot(2).id
    assert first.verify().ok
    git(first.root, "fsck", "--strict", "--no-dangling")
