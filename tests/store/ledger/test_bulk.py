"""Filling an empty index in bulk (a rollback journal, not the WAL): same rows, same safety."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from snapline import Workspace
from snapline.store.connection import Connection
from snapline.store.dbfile import identity, remove_stale_logs
from snapline.store.sqlite import SqliteStore
from tests.store.ledger.written import MAIN_SNAPSHOTS, ledger_workspace

_TABLES = (
    "meta",
    "snapshots",
    "changes",
    "blobs",
    "state",
    "stat_cache",
    "milestones",
    "ledger_files",
    "side_snapshots",
    "forgotten",
    "verified",
    "journal",
)


def _index(root: Path) -> Path:
    return root / ".snapline" / "index.db"


def _remove_index(root: Path) -> None:
    for path in (root / ".snapline").glob("index.db*"):
        path.unlink()


def _rows(root: Path) -> dict[str, list[tuple[object, ...]]]:
    """Every row of every table; of the stat cache, all but when it was filled."""
    db = sqlite3.connect(_index(root))
    try:
        rows = {t: sorted(db.execute(f"SELECT * FROM {t}").fetchall(), key=repr) for t in _TABLES}
        mode = db.execute("PRAGMA journal_mode").fetchone()[0]
    finally:
        db.close()
    rows["stat_cache"] = [row[:-1] for row in rows["stat_cache"]]
    rows["journal mode"] = [(mode,)]
    return rows


def test_an_index_filled_in_bulk_holds_what_one_filled_through_the_wal_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tmp_path = ledger_workspace(tmp_path / "ws")
    _remove_index(tmp_path)
    with monkeypatch.context() as patch:
        # The rebuild as it was before bulk loading: one write transaction in the WAL.
        patch.setattr(Connection, "bulk_write", Connection.write)
        Workspace.open(tmp_path).close()
    through_wal = _rows(tmp_path)
    _remove_index(tmp_path)

    Workspace.open(tmp_path).close()

    assert _rows(tmp_path) == through_wal
    assert through_wal["journal mode"] == [("wal",)]
    assert len(through_wal["snapshots"]) == MAIN_SNAPSHOTS
    assert not (tmp_path / ".snapline" / "index.db-journal").exists()
    with Workspace.open(tmp_path) as ws:
        assert ws.verify().ok


def test_a_bulk_load_killed_midway_is_rolled_back_and_redone_on_the_next_open(
    tmp_path: Path,
) -> None:
    tmp_path = ledger_workspace(tmp_path / "ws")
    with Workspace.open(tmp_path) as ws:
        expected = [ws.snapshot(n) for n in range(ws.latest + 1)]
    _remove_index(tmp_path)
    # Killed once every snapshot and the baseline's content are in, before the commit.
    script = textwrap.dedent(
        """
        import os, signal, sys
        from snapline import Workspace
        from snapline.store.ledger import sync

        def die(*args):
            os.kill(os.getpid(), signal.SIGKILL)

        sync.import_milestones = die
        Workspace.open(sys.argv[1])
        """
    )
    done = subprocess.run([sys.executable, "-c", script, str(tmp_path)], check=False)
    assert done.returncode == -9
    assert (tmp_path / ".snapline" / "index.db-journal").stat().st_size > 0

    with Workspace.open(tmp_path) as ws:
        assert [ws.snapshot(n) for n in range(ws.latest + 1)] == expected
        assert ws.verify().ok
    assert not list((tmp_path / ".snapline").glob("*.damaged"))
    assert _rows(tmp_path)["journal mode"] == [("wal",)]


@pytest.fixture
def store(tmp_path: Path) -> SqliteStore:
    created = SqliteStore.create(tmp_path / "index.db", {}, busy_timeout=5.0)
    with created.write():
        created.blobs.put_many([("sha256:" + "0" * 64, 1, b"r0")])
    return created


def _journal_mode(connection: Connection) -> str:
    return str(connection.query("PRAGMA journal_mode")[0][0])


def test_a_bulk_write_uses_a_rollback_journal_and_restores_the_wal(store: SqliteStore) -> None:
    connection = store.connection
    seen = []
    with connection.bulk_write():
        seen.append(_journal_mode(connection))
        store.blobs.put_many([("sha256:" + "1" * 64, 1, b"r1")])
    assert seen == ["delete"]
    assert _journal_mode(connection) == "wal"
    assert len(store.blobs.hashes()) == 2
    store.close()


def test_a_bulk_write_that_fails_leaves_nothing_and_restores_the_wal(store: SqliteStore) -> None:
    connection = store.connection
    with pytest.raises(KeyError), connection.bulk_write():
        store.blobs.put_many([("sha256:" + "1" * 64, 1, b"r1")])
        raise KeyError("stop")
    assert store.blobs.hashes() == ["sha256:" + "0" * 64]
    assert _journal_mode(connection) == "wal"
    store.close()


def test_a_bulk_write_beside_another_open_connection_goes_through_the_wal(
    store: SqliteStore, tmp_path: Path
) -> None:
    other = sqlite3.connect(tmp_path / "index.db", isolation_level=None)
    try:
        assert other.execute("SELECT count(*) FROM blobs").fetchone() == (1,)
        seen = []
        with store.connection.bulk_write():
            seen.append(_journal_mode(store.connection))
            store.blobs.put_many([("sha256:" + "1" * 64, 1, b"r1")])
        # Not waited for (the other connection may stay open): the WAL is used instead.
        assert seen == ["wal"]
        assert other.execute("SELECT count(*) FROM blobs").fetchone() == (2,)
    finally:
        other.close()
    assert os.path.exists(f"{tmp_path / 'index.db'}-wal")
    store.close()


def test_a_bulk_write_into_a_file_that_lost_its_name_keeps_to_the_wal(
    store: SqliteStore, tmp_path: Path
) -> None:
    """Leaving WAL mode deletes the log and creates a journal by name: once another index
    has taken this file's name (deleted, and built anew by another process), those names
    are that index's, whose log holds what it committed."""
    path = tmp_path / "index.db"
    path.unlink()
    remove_stale_logs(path)
    SqliteStore.create(tmp_path / "new.db", {}, busy_timeout=5.0).close()
    os.replace(tmp_path / "new.db", path)
    other = SqliteStore.open(path, busy_timeout=5.0)
    try:
        with other.write():
            other.blobs.put_many([("sha256:" + "2" * 64, 1, b"r2")])
        log = identity(f"{path}-wal")
        assert log is not None
        seen = []
        with store.connection.bulk_write():
            seen.append(_journal_mode(store.connection))
            store.blobs.put_many([("sha256:" + "1" * 64, 1, b"r1")])
            seen.append(os.path.exists(f"{path}-journal"))
        assert seen == ["wal", False]
        assert identity(f"{path}-wal") == log
        assert other.blobs.hashes() == ["sha256:" + "2" * 64]
    finally:
        other.close()
    store.close()
    reopened = SqliteStore.open(path, busy_timeout=5.0)
    assert reopened.blobs.hashes() == ["sha256:" + "2" * 64]
    reopened.close()
