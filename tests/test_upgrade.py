"""Upgrading a real 0.1.0 store (tests/fixtures/workspace-0.1.0.tar.gz) to the ledger.

Every case extracts the workspace that snapline 0.1.0 wrote (make_workspace_0_1_0.py)
and drives the real ``snapline`` command: the first open upgrades it, and the history
must come out whole — the same snapshots, links, milestones and known state, every
version rebuildable, a ledger that verifies in a fresh git clone. A damaged or unsettled
0.1 store is refused and left as it was; a crash at any step of the upgrade leaves a
store that the next open upgrades.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tarfile
from pathlib import Path
from typing import Any

import pytest

from snapline import Workspace
from snapline.cli.app import app
from snapline.milestones.seal import milestone_chain_hash
from snapline.store import MilestoneRow
from tests.cli_runner import CliRunner, Result

FIXTURES = Path(__file__).parent / "fixtures"
EXPECTED: dict[str, Any] = json.loads((FIXTURES / "workspace-0.1.0.json").read_text())

# What make_workspace_0_1_0.py wrote: the files at snapshot 2 ("add util").
AT_2 = {
    "README.md": b"# demo\n\nA project.\n",
    "logo.bin": bytes(range(256)) * 4,
    "notes.txt": b"keep me\n",
    "src/app.py": b"def main():\n    return 2\n",
    "src/util.py": b"X = 1\n",
}


def _extract(tmp_path: Path) -> Path:
    with tarfile.open(FIXTURES / "workspace-0.1.0.tar.gz") as archive:
        archive.extractall(tmp_path, filter="data")
    return tmp_path / "ws"


def _script(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The installed ``snapline`` command, run as a user runs it."""
    script = Path(sys.executable).with_name("snapline")
    return subprocess.run(
        [str(script), *args], cwd=root, capture_output=True, text=True, timeout=120, check=False
    )


def _snapline(root: Path, *args: str) -> Result:
    """The same command line in this process (a process start costs a second here)."""
    return CliRunner().invoke(app, ["--root", str(root), *args], catch_exceptions=False)


def _json(root: Path, *args: str) -> Any:
    result = _snapline(root, *args, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def _files(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".snapline" not in p.relative_to(root).parts
        and ".git" not in p.relative_to(root).parts
    }  # fmt: skip


def _store_bytes(root: Path) -> dict[str, str]:
    """Every file in .snapline/ but the lock (which any opener creates), by digest."""
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted((root / ".snapline").rglob("*"))
        if p.is_file() and p.name != "lock"
    }


def _assert_upgraded(root: Path) -> None:
    """The history the 0.1 store held, as the new layout and the real CLI show it."""
    verify = _snapline(root, "verify")
    assert verify.exit_code == 0, verify.output
    store_dir = root / ".snapline"
    assert not (store_dir / "store.db").exists()
    assert (store_dir / "store-0.1.0.db").is_file()
    assert (store_dir / "ledger" / "FORMAT").is_file()
    assert not list(store_dir.glob("*.init*"))
    log = sorted(_json(root, "log"), key=lambda s: s["number"])
    expected = EXPECTED["snapshots"]
    assert [(s["number"], s["id"], s["parent_id"], s["description"]) for s in log] == [
        (s["number"], s["id"], s["parent_id"], s["description"]) for s in expected
    ]
    assert {s["version"] for s in log} == {2}
    assert log[1]["session"] == "s1" and log[1]["metadata"] == {"turn": 1}
    milestones = _json(root, "milestone", "list")
    assert [(m["number"], m["title"], m["first"], m["last"]) for m in milestones] == [
        (m["number"], m["title"], m["first"], m["last"]) for m in EXPECTED["milestones"]
    ]
    assert milestones[0]["tags"] == ["v1"]
    with Workspace.open(root) as ws:
        assert ws.tracked() == EXPECTED["state"]
        for path, data in AT_2.items():
            assert ws.content_at(path, 2) == data
        assert ws.content_at("docs/notes.txt", 4) == b"keep me\n"
        assert ws.content_at("logo.bin", 5) == bytes(range(255, -1, -1)) * 4


def test_first_open_upgrades_and_keeps_the_whole_history(tmp_path: Path) -> None:
    root = _extract(tmp_path)
    old = (root / ".snapline" / "store.db").read_bytes()
    status = _script(root, "status")
    assert status.returncode == 0, status.stderr
    assert "upgraded the snapline 0.1 store" in status.stderr
    assert "store-0.1.0.db" in status.stderr
    _assert_upgraded(root)
    assert (root / ".snapline" / "store-0.1.0.db").read_bytes() == old
    assert "upgraded" not in _script(root, "status").stderr  # once only
    # The old chain hashes, for a person to check against the 0.1 store.
    upgraded = (root / ".snapline" / "ledger" / "UPGRADED").read_text()
    last, milestone = EXPECTED["snapshots"][-1], EXPECTED["milestones"][-1]
    assert f"snapshot {last['number']} {last['id']}\n" in upgraded
    assert f"snapshot-chain-v1 {last['chain_hash']}\n" in upgraded
    assert f"milestone {milestone['number']}\n" in upgraded
    assert f"milestone-chain-v1 {milestone['chain_hash']}\n" in upgraded


def test_two_first_opens_at_once_upgrade_once(tmp_path: Path) -> None:
    root = _extract(tmp_path)
    script = Path(sys.executable).with_name("snapline")
    opens = [
        subprocess.Popen(
            [str(script), "log", "--json"],
            cwd=root,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    results = [(p.wait(timeout=120), *p.communicate()) for p in opens]
    assert [code for code, _out, _err in results] == [0, 0], results
    assert [json.loads(out)[0]["id"] for _code, out, _err in results] == [
        EXPECTED["snapshots"][-1]["id"]
    ] * 2
    assert sum("upgraded the snapline 0.1 store" in err for _c, _o, err in results) == 1
    _assert_upgraded(root)


def test_the_upgraded_history_rolls_back_and_forward(tmp_path: Path) -> None:
    # The 0.1 store is read at once (as a ledger); the one upgrade moves it onto refs
    # (the private repository outside git), and only then does a command write.
    root = _extract(tmp_path)
    latest = _files(root)
    refused = _snapline(root, "rollback", "--to", "2")
    assert refused.exit_code == 1 and "snapline upgrade" in refused.stderr
    assert _files(root) == latest
    moved = _snapline(root, "upgrade")
    assert moved.exit_code == 0, moved.output
    assert _snapline(root, "rollback", "--to", "2").exit_code == 0
    assert _files(root) == AT_2
    assert _snapline(root, "rollback", "--to", "8").exit_code == 0
    assert _files(root) == latest
    verify = _snapline(root, "verify")
    assert verify.exit_code == 0, verify.output
    assert [s["number"] for s in _json(root, "log", "-n", "2")] == [10, 9]


def test_the_upgraded_ledger_travels_through_git(tmp_path: Path) -> None:
    # A team that committed .snapline/ (store.db) under 0.1, as its README said, upgrades
    # and follows the notice; a fresh clone then verifies and stays clean.
    root = _extract(tmp_path)
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@t", "GIT_CONFIG_GLOBAL": os.devnull,
    }  # fmt: skip

    def git(*args: str, cwd: Path = root) -> str:
        done = subprocess.run(
            ["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=True
        )
        return done.stdout

    git("init", "-q")
    git("add", ".")
    git("commit", "-q", "-m", "0.1")
    notice = _script(root, "status").stderr
    assert "git rm --cached .snapline/store.db" in notice
    git("rm", "-q", "--cached", ".snapline/store.db")
    git("add", ".snapline/ledger", ".snapline/.gitignore")
    git("commit", "-q", "-m", "upgraded")
    assert git("status", "--porcelain") == ""
    committed = git("ls-files", ".snapline").split()
    assert ".snapline/ledger/UPGRADED" in committed
    assert all(n == ".snapline/.gitignore" or n.startswith(".snapline/ledger/") for n in committed)
    clone = tmp_path / "clone"
    git("clone", "-q", str(root), str(clone))
    verify = _script(clone, "verify")
    assert verify.returncode == 0, verify.stdout + verify.stderr
    assert "upgraded" not in verify.stderr
    assert git("status", "--porcelain", cwd=clone) == ""
    with Workspace.open(clone) as ws:
        assert ws.content_at("src/app.py", 2) == AT_2["src/app.py"]
        assert ws.content_at("logo.bin", 0) == AT_2["logo.bin"]


def _damage(root: Path, sql: str) -> None:
    db = sqlite3.connect(root / ".snapline" / "store.db")
    with db:
        db.execute(sql)
    db.close()


@pytest.mark.parametrize(
    ("sql", "code", "says"),
    [
        ("UPDATE snapshots SET description = 'edited' WHERE number = 3", 3, "chain hash"),
        ("UPDATE milestones SET title = 'edited' WHERE number = 1", 3, "milestone 1"),
        (
            "INSERT INTO journal(op, created, payload) VALUES ('apply', '2026', '{}')",
            1,
            "snapline 0.1.0",
        ),
    ],
    ids=["edited-snapshot", "edited-milestone", "unsettled-journal"],
)
def test_a_damaged_or_unsettled_store_is_refused_and_left_as_it_was(
    tmp_path: Path, sql: str, code: int, says: str
) -> None:
    root = _extract(tmp_path)
    _damage(root, sql)
    before = _store_bytes(root)
    result = _script(root, "verify")
    assert result.returncode == code, result.stdout + result.stderr
    assert "cannot upgrade the snapline 0.1 store" in result.stderr
    assert says in result.stderr
    assert _store_bytes(root) == before
    again = _snapline(root, "status")  # refused again, the same way
    assert (again.exit_code, again.stderr) == (code, result.stderr)
    assert _store_bytes(root) == before


_CRASH_DRIVER = """
import os, signal, sys
from snapline import Workspace
from snapline.cli.app import app
import snapline.upgrade as upgrade
from snapline.store.ledger.files import Ledger

def die(*args, **kwargs):
    os.kill(os.getpid(), signal.SIGKILL)

step = sys.argv[2]
if step.startswith("ledger-file:"):
    count, write_new = [0], Ledger.write_new
    def counting(self, *args):
        count[0] += 1
        if count[0] == int(step.partition(":")[2]):
            die()
        return write_new(self, *args)
    Ledger.write_new = counting
elif step == "ledger-rename":
    rename = os.rename
    def renaming(source, target, *args, **kwargs):
        if str(target).endswith("ledger"):
            die()
        return rename(source, target, *args, **kwargs)
    os.rename = renaming
elif step == "set-aside":
    upgrade._set_aside = die
Workspace.open(sys.argv[1]).close()
print("no crash")
"""


@pytest.mark.parametrize("step", ["ledger-file:6", "ledger-rename", "set-aside"])
def test_a_crash_mid_upgrade_leaves_a_store_the_next_open_upgrades(
    tmp_path: Path, step: str
) -> None:
    root = _extract(tmp_path)
    old = (root / ".snapline" / "store.db").read_bytes()
    killed = subprocess.run(
        [sys.executable, "-c", _CRASH_DRIVER, str(root), step],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert killed.returncode == -9, killed.stdout + killed.stderr
    store_dir = root / ".snapline"
    if step == "set-aside":
        # Past the commit point: the new layout is whole, the old store not yet moved.
        assert (store_dir / "ledger" / "FORMAT").is_file()
    else:
        assert not (store_dir / "ledger").exists()
    assert (store_dir / "store.db").read_bytes() == old
    _assert_upgraded(root)


def test_a_write_ahead_log_left_by_a_0_1_process_is_upgraded_with_the_store(
    tmp_path: Path,
) -> None:
    # A 0.1 process that died with a commit in the log only: a third milestone.
    root = _extract(tmp_path)
    copy = tmp_path / "copy"
    db = sqlite3.connect(root / ".snapline" / "store.db", isolation_level=None)
    db.execute("PRAGMA wal_autocheckpoint=0")
    previous = EXPECTED["milestones"][-1]["chain_hash"]
    row = MilestoneRow(3, "third", "", "[]", "2026-11-23T06:00:00.000000Z", 8, 8, 1, "")
    sealed = milestone_chain_hash(previous, row, EXPECTED["snapshots"][8]["chain_hash"])
    values = (*row[:8], sealed)
    db.execute("INSERT INTO milestones VALUES (?,?,?,?,?,?,?,?,?)", values)
    shutil.copytree(root, copy)  # while the log holds the commit, as a crash leaves it
    db.close()
    assert (copy / ".snapline" / "store.db-wal").stat().st_size > 0
    verify = _snapline(copy, "verify")
    assert verify.exit_code == 0, verify.output
    titles = [m["title"] for m in _json(copy, "milestone", "list")]
    assert titles == ["first steps", "second", "third"]
    assert (copy / ".snapline" / "store-0.1.0.db-wal").is_file()
