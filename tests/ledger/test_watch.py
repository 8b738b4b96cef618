"""A long-lived workspace watches the ledger instead of listing it before every record.

From its third check on, a process that keeps a workspace open watches the ledger's
folders of records (inotify, ``store/ledger/watch.py``) and lists them only when
something other than its own records changed them (issue 30: a library record must
not grow with the history). These tests hold the watch to catching every change a
listing would: files a pull brings, files removed, a folder replaced, another process.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from snapline import Workspace
from snapline.store.ledger.files import Ledger
from snapline.store.ledger.watch import LedgerWatch
from tests.ledger.conftest import Repo, clone, copy

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="inotify")


def _edit(ws: Workspace, rel: str, text: str) -> int:
    (ws.root / rel).write_text(text)
    return ws.record([rel]).number


def _listings(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    made: list[str] = []
    entries = Ledger.entries

    def counted(self: Ledger, kind: str) -> list[str]:
        made.append(kind)
        return entries(self, kind)

    monkeypatch.setattr(Ledger, "entries", counted)
    return made


def test_records_in_a_row_do_not_list_the_ledger(
    origin: Repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    work = clone(origin, tmp_path / "work")
    with Workspace.open(work.path) as ws:
        for text in ("# one\n", "# two\n"):  # the first checks list, then watch
            _edit(ws, "README.md", text)
        made = _listings(monkeypatch)
        for text in ("# three\n", "# four\n", "# five\n"):
            _edit(ws, "README.md", text)
        assert made == []
        assert ws.verify().ok


def test_a_pull_behind_a_watching_workspace_is_caught_up(origin: Repo, tmp_path: Path) -> None:
    work = clone(origin, tmp_path / "work")
    with Workspace.open(work.path) as ws:
        for text in ("# one\n", "# two\n", "# three\n"):
            mine = _edit(ws, "README.md", text)
        assert ws._store.watch is not None
        other = copy(work, tmp_path / "other")
        for local in (other.path / ".snapline").glob("index.db*"):
            local.unlink()
        other.write("notes.txt", "from elsewhere\n")
        other.ok("record", "-m", "elsewhere")
        shutil.copytree(other.ledger, work.ledger, dirs_exist_ok=True)

        after = _edit(ws, "README.md", "# mine again\n")

        assert after == mine + 2
        assert ws.snapshot(mine + 1).description == "elsewhere"


def test_another_process_recording_is_seen_by_a_watching_workspace(
    origin: Repo, tmp_path: Path
) -> None:
    work = clone(origin, tmp_path / "work")
    with Workspace.open(work.path) as first:
        for text in ("# one\n", "# two\n", "# three\n"):
            _edit(first, "README.md", text)
        with Workspace.open(work.path) as second:
            made = _edit(second, "notes.txt", "from the second\n")
        assert _edit(first, "README.md", "# first again\n") == made + 1
        assert first.verify().ok


def _ledger(tmp_path: Path) -> Ledger:
    for kind in ("snapshots", "milestones"):
        (tmp_path / "ledger" / kind).mkdir(parents=True)
    (tmp_path / "ledger" / "snapshots" / "00000000-a.snap").write_bytes(b"x")
    return Ledger(tmp_path / "ledger")


@pytest.fixture
def watched(tmp_path: Path) -> Iterator[tuple[Ledger, LedgerWatch]]:
    ledger = _ledger(tmp_path)
    watch = LedgerWatch.start(ledger)
    assert watch is not None
    yield ledger, watch
    watch.close()


def test_only_own_files_and_temporary_ones_keep_the_watch_quiet(
    watched: tuple[Ledger, LedgerWatch],
) -> None:
    ledger, watch = watched
    assert watch.quiet(set())
    ledger.write_new("snapshots", "00000001-b.snap", b"y")  # temp file, link, unlink

    assert watch.quiet({"00000001-b.snap"})


@pytest.mark.parametrize(
    "change",
    [
        "added",
        "removed",
        "renamed",
        "milestone",
        "folder-created",
        "folder-replaced",
        "ledger-replaced",
    ],
)
def test_any_other_change_is_reported(
    watched: tuple[Ledger, LedgerWatch], change: str, tmp_path: Path
) -> None:
    ledger, watch = watched
    snapshots = ledger.path / "snapshots"
    if change == "added":
        (snapshots / "00000001-c.snap").write_bytes(b"z")
    elif change == "removed":
        (snapshots / "00000000-a.snap").unlink()
    elif change == "renamed":
        os.rename(snapshots / "00000000-a.snap", snapshots / "00000000-b.snap")
    elif change == "milestone":
        (ledger.path / "milestones" / "00000001-x.mile").write_bytes(b"m")
    elif change == "folder-created":
        (ledger.path / "forgotten").mkdir()
    elif change == "folder-replaced":
        os.rename(snapshots, ledger.path / "old")
        snapshots.mkdir()
    else:
        os.rename(ledger.path, tmp_path / "moved")
        _ledger(tmp_path)

    assert not watch.quiet(set())
    assert not watch.quiet(set())  # and it stays so: a new watch is needed


def test_a_forked_child_does_not_read_its_parents_events(
    watched: tuple[Ledger, LedgerWatch],
) -> None:
    ledger, watch = watched
    pid = os.fork()
    if pid == 0:  # the child: it must say "look again" and consume nothing
        os._exit(0 if not watch.quiet(set()) else 1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    (ledger.path / "snapshots" / "00000001-c.snap").write_bytes(b"z")
    assert not watch.quiet(set())  # the event was left for the parent
