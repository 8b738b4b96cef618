"""Check records in the ledger: one spelling each, damage named, other lines' records kept apart."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from snapline import StoreCorruptError, Workspace
from snapline.store.ledger.check_format import CheckRecord, parse_check, render_check
from snapline.store.ledger.lines import LedgerFormatError
from tests.cli.conftest import run_script

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


def _guard(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run_script("--root", str(root), "guard", *args, cwd=root)


def test_a_damaged_record_is_named_by_verify_and_stops_log_with_exit_3(root: Path) -> None:
    (root / "a.txt").write_text("a\n")
    Workspace.init(root, in_tree=True).close()
    assert _guard(root, "--", sys.executable, "-c", "pass").returncode == 0
    [record] = (root / ".snapline" / "ledger" / "checks").iterdir()
    record.write_bytes(record.read_bytes().replace(b"exit 0", b"exit zero"))
    verify = run_script("--root", str(root), "verify", "--json", cwd=root)
    assert verify.returncode == 3
    [problem] = json.loads(verify.stdout)["problems"]
    assert problem["path"] == f".snapline/ledger/checks/{record.name}"
    log = run_script("--root", str(root), "log", cwd=root)
    assert log.returncode == 3
    assert record.name in log.stderr


def test_a_record_counts_only_for_the_snapshot_with_its_number_and_id(root: Path) -> None:
    (root / "a.txt").write_text("a\n")
    with Workspace.init(root, in_tree=True) as ws:
        ws.write_file("a.txt", "b\n")
        assert ws.guard([sys.executable, "-c", "pass"]).passed
        [name] = [p.name for p in (root / ".snapline" / "ledger" / "checks").iterdir()]
        checks = root / ".snapline" / "ledger" / "checks"
        # The same record under another snapshot's id (another line's snapshot 1), and
        # one naming a snapshot this checkout does not have: kept, shown nowhere.
        other = render_check(CheckRecord(1, ID, "2026-11-23T05:48:11Z", 1, ("false",)))
        (checks / f"20261123T054811Z-{ID}.check").write_bytes(other)
        far = render_check(CheckRecord(9, ID, "2026-11-23T05:48:11Z", 1, ("false",)))
        (checks / f"20261123T054811Z-{'0' * 32}.check").write_bytes(far)
        outcomes = ws.check_outcomes()
        assert list(outcomes) == [1]
        assert outcomes[1].record == name and outcomes[1].passed
        assert ws.verify().ok


def test_the_latest_check_of_a_snapshot_is_the_one_shown(ws: Workspace) -> None:
    assert not ws.guard([sys.executable, "-c", "raise SystemExit(1)"]).passed
    assert ws.check_outcomes()[0].exit_code == 1
    assert ws.guard([sys.executable, "-c", "pass"]).passed
    assert ws.check_outcomes()[0].passed


def test_records_of_two_git_branches_merge_without_a_conflict(root: Path) -> None:
    git = shutil.which("git")
    assert git is not None

    def run(*args: str) -> None:
        subprocess.run([git, *args], cwd=root, check=True, capture_output=True)

    (root / "a.txt").write_text("a\n")
    Workspace.init(root, in_tree=True).close()
    run("init", "-q", "-b", "main")
    run("-c", "user.name=t", "-c", "user.email=t@t", "add", ".")
    run("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "base")
    run("checkout", "-q", "-b", "feature")
    with Workspace.open(root) as ws:
        ws.write_file("b.txt", "feature\n")
        assert not ws.guard([sys.executable, "-c", "raise SystemExit(1)"]).passed
    run("-c", "user.name=t", "-c", "user.email=t@t", "add", ".")
    run("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "feature")
    run("checkout", "-q", "main")
    with Workspace.open(root) as ws:
        ws.write_file("c.txt", "main\n")
        assert ws.guard([sys.executable, "-c", "pass"]).passed
    run("-c", "user.name=t", "-c", "user.email=t@t", "add", ".")
    run("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "main")
    run("-c", "user.name=t", "-c", "user.email=t@t", "merge", "-q", "--no-edit", "feature")

    assert len(list((root / ".snapline" / "ledger" / "checks").iterdir())) == 2
    with Workspace.open(root) as ws:
        report = ws.verify()
        assert not report.corrupt
        # Two lines, and the feature's file not on the main line yet: nothing damaged.
        assert {p.kind for p in report.problems} == {"lines", "untracked"}
        # The main line's snapshot 1 is main's, which passed; feature's 1 is on a side line.
        assert ws.check_outcomes()[1].passed
        ws.merge()
        assert ws.verify().ok
        assert list(ws.check_outcomes()) == [1]


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
