"""A broken or tampered store: a clear error that says what and where, and nothing lost.

Each case damages the store the way a disk, a bad copy or a person would: not a database
at all, truncated, written by a newer snapline, rows edited by hand, stored content
deleted or bit-flipped. The store is the default one (git's refs; outside git the
private repository ``.snapline/repo`` and its index ``.snapline/index.db``); the cases of
an old branch's in-tree ledger (its ``FORMAT`` damaged or newer) take that ledger from
the fixture its code wrote (tests/fixtures/ledger-2). Reading commands report exactly
what is wrong (``verify`` exits 3); writing commands refuse to build on the damage; no
damaged content ever reaches the workspace, and the store file itself is never
"repaired" behind the user's back.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from snapline import (
    RollbackConflictError,
    SnaplineError,
    StoreCorruptError,
    StoreVersionError,
    Workspace,
)
from tests.old_ledgers import LEDGER, ledger_checkout
from tests.reliability import figures
from tests.reliability.crafting import reseal, sql
from tests.reliability.helpers import cli, tree

_LONG = "".join(f"line {i} of a file long enough to be compressed\n" for i in range(40))


def _workspace(tmp_path: Path) -> Path:
    """Snapshots 0..5: text deltas, full content (raw and compressed), a deletion."""
    root = tmp_path / "ws"
    root.mkdir()
    (root / "a.txt").write_text(_LONG)
    (root / "tiny.txt").write_text("t0\n")
    (root / "bin.dat").write_bytes(bytes(range(256)) * 4)
    with Workspace.init(root) as ws:
        ws.write_file("a.txt", _LONG.replace("line 7 ", "LINE 7 "))  # 1: delta
        ws.write_file("new.txt", "x")  # 2: full, stored raw
        ws.write_file("tiny.txt", "t3\n")  # 3: delta
        ws.write_file("a.txt", _LONG.replace("line 9 ", "LINE 9 "))  # 4: delta
        ws.delete_file("new.txt")  # 5
    return root


def _ledger_workspace(tmp_path: Path) -> Path:
    """An old in-tree ledger outside git (ledger-2's checkout), its index built."""
    root = ledger_checkout(tmp_path / "ws", git=False).path
    assert cli(root, "log").returncode == 0
    return root


def _store_bytes(root: Path) -> str:
    # SQLite may add its -wal and -shm side files to read a WAL database; the database
    # file itself must not change.
    return hashlib.sha256((root / ".snapline" / "index.db").read_bytes()).hexdigest()


def _refuses_to_write(root: Path, code: int, *, every_command: bool = False) -> None:
    """Writing commands fail with ``code`` and change neither the tree nor the store.

    Each command costs a process start, so most cases try the two that matter most and
    one case tries them all.
    """
    before, store = tree(root), _store_bytes(root)
    (root / "outside-edit.txt").write_text("recorded by nobody\n")
    attempts = [("record", "-m", "on top of damage"), ("rollback", "--to", "0")]
    if every_command:
        attempts += [
            ("revert", "1"),
            ("milestone", "create", "-m", "seal the damage"),
            ("resync", "-m", "adopt"),
            ("gc",),
        ]
    for argv in attempts:
        result = cli(root, *argv)
        assert result.returncode == code, (argv, result.returncode, result.stderr)
        assert result.stderr.startswith("snapline: error: ") and result.stderr.count("\n") == 1
        figures.add("hostile_writes_refused")
    (root / "outside-edit.txt").unlink()
    assert tree(root) == before
    assert _store_bytes(root) == store


# -- not a store at all -------------------------------------------------------------------


def _foreign_database(db: Path) -> None:
    other = sqlite3.connect(db)
    other.execute("CREATE TABLE notes (text TEXT)")
    other.execute("INSERT INTO notes VALUES ('somebody else''s data')")
    other.commit()
    other.close()


_NOT_A_STORE: dict[str, Callable[[Path], None]] = {
    "garbage": lambda db: db.write_bytes(os.urandom(8192)),
    "text": lambda db: db.write_text("this is not a database\n" * 100),
    "empty": lambda db: db.write_bytes(b""),
    "foreign-sqlite": _foreign_database,
}


@pytest.mark.parametrize("kind", sorted(_NOT_A_STORE))
def test_a_damaged_index_is_set_aside_and_rebuilt(tmp_path: Path, kind: str) -> None:
    """The index is a cache of the refs: a file SQLite cannot use is kept, untouched,
    under another name (never written to: opening once switched it to WAL mode, changing
    an empty file or another database), said so, and the index is built again."""
    root = _workspace(tmp_path)
    log_before = cli(root, "log", "--json").stdout
    db = root / ".snapline" / "index.db"
    for part in db.parent.glob("index.db*"):
        part.unlink()
    _NOT_A_STORE[kind](db)
    damaged = _store_bytes(root)
    verify = cli(root, "verify")
    assert verify.returncode == 0, verify.stderr
    assert "set aside as index.db.damaged" in verify.stderr and verify.stderr.count("\n") == 1
    kept = db.with_name("index.db.damaged")
    assert hashlib.sha256(kept.read_bytes()).hexdigest() == damaged
    assert cli(root, "log", "--json").stdout == log_before
    figures.add("hostile_stores")


@pytest.mark.parametrize("keep", [100, 4096, 0.25, 0.5, -4096])
def test_a_truncated_index_is_rebuilt(tmp_path: Path, keep: float) -> None:
    root = _workspace(tmp_path)
    log_before = cli(root, "log", "--json").stdout
    db = root / ".snapline" / "index.db"
    size = db.stat().st_size
    cut = int(size * keep) if isinstance(keep, float) else keep % size
    os.truncate(db, cut)
    with Workspace.open(root) as ws:
        assert ws.verify().ok
    assert cli(root, "log", "--json").stdout == log_before
    figures.add("hostile_stores")


_NOT_A_LEDGER = {
    "garbage": b"\x00\xff" * 20,
    "another format": b"git ledger 1\n",
    "empty": b"",
}


@pytest.mark.parametrize("kind", sorted(_NOT_A_LEDGER))
def test_a_ledger_that_is_not_one_is_refused(tmp_path: Path, kind: str) -> None:
    root = _ledger_workspace(tmp_path)
    (root / LEDGER / "FORMAT").write_bytes(_NOT_A_LEDGER[kind])
    with pytest.raises(StoreCorruptError) as caught:
        Workspace.open(root)
    assert "FORMAT" in str(caught.value) and caught.value.exit_code == 3
    verify = cli(root, "verify")
    assert verify.returncode == 3 and "FORMAT" in verify.stderr, verify.stderr
    # Other commands send the user to `snapline verify`; verify itself gives the repair.
    assert "snapline verify" in str(caught.value), caught.value
    assert "snapline verify" not in verify.stderr, verify.stderr
    assert "Restore .snapline/ from a backup" in verify.stderr, verify.stderr
    _refuses_to_write(root, 3, every_command=kind == "garbage")
    # init will not start over on top of it either: the user decides what to keep.
    again = cli(root, "init")
    assert again.returncode == 2 and "already has a snapline store" in again.stderr
    figures.add("hostile_stores")


def test_newer_format_version(tmp_path: Path) -> None:
    root = _ledger_workspace(tmp_path)
    (root / LEDGER / "FORMAT").write_text("snapline ledger 99\n")
    with pytest.raises(StoreVersionError) as caught:
        Workspace.open(root)
    assert caught.value.found == 99 and "upgrade snapline" in str(caught.value)
    verify = cli(root, "verify")
    assert verify.returncode == 3 and "format version 99" in verify.stderr
    _refuses_to_write(root, 3)
    figures.add("hostile_stores")


# -- rows edited by hand --------------------------------------------------------------------


def test_an_edited_row_is_named_by_verify(tmp_path: Path) -> None:
    root = _workspace(tmp_path)
    sql(root, "UPDATE snapshots SET description = 'nothing to see' WHERE number = 2")
    with Workspace.open(root) as ws:
        problems = ws.validate().problems
    # (An in-tree ledger's file disagreeing too is the ledger reader's check,
    # tests/ledger/test_verify_ledger_problems.py.)
    assert [(p.kind, p.number, p.severity) for p in problems] == [
        ("chain-mismatch", 2, "corrupt"),
    ]
    verify = cli(root, "verify", "--json")
    assert verify.returncode == 3
    assert [(p["kind"], p["number"]) for p in json.loads(verify.stdout)["problems"]] == [
        ("chain-mismatch", 2),
    ]
    text = cli(root, "verify")
    assert text.returncode == 3 and "snapshot 2 does not match its chain hash" in text.stdout
    figures.add("hostile_stores")


_TIP_EDITS = {
    "description": "UPDATE snapshots SET description = 'rewritten' WHERE number = 5",
    "result-hash": "UPDATE changes SET base_hash = 'sha256:' || substr(base_hash, 8, 63) || '0' "
    "WHERE snapshot = 5",
    "parent-link": "UPDATE snapshots SET parent_id = 'f00' WHERE number = 5",
    "dropped-change": "DELETE FROM changes WHERE snapshot = 5",
}


@pytest.mark.parametrize("edit", sorted(_TIP_EDITS))
def test_nothing_is_recorded_on_top_of_an_edited_latest_snapshot(tmp_path: Path, edit: str) -> None:
    """Regression: writers appended to a tampered tip, sealing it under a valid new chain."""
    root = _workspace(tmp_path)
    sql(root, _TIP_EDITS[edit])
    with Workspace.open(root) as ws:
        assert {(p.kind, p.number) for p in ws.validate().problems} >= {("chain-mismatch", 5)}
        before = tree(root)
        with pytest.raises(StoreCorruptError, match="snapshot 5"):
            ws.write_file("a.txt", "on top of an edited snapshot\n")
        with pytest.raises(StoreCorruptError, match="snapshot 5"):
            ws.rollback(0)
        # A dry run is a promise (issue 25): it refuses what the real run refuses.
        with pytest.raises(StoreCorruptError, match="snapshot 5"):
            ws.rollback(0, dry_run=True)
        with pytest.raises(StoreCorruptError, match="snapshot 5"):
            ws.milestones.create("seal it")
        assert tree(root) == before and ws.latest == 5 and ws.milestones.list() == []
    for args in (("rollback", "--to", "1"), ("rollback", "--to", "1", "--dry-run")):
        result = cli(root, *args)
        assert result.returncode == 3 and "snapshot 5" in result.stderr, args
    assert tree(root) == before
    figures.add("hostile_stores")
    figures.add("hostile_writes_refused", 4)


# -- stored content missing or damaged -----------------------------------------------------


def test_missing_content(tmp_path: Path) -> None:
    root = _workspace(tmp_path)
    with Workspace.open(root) as ws:
        ref = ws.snapshot(2).file("new.txt").content_ref  # type: ignore[union-attr]
    sql(root, "DELETE FROM blobs WHERE hash = ?", ref)
    verify = cli(root, "verify", "--json")
    problems = json.loads(verify.stdout)["problems"]
    assert verify.returncode == 3
    assert [(p["kind"], p["path"], p["number"]) for p in problems] == [
        ("missing-content", "new.txt", 2)
    ]
    before = tree(root)
    with Workspace.open(root) as ws:
        with pytest.raises(StoreCorruptError, match=r"new\.txt in snapshot 2"):
            ws.content_at("new.txt", 2)
        with pytest.raises(StoreCorruptError, match=r"new\.txt in snapshot 2"):
            ws.rollback(2)
    result = cli(root, "rollback", "--to", "3")
    assert result.returncode == 3 and "is missing" in result.stderr
    assert tree(root) == before
    figures.add("hostile_stores")


def _flip(data: bytes, at: int) -> bytes:
    return data[:at] + bytes([data[at] ^ 0x01]) + data[at + 1 :]


def _flipped_blob(root: Path, reference: bytes) -> bytes:
    """A reference to a new git blob: the one ``reference`` names with one bit flipped."""
    repo = ["git", "--git-dir", str(root / ".snapline" / "repo")]
    blob = reference[1:].decode("ascii")
    data = subprocess.run([*repo, "cat-file", "blob", blob], capture_output=True, check=True)
    flipped = _flip(data.stdout, len(data.stdout) - 3)
    written = subprocess.run(
        [*repo, "hash-object", "-w", "--stdin"], input=flipped, capture_output=True, check=True
    )
    return b"g" + written.stdout.strip()


@pytest.mark.parametrize("target", ["small-blob", "text-blob", "delta"])
def test_bit_flipped_content_never_reaches_the_disk(tmp_path: Path, target: str) -> None:
    """One flipped bit, with the chain resealed so that only the content hash can tell.

    A whole version is in git's objects, the index naming its blob (codec ``g``): the
    damage is a blob of other bytes named in its place.
    """
    root = _workspace(tmp_path)
    with Workspace.open(root) as ws:
        baseline = {f.path: f.content_ref for f in ws.snapshot(0).files}
    if target == "delta":
        # Snapshot 1's forward delta of a.txt: "=N\t-M\t+LINE..." with a changed digit.
        (forward,) = sql(root, "SELECT forward FROM changes WHERE snapshot = 1")[0]
        assert isinstance(forward, bytes) and forward[:1] == b"r"
        sql(root, "UPDATE changes SET forward = ? WHERE snapshot = 1", forward.replace(b"L", b"K"))
        reseal(root)
        path, number, rollback_to = "a.txt", 1, 1
    else:
        path = "tiny.txt" if target == "small-blob" else "a.txt"
        ref = baseline[path]
        (data,) = sql(root, "SELECT data FROM blobs WHERE hash = ?", ref)[0]
        assert isinstance(data, bytes) and data[:1] == b"g"
        sql(root, "UPDATE blobs SET data = ? WHERE hash = ?", _flipped_blob(root, data), ref)
        number, rollback_to = 0, 0
    with Workspace.open(root) as ws:
        # The chain was resealed: only content checks can tell. (An in-tree ledger's
        # file, still holding the delta as recorded, told too: the ledger reader's.)
        assert ws.validate().problems == ()
        deep = ws.validate(deep=True).problems
        assert deep and all(p.kind == "corrupt-content" for p in deep)
        assert any(p.path == path and p.number == number for p in deep), deep
        with pytest.raises(StoreCorruptError, match=f"{path} in snapshot {number}"):
            ws.content_at(path, number)
    verify = cli(root, "verify", "--deep")
    assert verify.returncode == 3 and f"{path} in snapshot {number}" in verify.stdout
    before = tree(root)
    result = cli(root, "rollback", "--to", str(rollback_to))
    assert result.returncode == 3, result.stderr
    assert "hashes to" in result.stderr or "is damaged" in result.stderr, result.stderr
    assert tree(root) == before  # hash checked before anything touched the disk
    with Workspace.open(root) as ws:
        with pytest.raises((StoreCorruptError, RollbackConflictError)):
            ws.rollback(rollback_to, force=True)
        assert ws.check_sync().ok and ws.latest == 5
    assert tree(root) == before
    figures.add("hostile_stores")


def test_errors_are_snapline_errors_with_data(tmp_path: Path) -> None:
    """The errors above carry their data, not just a message (STYLE.md habit 3)."""
    root = _ledger_workspace(tmp_path)
    (root / LEDGER / "FORMAT").write_bytes(b"\x00" * 100)
    with pytest.raises(SnaplineError) as caught:
        Workspace.open(root)
    assert isinstance(caught.value, StoreCorruptError)
    assert caught.value.path.endswith("FORMAT") and caught.value.detail
