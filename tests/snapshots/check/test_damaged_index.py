"""An index that opens but that SQLite's own check finds damaged: one line, and a way out.

tests/reliability/test_hostile_store.py sets aside an index SQLite cannot open. One that
opens can still be damaged (here a page the file lists but no table uses, which SQLite's
``quick_check`` reports and every query passes over): ``verify`` says so with exit 3,
naming the file and what to do, and the advice, run as printed, leaves a sound store
with the same history. SQLite is the oracle of the damage: its own check, asked here.
"""

from __future__ import annotations

import json
import shlex
import sqlite3
import struct
import subprocess
from pathlib import Path

import pytest

from tests.cli.conftest import run_script
from tests.history_refs.gitrepo import Repo

_PAGE_COUNT = 28  # the database header's "in-header database size", big-endian


def _add_pages_never_used(index: Path) -> str:
    """Grow ``index`` by two pages no table uses; what SQLite's check says of them.

    Two, so that SQLite reports two findings, which the message joins in one line.
    """
    with sqlite3.connect(index) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    page = 4096
    with open(index, "r+b") as handle:
        pages = len(handle.read()) // page
        handle.seek(_PAGE_COUNT)
        handle.write(struct.pack(">I", pages + 2))
        handle.seek(0, 2)
        handle.write(bytes(2 * page))
    db = sqlite3.connect(index)
    said = [row[0] for row in db.execute("PRAGMA quick_check")]
    db.close()
    found = [f"Page {pages + 1} is never used", f"Page {pages + 2} is never used"]
    assert said == ["\n".join(["*** in database main ***", *found])], said
    return "; ".join(found)


def _workspace(tmp_path: Path, in_git: bool) -> tuple[Path, Path]:
    """A workspace with a.txt in its baseline, and where its index is: under the git
    directory, or outside git in .snapline/ beside the private repository."""
    root = tmp_path / "work"
    root.mkdir()
    (root / "a.txt").write_text("one\n")
    if in_git:
        Repo(root).git("init", "-q")
    assert run_script("init", cwd=root).returncode == 0
    return root, root / (".git/snapline/index.db" if in_git else ".snapline/index.db")


_LAYOUTS = pytest.mark.parametrize("in_git", [False, True], ids=["outside git", "in git"])


@_LAYOUTS
def test_a_damaged_index_is_named_with_the_way_to_build_it_again(
    tmp_path: Path, in_git: bool
) -> None:
    root, index = _workspace(tmp_path, in_git)
    (root / "a.txt").write_text("two\n")
    assert run_script("record", "a.txt", "-m", "two", cwd=root).returncode == 0
    log = run_script("log", "--json", cwd=root).stdout
    damage = _add_pages_never_used(index)

    done = run_script("verify", "--full", "--json", cwd=root)
    assert done.returncode == 3, done.stdout + done.stderr
    moved = index.with_name("index.db.damaged")
    advice = f"mv {shlex.quote(str(index))} {shlex.quote(str(moved))}"
    assert json.loads(done.stdout)["problems"] == [
        {
            "kind": "sqlite",
            "message": f"the local index {index} is damaged (SQLite's own check: {damage}); "
            f"it is a cache of the history: set it aside (`{advice}`) and the next command "
            "builds it again",
            "path": None,
            "number": None,
            "expected": None,
            "actual": None,
            "severity": "corrupt",
        }
    ]
    text = run_script("verify", "--full", cwd=root)
    assert text.returncode == 3
    assert f"SQLite's own check: {damage})" in text.stdout, text.stdout  # one line

    # The advice, run as printed: the same history, and a sound index again.
    subprocess.run(shlex.split(advice), check=True)
    assert run_script("verify", "--full", cwd=root).returncode == 0
    assert run_script("log", "--json", cwd=root).stdout == log
    assert moved.is_file()  # kept for a look, untouched


def _damage_a_table(index: Path, table: str) -> None:
    """Break the first page of ``table`` (its b-tree page type), as a bad disk block would."""
    with sqlite3.connect(index) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        ((page,),) = db.execute("SELECT rootpage FROM sqlite_master WHERE name = ?", (table,))
    db.close()
    with open(index, "r+b") as handle:
        handle.seek((page - 1) * 4096)
        handle.write(b"\xff")


@_LAYOUTS
def test_an_index_a_command_cannot_read_names_the_way_to_build_it_again(
    tmp_path: Path, in_git: bool
) -> None:
    # Damage SQLite meets only when a query reads the page (opening the index is fine):
    # every command stops with exit 3, and the advice is the index's, not the history's.
    root, index = _workspace(tmp_path, in_git)
    log = run_script("log", "--json", cwd=root).stdout
    _damage_a_table(index, "state")
    moved = index.with_name("index.db.damaged")
    advice = f"mv {shlex.quote(str(index))} {shlex.quote(str(moved))}"
    (root / "a.txt").write_text("two\n")
    for command in (("status",), ("verify",), ("record", "a.txt", "-m", "two")):
        done = run_script(*command, cwd=root)
        assert done.returncode == 3, (command, done.stdout, done.stderr)
        (said,) = done.stderr.splitlines()
        assert said == (
            f"snapline: error: the local index {index} is damaged: database disk image is "
            "malformed; nothing was written. It is a cache of the history, which is "
            f"untouched: set it aside (`{advice}`) and the next command builds it again"
        ), command
    # The advice, run as printed: the history as it was, and the edit still to record.
    subprocess.run(shlex.split(advice), check=True)
    assert run_script("log", "--json", cwd=root).stdout == log
    assert run_script("record", "a.txt", "-m", "two", cwd=root).returncode == 0
    assert run_script("verify", cwd=root).returncode == 0
