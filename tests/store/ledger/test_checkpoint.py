"""How much of the ledger a verify reads: all of it once, then only what is new.

The command-line tests (tests/ledger/test_checkpoint.py) show what each check catches;
these count the files parsed, which is what makes the default cheap, and hold the
checkpoint's own rules: kept only by a clean check, gone with a rebuilt index.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from snapline import Workspace
from snapline.store.ledger import sync


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


def _workspace(root: Path) -> Workspace:
    root.mkdir()
    for n in range(20):
        (root / f"f{n}.txt").write_text(f"file {n}\n")
    ws = Workspace.init(root, in_tree=True)
    for n in range(3):
        ws.write_file(f"f{n}.txt", f"edit {n}\n".encode())
    return ws


def test_after_a_clean_check_only_new_files_are_read(tmp_path: Path, parsed: list[str]) -> None:
    ws = _workspace(tmp_path / "ws")
    parsed.clear()
    first = ws.verify()
    assert first.ok and first.since is None
    assert len(parsed) == 4  # snapshots 0..3

    parsed.clear()
    again = ws.verify()
    assert again.ok and again.since == 3
    assert parsed == []

    ws.write_file("f9.txt", b"nine\n")
    parsed.clear()
    after = ws.verify()
    assert after.ok and after.since == 3
    assert [name[:8] for name in parsed] == ["00000004"]

    parsed.clear()
    full = ws.verify(full=True)
    assert full.ok and full.since is None
    assert len(parsed) == 5


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
    assert len(parsed) == 4


def test_a_check_that_finds_problems_moves_no_checkpoint(tmp_path: Path) -> None:
    ws = _workspace(tmp_path / "ws")
    assert ws.verify().ok
    ws.write_file("f5.txt", b"five\n")
    (snapshot_4,) = (ws.root / ".snapline" / "ledger" / "snapshots").glob("00000004-*")
    saved = snapshot_4.read_bytes()
    snapshot_4.write_bytes(saved.replace(b"five", b"fife"))
    assert ws.verify().corrupt
    snapshot_4.write_bytes(saved)
    # Still the checkpoint of snapshot 3: the repaired file is checked as new.
    repaired = ws.verify()
    assert repaired.ok and repaired.since == 3


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
    assert sorted(name[:8] for name in parsed) == [f"{n:08d}" for n in range(4)]


def test_a_check_since_the_checkpoint_reads_no_header_before_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Issue 30: what a check after the checkpoint reads of the index must not grow with
    # the history before it. Every header it asks for is after the checkpoint, or one
    # it names (a parent, an id to hold new ones against).
    from snapline.store.snapshots import SnapshotTable

    ws = _workspace(tmp_path / "ws")
    assert ws.verify().ok
    ws.write_file("f9.txt", b"after the checkpoint\n")
    ws.milestones.create("after")
    asked: list[tuple[int | None, int | None]] = []
    select = SnapshotTable.select

    def counted(self: SnapshotTable, **filters: object) -> object:
        asked.append((filters.get("first"), filters.get("last")))  # type: ignore[arg-type]
        return select(self, **filters)  # type: ignore[arg-type]

    ws.close()
    monkeypatch.setattr(SnapshotTable, "select", counted)
    with Workspace.open(tmp_path / "ws") as again:
        report = again.verify()

    assert report.ok and report.since == 3
    assert asked and all(first is not None and first > 3 for first, _ in asked), asked
