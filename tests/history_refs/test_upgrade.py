"""``snapline upgrade``: stores written by older code moved onto git's refs, in one commit.

Each fixture store (ledger 1 and 2, written by the code of d7fdcca and c82d55b, and a
snapline 0.1.0 ``store.db``) sits committed in a real repository. Before the upgrade the
old store answers ``log``, ``show``, ``milestone list`` and ``verify``; after it the refs
store must answer the same, ``git status`` must be clean, and the one new commit must
hold only the removal of ``.snapline/``.
"""

from __future__ import annotations

import errno
import json
import os
import stat
from pathlib import Path

import pytest

from snapline.cli.app import app
from tests.cli_runner import CliRunner
from tests.history_refs.gitrepo import ENV, Repo
from tests.history_refs.upgrading import (
    IDENTITY,
    answers,
    clone_fixture,
    git_bytes,
    git_status,
    objects_under_refs,
    removal_stat,
    repo_of_0_1,
    snapshot_commits,
    upgrade,
)

FIXTURES = Path(__file__).parent.parent / "fixtures"


@pytest.mark.parametrize("name", ["ledger-1", "ledger-2"])
def test_a_fixture_ledger_moves_onto_the_refs_and_reads_the_same(name: str, tmp_path: Path) -> None:
    repo = clone_fixture(name, tmp_path / "repo")
    head = repo.git("rev-parse", "HEAD").strip()
    before = answers(repo)
    assert before["verify"][0] == 0, before["verify"]

    done = upgrade(repo, "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    moved = json.loads(done.stdout)
    assert moved["found"] == "ledger"
    # Every snapshot of every line: the main line's 15, and the 2 of each joined line.
    assert moved["written"] == 19 and moved["present"] == 0
    assert sorted(moved["lines"].values()) == [2, 2, 15]
    assert moved["milestones"] == [1, 2, 3]
    # The forgotten secret enters the refs as its tombstone, never as its bytes.
    assert [p["path"] for p in moved["forgotten"]] == ["secret.env"]
    assert moved["placeholders"] == []

    assert answers(repo) == before
    assert git_status(repo) == ""
    assert repo.git("rev-parse", "HEAD~1").strip() == head
    stat = removal_stat(repo)
    assert stat and all(line.startswith("D\t.snapline/") for line in stat), stat
    assert repo.git("ls-tree", "-r", "--name-only", "HEAD", "--", ".snapline") == ""
    assert not (repo.path / ".snapline").exists()
    assert (repo.path / ".git" / "snapline" / "index.db").is_file()
    ids = snapshot_commits(repo)
    assert len(ids) == len(set(ids)) == 19
    # The secret the fixture wrote (make_ledger_stores.py), then forgot.
    assert b"hunter2" not in objects_under_refs(repo)


@pytest.mark.parametrize("name", ["ledger-1", "ledger-2"])
def test_the_records_on_the_refs_are_the_ledger_files_unchanged(name: str, tmp_path: Path) -> None:
    repo = clone_fixture(name, tmp_path / "repo")
    files = {
        path.name: path.read_bytes()
        for path in (repo.path / ".snapline" / "ledger" / "snapshots").iterdir()
    }
    assert upgrade(repo).returncode == 0
    listed = repo.git("log", "--format=%H", "--glob=refs/snapline/lines/*").split()
    records = [git_bytes(repo, "cat-file", "blob", f"{commit}:record") for commit in listed]
    assert sorted(records) == sorted(files.values())


def test_a_0_1_store_goes_to_the_ledger_then_onto_the_refs(tmp_path: Path) -> None:
    repo = repo_of_0_1(tmp_path / "repo")
    manifest = json.loads((FIXTURES / "workspace-0.1.0.json").read_text())

    done = upgrade(repo, "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads(done.stdout)["found"] == "0.1"

    log = json.loads(repo.ok("log", "--json"))
    said = [(s["number"], s["id"], s["parent_id"], s["description"]) for s in manifest["snapshots"]]
    assert sorted((s["number"], s["id"], s["parent_id"], s["description"]) for s in log) == said
    milestones = json.loads(repo.ok("milestone", "list", "--json"))
    assert [(m["number"], m["first"], m["last"], m["title"]) for m in milestones] == [
        (m["number"], m["first"], m["last"], m["title"]) for m in manifest["milestones"]
    ]
    assert repo.snap("verify").returncode == 0
    assert git_status(repo) == ""
    assert all(line.startswith("D\t.snapline/") for line in removal_stat(repo))


def test_a_dry_run_says_what_the_run_does_and_changes_nothing(tmp_path: Path) -> None:
    repo = clone_fixture("ledger-2", tmp_path / "repo")
    head = repo.git("rev-parse", "HEAD").strip()
    tree = sorted(
        p.relative_to(repo.path).as_posix() for p in repo.path.rglob("*") if ".git" not in p.parts
    )

    planned = upgrade(repo, "--dry-run", "--json")
    assert planned.returncode == 0, planned.stdout + planned.stderr
    assert repo.git("for-each-ref", "refs/snapline/") == ""
    assert repo.git("rev-parse", "HEAD").strip() == head
    after = sorted(
        p.relative_to(repo.path).as_posix() for p in repo.path.rglob("*") if ".git" not in p.parts
    )
    # Only the local files every reading command makes (the index, a cache of the
    # ledger, its lock), which the ledger's .gitignore keeps out of git.
    new = {p for p in after if p not in tree}
    assert new <= {".snapline/index.db", ".snapline/lock", ".snapline/workspace"}, new
    assert git_status(repo) == ""

    done = upgrade(repo, "--json")
    plan, did = json.loads(planned.stdout), json.loads(done.stdout)
    for key in ("found", "written", "present", "lines", "main_line", "milestones"):
        assert plan[key] == did[key], key
    assert plan["dry_run"] and not did["dry_run"] and plan["commit"] is None and did["commit"]


def test_staged_changes_are_refused_and_nothing_changes(tmp_path: Path) -> None:
    repo = clone_fixture("ledger-2", tmp_path / "repo")
    (repo.path / "README.md").write_text("staged by the user\n")
    repo.git("add", "README.md")

    refused = upgrade(repo)
    assert refused.returncode == 1
    assert refused.stderr.count("\n") == 1 and "staged changes (README.md)" in refused.stderr
    assert repo.git("for-each-ref", "refs/snapline/") == ""
    assert (repo.path / ".snapline" / "ledger" / "FORMAT").is_file()
    assert repo.git("diff", "--cached", "--name-only") == "README.md\n"


def test_nothing_to_upgrade_says_so(tmp_path: Path) -> None:
    repo = clone_fixture("ledger-2", tmp_path / "repo")
    assert upgrade(repo).returncode == 0
    again = upgrade(repo)
    assert again.returncode == 0 and "nothing to upgrade" in again.stdout
    assert git_status(repo) == ""


@pytest.mark.parametrize("name", ["ledger-1", "ledger-2"])
def test_a_fresh_clone_of_the_moved_history_reads_the_same(name: str, tmp_path: Path) -> None:
    repo = clone_fixture(name, tmp_path / "repo")
    before = answers(repo)
    assert upgrade(repo).returncode == 0

    # A clone brings the branch; the history comes with one fetch of the refs. Its index
    # is built from the refs alone, forgotten versions (tombstones in the states)
    # known as forgotten through the forget records there.
    Repo(tmp_path).git("clone", "-q", str(repo.path), "clone")
    clone = Repo(tmp_path / "clone")
    clone.git("fetch", "-q", "origin", "refs/snapline/*:refs/snapline/*")
    assert answers(clone) == before
    assert git_status(clone) == ""


def test_an_upgrade_goes_through_on_a_filesystem_that_cannot_sync_a_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Some filesystems refuse to fsync a directory (EINVAL; network, FUSE): no write error.

    Every directory's fsync refuses, whoever asks, as such a filesystem does; the
    upgrade's switch of stores (``.snapline/`` renamed out of the tree) included.
    """
    repo = clone_fixture("ledger-2", tmp_path / "repo")
    before = repo.ok("log", "--json")
    real_fsync = os.fsync
    refused: list[int] = []

    def fsync(fd: int) -> None:
        if stat.S_ISDIR(os.fstat(fd).st_mode):
            refused.append(fd)
            raise OSError(errno.EINVAL, os.strerror(errno.EINVAL))
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    done = CliRunner().invoke(app, ["--root", str(repo.path), "upgrade"], env={**ENV, **IDENTITY})
    monkeypatch.setattr(os, "fsync", real_fsync)
    assert done.exit_code == 0, done.output
    assert refused
    assert not (repo.path / ".snapline").exists()
    assert repo.ok("log", "--json") == before
    assert git_status(repo) == ""
