"""Check records: one spelling each, damage named, other lines' records kept apart.

On git's refs (the default store) each record is a commit on its line's checks ref; an
old branch's in-tree ledger keeps them as files, read from the fixture it wrote.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from snapline import StoreCorruptError, Workspace
from snapline.store.ledger.check_format import CheckRecord, parse_check, render_check
from snapline.store.ledger.lines import LedgerFormatError
from tests.conftest import GIT_IDENTITY
from tests.history_refs.upgrading import clone_fixture

ID = "3f2a9c0b5e1d4c7a9b8e6f5d4c3b2a19"
RECORD = (
    "snapline check 1\n"
    f"snapshot 12 {ID}\n"
    "time 2026-11-23T05:48:11.123456+00:00\n"
    "exit 1\n"
    'command ["python", "-m", "pytest", "-q"]\n'
    'session "s1"\n'
).encode()


def test_the_documented_example_reads_and_writes_back_byte_for_byte() -> None:
    record = parse_check(RECORD)
    assert record == CheckRecord(
        12, ID, "2026-11-23T05:48:11.123456+00:00", 1, ("python", "-m", "pytest", "-q"), "s1"
    )
    assert render_check(record) == RECORD
    # Without a session, and with arguments JSON must escape (or cannot carry as UTF-8).
    odd = CheckRecord(0, ID, "2026-11-23T05:48:11Z", 137, ('a "b"\n', "é", "bad\udcff"))
    assert parse_check(render_check(odd)) == odd


@pytest.mark.parametrize(
    ("edit", "said"),
    [
        (lambda t: t.replace("snapline check 1", "snapline check 2"), "upgrade snapline"),
        (lambda t: t.replace("exit 1", "exit -1"), "line 4"),
        (lambda t: t.replace("exit 1", "exit 01"), "line 4"),
        (lambda t: t.replace('", "', '","'), "canonical"),
        (lambda t: t.replace('["python", "-m", "pytest", "-q"]', "[]"), "non-empty"),
        (lambda t: t.replace(f"snapshot 12 {ID}", "snapshot 12"), "line 2"),
        (lambda t: t + "extra\n", "unexpected line"),
        (lambda t: t.rstrip("\n"), "line end"),
        (lambda t: t.replace("\n", "\r\n"), "line 1"),
    ],
)
def test_anything_the_writer_would_not_write_is_refused(edit: object, said: str) -> None:
    assert callable(edit)
    with pytest.raises(LedgerFormatError, match=said):
        parse_check(edit(RECORD.decode()).encode())


def test_a_damaged_record_of_an_in_tree_ledger_is_named_by_verify_and_stops_log_with_exit_3(
    tmp_path: Path,
) -> None:
    # An old branch's in-tree ledger (written by c82d55b): its one check record, damaged.
    repo = clone_fixture("ledger-2", tmp_path / "repo")
    [record] = (repo.path / ".snapline" / "ledger" / "checks").iterdir()
    record.write_bytes(record.read_bytes().replace(b"exit 0", b"exit zero"))
    verify = repo.snap("verify", "--json")
    assert verify.returncode == 3
    [problem] = json.loads(verify.stdout)["problems"]
    assert problem["path"] == f".snapline/ledger/checks/{record.name}"
    log = repo.snap("log")
    assert log.returncode == 3
    assert record.name in log.stderr


def _add_record(root: Path, name: str, record: bytes) -> None:
    """A check record committed onto the line's checks ref with plain git, as a crafted
    or another writer's history would hold it: one blob per commit, on the tip."""
    git = ["git", "--git-dir", str(root / ".snapline" / "repo")]
    env = {**os.environ, **GIT_IDENTITY}

    def run(*args: str, data: bytes | None = None) -> str:
        done = subprocess.run([*git, *args], input=data, capture_output=True, env=env, check=True)
        return done.stdout.decode().strip()

    ref = run("for-each-ref", "--format=%(refname)", "refs/snapline/checks/")
    blob = run("hash-object", "-w", "--stdin", data=record)
    tree = run("mktree", data=f"100644 blob {blob}\t{name}\n".encode())
    commit = run("commit-tree", tree, "-p", ref, "-m", "another writer's check")
    run("update-ref", ref, commit)


def test_a_record_counts_only_for_the_snapshot_with_its_number_and_id(root: Path) -> None:
    (root / "a.txt").write_text("a\n")
    with Workspace.init(root) as ws:
        ws.write_file("a.txt", "b\n")
        assert ws.guard([sys.executable, "-c", "pass"]).passed
        name = ws.check_outcomes()[1].record
        # The same record under another snapshot's id (another line's snapshot 1), and
        # one naming a snapshot this checkout does not have: kept, shown nowhere.
        other = render_check(CheckRecord(1, ID, "2026-11-23T05:48:11Z", 1, ("false",)))
        _add_record(root, f"20261123T054811Z-{ID}.check", other)
        far = render_check(CheckRecord(9, ID, "2026-11-23T05:48:11Z", 1, ("false",)))
        _add_record(root, f"20261123T054811Z-{'0' * 32}.check", far)
    with Workspace.open(root) as ws:
        outcomes = ws.check_outcomes()
        assert list(outcomes) == [1]
        assert outcomes[1].record == name and outcomes[1].passed
        assert ws.verify().ok


def test_the_latest_check_of_a_snapshot_is_the_one_shown(ws: Workspace) -> None:
    assert not ws.guard([sys.executable, "-c", "raise SystemExit(1)"]).passed
    assert ws.check_outcomes()[0].exit_code == 1
    assert ws.guard([sys.executable, "-c", "pass"]).passed
    assert ws.check_outcomes()[0].passed


def test_a_store_without_a_ledger_refuses_to_keep_a_check() -> None:
    from snapline.guard import NoCheckLogError, add_outcome, outcomes
    from snapline.store.sqlite import SqliteStore

    assert issubclass(NoCheckLogError, Exception)
    store = SqliteStore.__new__(SqliteStore)  # never opened: neither call touches it
    assert outcomes(store) == {}
    with pytest.raises(NoCheckLogError):
        add_outcome(
            store, number=0, snapshot_id=ID, exit_code=0, command=["x"], time="", session=None
        )
    assert StoreCorruptError is not None
