"""An old branch merged into a moved one, before ``snapline upgrade``: no write, honest advice.

After ``snapline upgrade`` on ``main`` of ``tests/fixtures/ledger-2.bundle`` and a
``git merge`` of ``agent-c`` (which still carries ``.snapline/ledger/``), agent-c's files
are not on git's refs yet. A ``resync`` there would file that agent's recorded work as a
person's edit, so every writing command refuses before changing anything (exit 1, one
line naming ``snapline upgrade``), and ``status``/``verify`` advise ``snapline upgrade``
then ``snapline merge``, never a resync. The oracle is git (``git status``, the refs) and
the bytes on disk; after the upgrade, ``snapline merge`` joins the line and verify is ok.
"""

from __future__ import annotations

import json

import pytest

from tests.history_refs.gitrepo import Repo
from tests.history_refs.upgrading import clone_fixture, git_status, upgrade
from tests.ledger.test_in_tree_read_only import READERS, WRITERS, _disk

REFUSAL = (
    "snapline: error: a git merge brought .snapline/ledger/ back from a branch whose "
    "history is still in the tree, and its snapshots are not on git's refs yet: run "
    "`snapline upgrade` to move them (then `snapline merge` joins that line), then try "
    "again; nothing was changed"
)

MERGED_DRIFT = (
    "a git merge brought back the ledger of a branch whose history is still in "
    ".snapline/ledger/, so this may be that branch's recorded work: run `snapline upgrade` "
    "to move its snapshots onto git's refs, then `snapline merge` to join that line (do not "
    "resync it before)"
)


@pytest.fixture(scope="module")
def merged(tmp_path_factory: pytest.TempPathFactory) -> Repo:
    """ledger-2 with main moved onto the refs, then agent-c merged into it by git."""
    repo = clone_fixture("ledger-2", tmp_path_factory.mktemp("merged") / "repo")
    done = upgrade(repo)
    assert done.returncode == 0, done.stdout + done.stderr
    # The first open after an upgrade rewrites its line's newest commits (another matter):
    # done here, so that the writers below are measured alone.
    repo.ok("log")
    repo.git("merge", "-q", "--no-edit", "agent-c")
    assert repo.git("ls-tree", "-r", "--name-only", "HEAD", "--", ".snapline/ledger")
    return repo


def _refs(repo: Repo) -> str:
    return repo.git("for-each-ref", "--format=%(refname) %(objectname)", "refs/snapline/")


@pytest.mark.parametrize("argv", WRITERS, ids=" ".join)
def test_a_writing_command_refuses_and_changes_nothing(merged: Repo, argv: tuple[str]) -> None:
    before = (_disk(merged), git_status(merged), _refs(merged))
    done = merged.snap(*argv)
    errors = [line for line in done.stderr.splitlines() if line.startswith("snapline: error")]
    assert (done.returncode, errors) == (1, [REFUSAL]), done
    assert (_disk(merged), git_status(merged), _refs(merged)) == before


def test_json_errors_name_the_refusal(merged: Repo) -> None:
    done = merged.snap("resync", "-m", "outside", "--json")
    said = json.loads(done.stdout)
    assert (done.returncode, said["kind"]) == (1, "MergedLedgerError"), done
    assert said["error"] == REFUSAL.removeprefix("snapline: error: ")


@pytest.mark.parametrize("argv", READERS, ids=" ".join)
def test_reading_commands_still_answer(merged: Repo, argv: tuple[str]) -> None:
    done = merged.snap(*argv)
    assert done.returncode == 0, done
    assert done.stdout


def test_status_and_verify_advise_the_upgrade_never_a_resync(merged: Repo) -> None:
    status = merged.snap("status")
    assert status.returncode == 0, status
    assert "`snapline resync" not in status.stdout
    assert (
        "run `snapline upgrade` to move its snapshots onto git's refs, then `snapline merge`"
        in (status.stdout)
    )
    # Advice to write that is no resync: the upgrade of the branch's snapshots first.
    assert (
        "milestone  4 open: snapshots 14..14 (1 snapshot not in a milestone yet; run "
        "`snapline upgrade` to move the snapshots of the branch a git merge brought back in "
        ".snapline/ledger/ onto git's refs, then close them with `snapline milestone create`)"
    ) in status.stdout.splitlines(), status.stdout
    verify = merged.snap("verify", "--json")
    problems = json.loads(verify.stdout)["problems"]
    assert verify.returncode == 1, verify
    assert sorted(p["path"] for p in problems) == ["src/c.txt", "src/feature_c.py"]
    for problem in problems:
        assert "`snapline resync" not in problem["message"], problem
        assert "`snapline upgrade`" in problem["message"], problem
        # What was said of the path stays; its advice is the upgrade, then the merge.
        assert problem["message"].startswith(problem["path"]), problem
        assert problem["message"].endswith(f"; {MERGED_DRIFT}"), problem
    # Status's advice is a sentence of its own.
    assert f"{MERGED_DRIFT[0].upper()}{MERGED_DRIFT[1:]}." in status.stdout.splitlines()


def test_after_the_upgrade_merge_joins_the_line(merged: Repo) -> None:
    assert upgrade(merged).returncode == 0
    assert merged.snap("merge").returncode == 0
    verify = merged.snap("verify")
    assert verify.returncode == 0, verify
    assert git_status(merged) == ""
