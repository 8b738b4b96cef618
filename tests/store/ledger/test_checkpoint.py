"""How much of the ledger a verify reads: all of it once, then only what is new.

The command-line tests (tests/ledger/test_checkpoint.py) show what each check catches;
these count the files parsed, which is what makes the default cheap, and hold the
checkpoint's own rules: kept by a clean check, gone with a rebuilt index. (What a check
after the checkpoint reads of snapshots recorded since is held on git's refs, where
snapshots are still recorded: tests/history_refs/test_verify_checkpoint.py.)
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from snapline import Workspace
from snapline.store.ledger import sync
from tests.store.ledger.written import MAIN_SNAPSHOTS, ledger_workspace


@pytest.fixture
def parsed(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the snapshot files parsed from now on (not taken from a cache)."""
    names: list[str] = []
    real = sync._parse_snapshot_file

    def counting(ledger: object, name: str, location: Path) -> object:
        names.append(name)
        return real(ledger, name, location)  # type: ignore[arg-type]

    monkeypatch.setattr(sync, "_parse_snapshot_file", counting)
    return names


_FILES = 19  # the fixture's snapshot files: 15 on the main line, 4 of joined lines
_LATEST = MAIN_SNAPSHOTS - 1


def _workspace(root: Path) -> Workspace:
    # The index built by a first open, as a clone's first command builds it.
    Workspace.open(ledger_workspace(root)).close()
    return Workspace.open(root)


def test_after_a_clean_check_no_file_is_read_again(tmp_path: Path, parsed: list[str]) -> None:
    ws = _workspace(tmp_path / "ws")
    parsed.clear()
    first = ws.verify()
    assert first.ok and first.since is None
    assert len(parsed) == _FILES

    parsed.clear()
    again = ws.verify()
    assert again.ok and again.since == _LATEST
    assert parsed == []

    parsed.clear()
    full = ws.verify(full=True)
    assert full.ok and full.since is None
    assert len(parsed) == _FILES
    ws.close()


def test_a_touched_ledger_file_sends_the_check_back_to_the_whole_history(
    tmp_path: Path, parsed: list[str]
) -> None:
    ws = _workspace(tmp_path / "ws")
    assert ws.verify().ok
    (snapshot_1,) = (ws.root / ".snapline" / "ledger" / "snapshots").glob("00000001-*")
    snapshot_1.write_bytes(snapshot_1.read_bytes())  # same bytes: only the stamp changes

    parsed.clear()
    report = ws.verify()
    assert report.ok and report.since is None
    assert len(parsed) == _FILES
    ws.close()


def test_a_fresh_index_checks_everything_and_parses_each_file_once(
    tmp_path: Path, parsed: list[str]
) -> None:
    ws = _workspace(tmp_path / "ws")
    assert ws.verify().ok
    ws.close()
    clone = tmp_path / "clone"
    shutil.copytree(tmp_path / "ws", clone)
    for local in (clone / ".snapline").glob("index.db*"):
        local.unlink()

    parsed.clear()
    with Workspace.open(clone) as copy:
        report = copy.verify()
    assert report.ok and report.since is None
    # The catch-up that rebuilt the index parsed them; verify took its records.
    assert len(parsed) == len(set(parsed)) == _FILES
