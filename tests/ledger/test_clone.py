"""The history travels with git: what is committed, a fresh clone, the local index.

A clone gets the ledger only; its first command builds the index, which git ignores,
so no command leaves ``git status`` dirty and no ledger file ever changes.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from snapline import Workspace
from tests.ledger.conftest import (
    APP_V1,
    LOCAL_NAMES,
    Repo,
    clone,
    committed_outside_ledger,
    copy,
    new_repo,
    output,
)


@pytest.mark.parametrize(
    "command",
    [("verify",), ("log",), ("show", "2"), ("diff", "0", "3")],
    ids=["verify", "log", "show", "diff"],
)
def test_a_fresh_clone_verifies_and_stays_clean(
    origin: Repo, tmp_path: Path, command: tuple[str, ...]
) -> None:
    repo = clone(origin, tmp_path / "clone")
    assert not (repo.path / ".snapline" / "index.db").exists()

    first = repo.ok(*command)
    assert repo.status() == [], f"after snapline {' '.join(command)}"
    # The first command built the index, and git ignores it.
    assert (repo.path / ".snapline" / "index.db").is_file()
    assert repo.git("check-ignore", "-q", ".snapline/index.db", check=False).returncode == 0

    verified = repo.ok("verify")
    assert "snapshots 0..3 verified" in verified.stdout
    assert repo.status() == []
    # Not only the status: every committed byte is as it was.
    assert repo.git("diff", "--stat", "HEAD").stdout == ""
    if command[0] == "diff":
        assert "+    return 3" in first.stdout
    if command[0] == "show":
        assert "add notes" in first.stdout


@pytest.mark.parametrize("held_open", [False, True], ids=["closed", "held-open"])
def test_git_add_all_takes_only_the_ledger(tmp_path: Path, held_open: bool) -> None:
    repo = new_repo(tmp_path / "repo")
    repo.write("app.py", "x = 1\n")
    repo.ok("init", "--in-tree")
    repo.write("app.py", "x = 2\n")
    repo.ok("record", "-m", "two")
    holder = Workspace.open(repo.path) if held_open else None
    try:
        if holder is not None:
            # Another process's writes while this one holds the index open: the WAL and
            # its shared memory sit beside the index now.
            repo.write("app.py", "x = 3\n")
            assert holder.record(description="three") is not None
            assert holder.latest == 2
        local = {name for name in os.listdir(repo.path / ".snapline") if name in LOCAL_NAMES}
        assert {"index.db", "lock"} <= local
        if held_open:
            assert "index.db-wal" in local

        repo.git("add", "-A")
        staged = repo.git("diff", "--cached", "--name-only").stdout.splitlines()
        assert committed_outside_ledger(staged) == []
        assert not [p for p in staged if p.split("/")[-1] in LOCAL_NAMES or "-wal" in p]
        assert ".snapline/.gitignore" in staged
        assert ".snapline/ledger/FORMAT" in staged
        snapshots = [p for p in staged if p.startswith(".snapline/ledger/snapshots/")]
        assert len(snapshots) == (3 if held_open else 2)

        # What was committed is enough: a clone verifies while the holder is still open.
        repo.git("commit", "-q", "-m", "all")
        assert repo.status() == []
        other = clone(repo, tmp_path / "clone")
        latest = len(snapshots) - 1
        assert f"snapshots 0..{latest} verified" in other.ok("verify").stdout
        assert other.status() == []
    finally:
        if holder is not None:
            holder.close()


@pytest.fixture(scope="module")
def listed(origin: Repo) -> tuple[str, str]:
    """What ``log --json`` and ``milestone list --json`` print in ``origin`` (reads only)."""
    return origin.ok("log", "--json").stdout, origin.ok("milestone", "list", "--json").stdout


@pytest.mark.parametrize("remove", [("index.db",), LOCAL_NAMES], ids=["index", "everything-local"])
def test_a_deleted_index_is_rebuilt_from_the_ledger(
    origin: Repo, listed: tuple[str, str], tmp_path: Path, remove: tuple[str, ...]
) -> None:
    repo = copy(origin, tmp_path / "copy")
    log_before, milestones_before = listed
    store = repo.path / ".snapline"
    for name in os.listdir(store):
        if name.startswith(remove):
            target = store / name
            if target.is_dir():
                shutil.rmtree(target)
            else:
                target.unlink()
    assert not (store / "index.db").exists()

    assert repo.ok("log", "--json").stdout == log_before
    assert (store / "index.db").is_file()
    assert repo.ok("milestone", "list", "--json").stdout == milestones_before
    assert "snapshots 0..3 verified" in repo.ok("verify").stdout
    assert repo.status() == []
    assert [s["number"] for s in json.loads(log_before)] == [3, 2, 1, 0]


def _local_entries(status: list[str]) -> list[str]:
    """Status lines that show anything under .snapline/ other than a new ledger file."""
    return [
        line
        for line in status
        if ".snapline/" in line and not (line.startswith("?? .snapline/ledger/"))
    ]


def test_no_command_in_a_clone_shows_local_files_to_git(origin: Repo, tmp_path: Path) -> None:
    repo = clone(origin, tmp_path / "clone")
    repo.ok("verify")
    assert repo.status() == []
    repo.ok("log")
    assert repo.status() == []

    repo.write("app.py", APP_V1 + "# more\n")
    recorded = repo.json("record", "-m", "more")
    assert recorded["number"] == 4
    status = repo.status()
    assert _local_entries(status) == [], status
    new = [line[3:] for line in status if line.startswith("?? .snapline/ledger/")]
    assert any(name.startswith(".snapline/ledger/snapshots/00000004-") for name in new), status

    rolled = repo.snap("rollback", "--to", "1")
    assert rolled.returncode == 0, output(rolled)
    status = repo.status()
    assert _local_entries(status) == [], status
    assert " M app.py" in status

    repo.commit("more")
    assert repo.status() == []
    assert "snapshots 0..5 verified" in repo.ok("verify").stdout
    assert repo.status() == []


def test_a_pull_and_a_checkout_move_the_index_along(origin: Repo, tmp_path: Path) -> None:
    mine = clone(origin, tmp_path / "mine")
    assert "snapshots 0..3 verified" in mine.ok("verify").stdout
    theirs = clone(origin, tmp_path / "theirs")
    theirs.write("app.py", "def answer():\n    return 4\n")
    recorded = theirs.json("record", "-m", "theirs")
    theirs.commit("theirs")

    # The index continues the main line with what the pull brought.
    mine.git("pull", "-q", "--ff-only", str(theirs.path), "main")
    assert "snapshots 0..4 verified" in mine.ok("verify").stdout
    assert mine.json("show", "latest")["id"] == recorded["id"]
    assert mine.status() == []
    # A checkout that takes ledger files away: the index follows the ledger back.
    mine.git("checkout", "-q", "HEAD~1")
    assert "snapshots 0..3 verified" in mine.ok("verify").stdout
    mine.git("checkout", "-q", "main")
    assert "snapshots 0..4 verified" in mine.ok("verify").stdout
    assert mine.status() == []
