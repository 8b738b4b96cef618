"""A long-lived workspace remembers that its index holds the ledger (issue 16, rows 3a/3b).

Every record checks, under the writer lock, that the index holds every ledger file:
files can arrive behind its back (a pull, a merge) and another process can record.
The check's answer is remembered while neither the ledger's listings nor the index
(written by another connection) change, so a record costs the same after 10 snapshots
as after 10,000. These tests hold it to catching what arrives all the same.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from snapline import Workspace
from tests.ledger.conftest import Repo, clone, copy


def _edit(ws: Workspace, rel: str, text: str) -> int:
    (ws.root / rel).write_text(text)
    return ws.record([rel]).number


def test_records_in_a_row_do_not_read_the_index_names_again(
    origin: Repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    work = clone(origin, tmp_path / "work")
    with Workspace.open(work.path) as ws:
        _edit(ws, "README.md", "# one\n")  # the first look reads them
        store = ws._store
        reads: list[int] = []
        all_names = store.names.all
        monkeypatch.setattr(store.names, "all", lambda: reads.append(1) or all_names())
        for text in ("# two\n", "# three\n", "# four\n"):
            _edit(ws, "README.md", text)
        assert reads == []
        assert ws.verify().ok


def test_files_arriving_behind_an_open_workspace_are_caught_up(
    origin: Repo, tmp_path: Path
) -> None:
    work = clone(origin, tmp_path / "work")
    with Workspace.open(work.path) as ws:
        mine = _edit(ws, "README.md", "# mine\n")  # remembered: in step
        # Elsewhere, the same history goes one snapshot further; its ledger files then
        # arrive here as a pull would bring them, while this workspace stays open.
        other = copy(work, tmp_path / "other")
        for local in (other.path / ".snapline").glob("index.db*"):
            local.unlink()  # the index is rebuilt there from the ledger
        other.write("notes.txt", "from elsewhere\n")
        other.ok("record", "-m", "elsewhere")
        shutil.copytree(other.ledger, work.ledger, dirs_exist_ok=True)
        after = _edit(ws, "README.md", "# mine again\n")
        assert after == mine + 2
        assert ws.snapshot(mine + 1).description == "elsewhere"


def test_another_process_recording_is_seen(origin: Repo, tmp_path: Path) -> None:
    work = clone(origin, tmp_path / "work")
    with Workspace.open(work.path) as first:
        _edit(first, "README.md", "# first\n")  # remembered: in step
        with Workspace.open(work.path) as second:  # another connection
            made = _edit(second, "notes.txt", "from the second\n")
        after = _edit(first, "README.md", "# first again\n")
        assert after == made + 1
        assert first.verify().ok
