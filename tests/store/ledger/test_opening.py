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
from pathlib import Path

import pytest

from snapline import Workspace
from snapline.store.dbfile import remove_stale_logs
from tests.store.ledger.written import MAIN_SNAPSHOTS, ledger_workspace


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """A workspace whose ledger holds snapshots 0..14, its index built, no process holding it."""
    root = ledger_workspace(tmp_path / "ws")
    Workspace.open(root).close()
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
        assert ws.latest == MAIN_SNAPSHOTS - 1
        assert ws.verify().ok
    assert caplog.records == []
    assert not list(_store(root).glob("*.damaged"))
    assert not (_store(root) / "index.db-journal").exists()
    assert _snapline(root, "log", "--json").stdout == log_before


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
