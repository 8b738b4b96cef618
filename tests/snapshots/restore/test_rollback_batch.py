"""A rollback writes its files as one batch: shared fsyncs, and a crash at any point undone."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from snapline import Workspace, atomic
from tests.snapshots.trees import files


@pytest.fixture
def edited(root: Path) -> Workspace:
    """Twelve files in three directories, each edited once after the baseline."""
    for index in range(12):
        path = root / f"d{index % 3}" / f"f{index}.txt"
        path.parent.mkdir(exist_ok=True)
        path.write_text(f"file {index}\nversion 0\n")
    workspace = Workspace.init(root)
    for index in range(12):
        workspace.write_file(f"d{index % 3}/f{index}.txt", f"file {index}\nversion 1\n")
    return workspace


def test_each_directory_is_fsynced_once_and_each_file_before_its_rename(
    edited: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    synced: list[Path] = []
    renamed: list[Path] = []
    real_fsync, real_replace = atomic._fsync, os.replace

    def fsync(path: str | Path) -> None:
        synced.append(Path(path))  # the refs store's object folders come as str
        real_fsync(path)

    def replace(source: str | Path, target: str | Path) -> None:
        # Every file reaches its place already on disk: it was fsynced under its
        # temporary name before the first rename. (The history's own renames, a ref's
        # lock onto the ref under .snapline/repo, sync as git does: not this batch's.)
        if ".snapline" not in Path(source).parts:
            assert Path(source) in synced
            renamed.append(Path(target))
        real_replace(source, target)

    monkeypatch.setattr(atomic, "_fsync", fsync)
    monkeypatch.setattr(atomic.os, "replace", replace)
    with edited:
        edited.rollback(to=0)
        monkeypatch.undo()
        root = edited.root
        assert len(renamed) == 12
        directories = [p for p in synced if p.parent == root and p.name.startswith("d")]
        assert sorted(directories) == [root / "d0", root / "d1", root / "d2"]
        assert edited.check_sync().ok
        assert all(p.read_text().endswith("version 0\n") for p in root.glob("d*/f*.txt"))


def test_a_rollback_killed_before_its_renames_is_undone_on_the_next_open(
    edited: Workspace,
) -> None:
    root = edited.root
    before = files(root)
    latest = edited.latest
    edited.close()
    script = "import sys; from snapline import Workspace; Workspace.open(sys.argv[1]).rollback(0)"
    killed = subprocess.run(
        [sys.executable, "-c", script, str(root)],
        env={**os.environ, "SNAPLINE_CRASH_AT": "files-staged"},
        capture_output=True,
        check=False,
    )
    assert killed.returncode == -signal.SIGKILL, killed.stderr.decode()
    # Every new content is on disk under a temporary name; no file was replaced yet.
    leftovers = [p for p in files(root) if atomic.is_temp_name(p)]
    assert len(leftovers) == 12
    assert {p: e for p, e in files(root).items() if p not in leftovers} == before
    with Workspace.open(root) as reopened:
        assert files(root) == before
        assert reopened.latest == latest
        assert reopened._store.journal.entries() == []
        assert reopened.validate().ok and reopened.check_sync().ok
        assert reopened.rollback(to=0).snapshot is not None  # and it can go on
        assert all(p.read_text().endswith("version 0\n") for p in root.glob("d*/f*.txt"))
