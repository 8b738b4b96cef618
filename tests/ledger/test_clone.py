"""An in-tree history read in a clone: the local index built, ignored by git, kept along.

A clone gets the ledger only; its first command builds the index, which git ignores,
so no command leaves ``git status`` dirty and no ledger file ever changes.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from tests.history_refs.upgrading import clone_fixture, git_status
from tests.ledger.conftest import (
    APP_V1,
    LOCAL_NAMES,
    Repo,
    clone,
    copy,
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


def test_no_command_in_a_clone_shows_local_files_to_git(origin: Repo, tmp_path: Path) -> None:
    repo = clone(origin, tmp_path / "clone")
    repo.ok("verify")
    assert repo.status() == []
    repo.ok("log")
    assert repo.status() == []
    # A refused write leaves nothing either (tests/ledger/test_in_tree_read_only.py).
    repo.write("app.py", APP_V1 + "# more\n")
    assert repo.snap("record", "-m", "more").returncode == 1
    assert repo.status() == [" M app.py"]


def test_a_checkout_moves_the_index_along(tmp_path: Path) -> None:
    # ledger-2's main: each commit brought more snapshot files (a pull of them, replayed).
    repo = clone_fixture("ledger-2", tmp_path / "repo")
    latest = json.loads(repo.ok("log", "--json"))[0]
    assert repo.snap("verify").returncode == 0
    repo.git("checkout", "-q", "HEAD~2")  # snapshot 13: a checkout that takes files away
    assert repo.snap("verify").returncode == 0
    behind = json.loads(repo.ok("log", "--json"))[0]
    assert behind["number"] < latest["number"]
    repo.git("checkout", "-q", "main")  # and brings them back: the index follows
    assert repo.snap("verify").returncode == 0
    assert json.loads(repo.ok("log", "--json"))[0] == latest
    assert git_status(repo) == ""
