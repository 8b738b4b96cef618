"""Copying or archiving the workspace from the process that holds it open loses nothing.

SQLite drops every POSIX lock a process holds on a database file as soon as that process
closes *any* descriptor of the file ("How To Corrupt An SQLite Database File", 2.2), and
``shutil.copytree``, ``tarfile`` and ``zipfile`` open and close the index and its WAL.
Another process then believes it is alone, checkpoints and deletes the WAL, and the first
process goes on writing into a file nobody will read: acknowledged snapshots vanish and
two writers are told the same number. Between calls a ``Workspace`` holds no descriptor
of the store, so a copy made between calls cannot drop anything.
"""

from __future__ import annotations

import io
import shutil
import subprocess
import sys
import tarfile
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

from snapline import Workspace
from tests.reliability.helpers import cli


def _copytree(root: Path, scratch: Path) -> None:
    shutil.copytree(root, scratch / "copy", dirs_exist_ok=True)


def _tar(root: Path, scratch: Path) -> None:
    with tarfile.open(fileobj=io.BytesIO(), mode="w:gz") as archive:
        archive.add(root, arcname="ws")


def _zip(root: Path, scratch: Path) -> None:
    with zipfile.ZipFile(io.BytesIO(), "w") as archive:
        for path in sorted(root.rglob("*")):
            if path.is_file():
                archive.write(path, path.relative_to(root).as_posix())


def _read_store_files(root: Path, scratch: Path) -> None:
    for path in sorted((root / ".snapline").iterdir()):
        if path.is_file():
            path.read_bytes()


_OTHER = (
    "import sys\n"
    "from snapline import Workspace\n"
    "with Workspace.open(sys.argv[1]) as ws:\n"
    "    print(ws.write_file(sys.argv[2], sys.argv[2]).number)\n"
)


@pytest.mark.parametrize(
    "copy",
    [_copytree, _tar, _zip, _read_store_files],
    ids=["copytree", "tar", "zip", "read-store-files"],
)
def test_copying_the_workspace_while_it_is_open_loses_nothing(
    root: Path, tmp_path: Path, copy: Callable[[Path, Path], None]
) -> None:
    (root / "a.txt").write_text("0\n")
    acknowledged: list[int] = []
    with Workspace.init(root) as ws:
        for round_ in range(1, 5):
            snapshot = ws.write_file("a.txt", f"{round_}\n")
            assert snapshot is not None
            acknowledged.append(snapshot.number)
            copy(root, tmp_path)
            # Another process writes and closes: the last connection to close
            # checkpoints and deletes the WAL unless this process still holds its locks.
            other = subprocess.run(
                [sys.executable, "-c", _OTHER, str(root), f"other{round_}.txt"],
                capture_output=True,
                text=True,
                check=True,
            )
            acknowledged.append(int(other.stdout))
        last = ws.write_file("a.txt", "last\n")
        assert last is not None
        acknowledged.append(last.number)
    assert sorted(acknowledged) == list(range(1, len(acknowledged) + 1)), acknowledged
    with Workspace.open(root) as ws:
        stored = [snapshot.number for snapshot in ws.snapshots()]
        assert stored == list(range(len(acknowledged) + 1))
        assert ws.verify().ok
        assert (root / "a.txt").read_text() == "last\n"
        assert ws.content_at("a.txt", acknowledged[0]) == b"1\n"


def test_a_copy_whose_index_alone_was_deleted_rebuilds_it_from_the_ledger(
    root: Path, tmp_path: Path
) -> None:
    """The WAL copied beside the index belongs to the deleted file, not to the new one.

    SQLite pairs a database with its ``-wal`` (and ``-shm``) by name alone: the log of
    the deleted index, applied to the index built in its place, gave a file of mixed
    pages ("malformed", or rows that contradict the ledger). Enough files that the
    baseline's pages are not all in the log.
    """
    for n in range(100):
        (root / f"f{n:03d}.txt").write_text(f"file {n}\n" * 50)
    copy = tmp_path / "copy"
    with Workspace.init(root) as ws:
        for round_ in range(3):
            ws.write_file(f"f{round_:03d}.txt", f"round {round_}\n" * 30)
        shutil.copytree(root, copy)
    store = copy / ".snapline"
    (store / "index.db").unlink()
    assert (store / "index.db-wal").stat().st_size > 0

    verified = cli(copy, "verify")

    assert verified.returncode == 0, verified.stderr
    assert "snapshots 0..3 verified" in verified.stdout
    assert verified.stderr == ""
    assert cli(copy, "log", "--json").stdout == cli(root, "log", "--json").stdout
    assert not list(store.glob("*.damaged"))
