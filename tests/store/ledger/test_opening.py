"""Opening the local index: a missing one is built anew, and only its own logs are used.

SQLite pairs a database with its ``-wal``, ``-shm`` and ``-journal`` by name alone, so
an index created where a deleted one stood must not meet that one's logs; and the logs
of an index that exists (another process's, maybe not yet copied into the file) are
never touched.
"""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from snapline import Workspace
from snapline.snapshots.record.recorder import LOCK_NAME
from snapline.store.dbfile import identity, remove_stale_logs
from snapline.store.ledger.files import Ledger
from snapline.store.ledger.opening import open_index
from snapline.store.lockfile import FileLock


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """A workspace with snapshots 0..3 and no process holding it."""
    root = tmp_path / "ws"
    root.mkdir()
    for n in range(30):
        (root / f"f{n:02d}.txt").write_text(f"file {n}\n" * 40)
    with Workspace.init(root, in_tree=True) as ws:
        for round_ in range(3):
            ws.write_file(f"f{round_:02d}.txt", f"round {round_}\n")
    return root


def _snapline(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "snapline", "--root", str(root), *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _store(root: Path) -> Path:
    return root / ".snapline"


# A database that is not this index, killed in the middle of a transaction in rollback
# journal mode once pages have been written into the file: its hot journal stays behind.
_KILLED_MID_WRITE = textwrap.dedent(
    """
    import os, signal, sqlite3, sys
    db = sqlite3.connect(sys.argv[1], isolation_level=None)
    db.execute("CREATE TABLE notes (text BLOB)")
    db.execute("INSERT INTO notes VALUES (zeroblob(100000))")
    db.execute("BEGIN")
    db.execute("PRAGMA cache_size=1")
    db.execute("UPDATE notes SET text = zeroblob(5)")
    for n in range(50):
        db.execute("INSERT INTO notes VALUES (zeroblob(10000))")
    os.kill(os.getpid(), signal.SIGKILL)
    """
)


def test_a_hot_journal_left_by_a_deleted_index_is_not_rolled_into_the_new_one(
    root: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A journal names no database: rolled back, it would write its pages (here another
    database's) over the index built in the deleted one's place."""
    log_before = _snapline(root, "log", "--json").stdout
    index = _store(root) / "index.db"
    for part in _store(root).glob("index.db*"):
        part.unlink()
    killed = subprocess.run([sys.executable, "-c", _KILLED_MID_WRITE, str(index)], check=False)
    assert killed.returncode == -signal.SIGKILL
    assert (_store(root) / "index.db-journal").stat().st_size > 0
    index.unlink()

    with caplog.at_level(logging.WARNING), Workspace.open(root) as ws:
        assert ws.latest == 3
        assert ws.verify().ok
    assert caplog.records == []
    assert not list(_store(root).glob("*.damaged"))
    assert not (_store(root) / "index.db-journal").exists()
    assert _snapline(root, "log", "--json").stdout == log_before


def test_an_index_created_meanwhile_keeps_its_log(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two processes open a workspace that has no index: the one that waited for the
    lock finds the index the other created, and its log, holding a snapshot committed
    but not yet copied into the file, is left as it is."""
    for part in _store(root).glob("index.db*"):
        part.unlink()
    held: list[Workspace] = []
    started: list[bool] = []
    acquire = FileLock.acquire

    def other_process_first(lock: FileLock, *args: Any, **kwargs: Any) -> Any:
        # Between this process's look for the index and its lock, the other process
        # creates the index, fills it and records a snapshot it holds open.
        if not started:
            started.append(True)
            held.append(Workspace.open(root))
            held[0].write_file("new.txt", "committed into the log\n")
        return acquire(lock, *args, **kwargs)

    monkeypatch.setattr(FileLock, "acquire", other_process_first)
    wal = f"{_store(root) / 'index.db'}-wal"
    try:
        index = open_index(_store(root), Ledger(_store(root) / "ledger"), 5.0, LOCK_NAME)
        try:
            assert held and identity(wal) is not None
            assert index.snapshots.latest_number() == 4
        finally:
            index.close()
        assert held[0].latest == 4
    finally:
        for other in held:
            other.close()
    with Workspace.open(root) as ws:
        assert ws.latest == 4
        assert ws.verify().ok


@pytest.fixture
def holder(root: Path) -> Iterator[Workspace]:
    """The workspace held open, with a snapshot in its log not yet in the index file."""
    with Workspace.open(root) as ws:
        ws.write_file("held.txt", "recorded by the holder\n")
        assert identity(_store(root) / "index.db-wal") is not None
        yield ws


def test_an_index_deleted_under_a_process_holding_it_is_rebuilt_without_its_log(
    root: Path, holder: Workspace
) -> None:
    """The holder's log and shared memory are still open in that process: a new index
    that took them over would read the holder's pages as its own."""
    (_store(root) / "index.db").unlink()

    verified = _snapline(root, "verify")
    assert verified.returncode == 0, verified.stderr
    assert "snapshots 0..4 verified" in verified.stdout

    # The holder goes on in its own (nameless) index; what it records reaches the ledger,
    # and the new index catches up with it.
    recorded = holder.write_file("later.txt", "x\n")
    assert recorded is not None and recorded.number == 5
    holder.close()
    assert "snapshots 0..5 verified" in _snapline(root, "verify").stdout


def test_the_logs_of_an_index_that_exists_are_never_removed(root: Path) -> None:
    index = _store(root) / "index.db"
    with pytest.raises(FileExistsError):
        remove_stale_logs(index)
    assert index.is_file()


def test_only_the_logs_of_the_missing_file_are_removed(tmp_path: Path) -> None:
    for name in ("index.db-wal", "index.db-shm", "index.db-journal", "index.db.init", "lock"):
        (tmp_path / name).write_bytes(b"x")

    removed = remove_stale_logs(tmp_path / "index.db")

    assert sorted(os.path.basename(name) for name in removed) == [
        "index.db-journal",
        "index.db-shm",
        "index.db-wal",
    ]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["index.db.init", "lock"]
