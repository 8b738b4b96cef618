"""Old branches forever: a branch that still carries an in-tree ledger, beside moved history.

After ``snapline upgrade`` on one branch, the repository's history is on its refs while
other branches still commit ``.snapline/``. With real git: such a branch checked out
reads and verifies as its writer said (the fixture's manifest is the oracle) and says
how to move it; the moved branch checked out again is clean; the old branch's own
snapshots move onto a line of their own, never a snapshot twice; and a git merge of an
old branch into a moved one (its ledger files come back without ``FORMAT``) is never
"corrupt" (exit 3) nor "in sync", and the next upgrade moves that branch's snapshots.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.history_refs.gitrepo import ENV, GIT, Repo
from tests.history_refs.upgrading import (
    FIXTURES,
    clone_fixture,
    git_status,
    removal_stat,
    snapshot_commits,
    upgrade,
)

NOTICE = "run `snapline upgrade` to move"


def _moved_main(tmp_path: Path) -> Repo:
    repo = clone_fixture("ledger-2", tmp_path / "repo")
    done = upgrade(repo)
    assert done.returncode == 0, done.stdout + done.stderr
    return repo


def _agent_c_line() -> str:
    manifest = json.loads((FIXTURES / "ledger-2.json").read_text())
    first = [s for s in manifest["branches"]["agent-c"]["log"] if s["number"] == 5]
    return f"refs/snapline/lines/{first[0]['id']}"


def test_an_old_branch_reads_as_its_writer_said_and_the_moved_one_stays_clean(
    tmp_path: Path,
) -> None:
    repo = _moved_main(tmp_path)
    manifest = json.loads((FIXTURES / "ledger-2.json").read_text())
    repo.git("checkout", "-q", "agent-c")

    status = repo.snap("status")
    assert status.returncode == 0 and "in sync" in status.stdout
    assert NOTICE in status.stderr
    assert repo.snap("verify").returncode == 0
    log = json.loads(repo.ok("log", "--json"))
    said = manifest["branches"]["agent-c"]["log"]
    assert [(s["number"], s["id"], s["chain_hash"]) for s in log] == [
        (s["number"], s["id"], s["chain_hash"]) for s in said
    ]

    # Back on the moved branch: the old checkout's local files are gone with it.
    repo.git("checkout", "-q", "main")
    status = repo.snap("status")
    assert status.returncode == 0 and "in sync" in status.stdout
    assert NOTICE not in status.stderr
    assert git_status(repo) == ""
    assert repo.snap("verify").returncode == 0


def test_an_old_branch_moves_its_own_snapshots_onto_a_line_of_their_own(tmp_path: Path) -> None:
    repo = _moved_main(tmp_path)
    repo.git("checkout", "-q", "agent-c")
    head = repo.git("rev-parse", "HEAD").strip()
    # The old branch's ledger is only read: a milestone waits for the upgrade.
    refused = repo.snap("milestone", "create", "--title", "c done", "--to", "latest")
    assert refused.returncode == 1 and "run `snapline upgrade`" in refused.stderr, refused

    done = upgrade(repo, "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    moved = json.loads(done.stdout)
    # Snapshots 0..4 are the main line's already; 5 and 6 are agent-c's own.
    assert (moved["written"], moved["present"]) == (2, 5)
    assert moved["lines"] == {_agent_c_line(): 2}
    assert not moved["index_made"]
    # agent-c closed no milestone of its own (the fixture's manifest): none moved.
    line = _agent_c_line().rsplit("/", 1)[1]
    assert repo.git("for-each-ref", f"refs/snapline/milestones/{line}") == ""
    ids = snapshot_commits(repo)
    assert len(ids) == len(set(ids)) == 21
    assert git_status(repo) == ""
    assert repo.git("rev-parse", "HEAD~1").strip() == head
    assert all(line.startswith("D\t.snapline/") for line in removal_stat(repo))
    # The checkout is agent-c's files; the work tree's history is the main line's: the
    # commands say so, never "in sync", never a damaged store.
    status = repo.snap("status")
    assert status.returncode == 0 and "in sync" not in status.stdout
    assert repo.snap("verify").returncode == 1

    again = upgrade(repo)
    assert again.returncode == 0 and "nothing to upgrade" in again.stdout


def test_an_old_branch_merged_into_a_moved_one_is_moved_by_the_next_upgrade(
    tmp_path: Path,
) -> None:
    repo = _moved_main(tmp_path)
    repo.git("merge", "-q", "--no-edit", "agent-c")
    merge = repo.git("rev-parse", "HEAD").strip()
    # git brought agent-c's new ledger files back, without FORMAT (main deleted it).
    back = repo.git("ls-tree", "-r", "--name-only", "HEAD", "--", ".snapline").split()
    assert back and ".snapline/ledger/FORMAT" not in back

    status = repo.snap("status")
    assert status.returncode == 0, status.stdout + status.stderr
    assert "in sync" not in status.stdout and "ledger files that a git merge brought back" in (
        status.stderr
    )
    assert repo.snap("verify").returncode == 1
    assert repo.snap("log", "--json").returncode == 0

    done = upgrade(repo, "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    moved = json.loads(done.stdout)
    assert (moved["found"], moved["written"], moved["present"]) == ("merged", 2, 5)
    assert moved["lines"] == {_agent_c_line(): 2}
    assert git_status(repo) == ""
    assert repo.git("rev-parse", "HEAD~1").strip() == merge
    assert sorted(removal_stat(repo)) == sorted(f"D\t{path}" for path in back)
    ids = snapshot_commits(repo)
    assert len(ids) == len(set(ids)) == 21


def test_a_merge_waiting_for_its_commit_gets_the_removal_staged(tmp_path: Path) -> None:
    repo = _moved_main(tmp_path)
    repo.git("merge", "-q", "--no-commit", "agent-c")

    done = upgrade(repo, "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads(done.stdout)["commit"] is None
    repo.git("commit", "-q", "--no-edit")
    assert repo.git("ls-tree", "-r", "--name-only", "HEAD", "--", ".snapline") == ""
    assert len(repo.git("rev-list", "--parents", "-n", "1", "HEAD").split()) == 3
    assert git_status(repo) == ""
    assert len(snapshot_commits(repo)) == 21


def test_a_merge_stopped_on_a_ledger_conflict_is_settled_by_the_upgrade(tmp_path: Path) -> None:
    repo = clone_fixture("ledger-2", tmp_path / "repo")
    # A person on an old branch edits a ledger file that the moved branch deletes
    # (its attributes: snapline no longer writes the ledger): a modify/delete conflict.
    repo.git("checkout", "-q", "agent-c")
    attributes = repo.path / ".snapline" / "ledger" / ".gitattributes"
    attributes.write_text(attributes.read_text() + "*.x -diff\n")
    repo.git("add", ".snapline")
    repo.git("commit", "-q", "-m", "ledger attributes on the old branch")
    repo.git("checkout", "-q", "main")
    assert upgrade(repo).returncode == 0
    merging = subprocess.run(
        [*GIT, "merge", "-q", "--no-edit", "agent-c"],
        cwd=repo.path,
        env=ENV,
        capture_output=True,
        text=True,
        check=False,
    )
    assert merging.returncode == 1 and "CONFLICT (modify/delete)" in merging.stdout
    assert "DU .snapline/" in repo.git("status", "--porcelain")

    status = repo.snap("status")
    assert status.returncode == 0, status.stdout + status.stderr
    assert repo.snap("verify").returncode == 1

    done = upgrade(repo, "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    moved = json.loads(done.stdout)
    assert (moved["written"], moved["present"], moved["commit"]) == (2, 5, None)
    repo.git("commit", "-q", "--no-edit")
    assert repo.git("ls-tree", "-r", "--name-only", "HEAD", "--", ".snapline") == ""
    assert git_status(repo) == ""
    assert len(snapshot_commits(repo)) == 21


def test_an_old_branch_in_a_clone_that_fetched_the_moved_history(tmp_path: Path) -> None:
    repo = _moved_main(tmp_path)
    Repo(tmp_path).git("clone", "-q", str(repo.path), "clone")
    clone = Repo(tmp_path / "clone")
    clone.git("fetch", "-q", "origin", "refs/snapline/*:refs/snapline/*")
    clone.git("checkout", "-q", "-b", "agent-c", "origin/agent-c")

    done = upgrade(clone, "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    moved = json.loads(done.stdout)
    assert (moved["written"], moved["present"]) == (2, 5)
    # The refs' main line is not this branch's: its ledger's index is not the work
    # tree's; the index is built from the refs, following the line the branch's own
    # snapshots moved to (its checkout is that line's latest state), as its writer said.
    assert not moved["index_made"]
    log = json.loads(clone.ok("log", "--json"))
    said = json.loads((FIXTURES / "ledger-2.json").read_text())["branches"]["agent-c"]["log"]
    assert [s["id"] for s in log] == [s["id"] for s in said]
    status = clone.snap("status")
    assert status.returncode == 0 and "in sync" in status.stdout
    assert clone.snap("verify").returncode == 0
    assert git_status(clone) == ""
    # Its next record starts a line of its own there: neither main's line nor the moved one.
    lines = clone.git("for-each-ref", "refs/snapline/lines/")
    (clone.path / "notes.txt").write_text("c's next note\n")
    made = json.loads(clone.ok("record", "notes.txt", "-m", "next", "--json"))
    assert (made["number"], made["parent_id"]) == (log[0]["number"] + 1, log[0]["id"])
    after = clone.git("for-each-ref", "refs/snapline/lines/")
    assert set(lines.splitlines()) < set(after.splitlines())
    assert clone.snap("verify").returncode == 0
