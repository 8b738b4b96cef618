"""``snapline upgrade`` outside git: an in-tree store moved onto the private repository.

Issue 37.7: a workspace outside git gets, from ``init``, the refs in a private bare
repository (``.snapline/repo``); one whose ``.snapline/`` holds an older store (a 0.1.0
``store.db``, ledger 1 or 2: the fixture stores, written by the code of their time) is
moved there by ``snapline upgrade``, and answers ``log``, ``show``, ``milestone list``
and ``verify`` as before.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.history_refs.gitrepo import Repo
from tests.history_refs.upgrading import answers, clone_fixture, repo_of_0_1, upgrade


def _outside_git(repo: Repo) -> Repo:
    """The checkout alone: its ``.git`` gone, the in-tree store left as files."""
    shutil.rmtree(repo.path / ".git")
    return repo


@pytest.mark.parametrize("name", ["ledger-1", "ledger-2", "0.1.0"])
def test_a_fixture_store_outside_git_moves_onto_the_private_repository(
    name: str, tmp_path: Path
) -> None:
    if name == "0.1.0":
        ws = _outside_git(repo_of_0_1(tmp_path / "repo"))
        before = None  # read through the ledger it becomes: compared after the move
    else:
        ws = _outside_git(clone_fixture(name, tmp_path / "repo"))
        before = answers(ws)
        assert before["verify"][0] == 0, before["verify"]
    store = ws.path / ".snapline"

    dry = ws.snap("upgrade", "--dry-run", "--json")
    assert dry.returncode == 0, dry.stderr
    assert not (store / "repo").exists() and not (store / "moving").exists()
    done = ws.snap("upgrade", "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    moved = json.loads(done.stdout)
    assert moved["found"] == ("0.1" if name == "0.1.0" else "ledger")
    assert moved["written"] == json.loads(dry.stdout)["written"] > 0
    assert moved["commit"] is None  # no repository to commit to

    assert (store / "repo" / "HEAD").is_file()
    assert not (store / "ledger").exists() and not (store / "moving").exists()
    assert (store / ".gitignore").read_text().splitlines()[-1] == "*"
    after = answers(ws)
    assert after["verify"][0] == 0, after["verify"]
    if before is not None:
        assert after == before
    (ws.path / "after-upgrade.txt").write_text("new\n")
    assert ws.snap("record", "after-upgrade.txt", "-m", "after").returncode == 0
    assert ws.snap("verify", "--full").returncode == 0
    again = ws.snap("upgrade")
    assert again.returncode == 0 and "nothing to upgrade" in again.stdout


def test_outside_any_workspace_upgrade_says_there_is_no_history(tmp_path: Path) -> None:
    (tmp_path / "plain").mkdir()
    refused = Repo(tmp_path / "plain").snap("upgrade")
    assert refused.returncode == 2
    assert "no snapline history" in refused.stderr


@pytest.mark.parametrize("where", ["outside git", "top of a work tree"])
def test_the_0_1_upgrade_notice_says_what_to_do_next_where_the_workspace_is(
    tmp_path: Path, where: str
) -> None:
    ws = repo_of_0_1(tmp_path / "repo")
    if where == "outside git":
        ws = _outside_git(ws)
    first = ws.snap("status")
    assert first.returncode == 0, first.stderr
    notice = first.stderr.strip()
    assert notice.startswith("upgraded the snapline 0.1 store") and "\n" not in notice
    if where == "outside git":
        # No repository to commit to: the next step is the private repository.
        assert "commit" not in notice.replace("nothing to commit", "")
        assert "`snapline upgrade` moves the history into its private repository" in notice
        assert ".snapline/repo" in notice
        done = ws.snap("upgrade")
        assert done.returncode == 0, done.stderr
        assert (ws.path / ".snapline" / "repo" / "HEAD").is_file()
    else:
        # The way to the layout init makes here first; committing the ledger still works.
        assert "`snapline upgrade` moves the history onto git's refs" in notice
        assert "commit .snapline/ledger/ and .snapline/.gitignore with the project" in notice
        done = upgrade(ws)
        assert done.returncode == 0, done.stdout + done.stderr
        assert not (ws.path / ".snapline").exists()
        assert ws.snap("verify").returncode == 0
