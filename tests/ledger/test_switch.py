"""A branch switch with a snapshot not committed yet: orphaned snapshot files.

On ``feature`` a snapshot is recorded and the code committed without the ledger
(``git commit -a`` leaves new files out), then ``git checkout main``. git keeps the
untracked snapshot file, whose parent (committed on ``feature``) is not on ``main``.
That is not damage: every command works on ``main``'s own line, ``status`` and
``verify`` name the state and what to do, and the file joins its line again when
``feature`` is checked out.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.ledger.conftest import Repo, copy, new_repo, output


@dataclass(frozen=True)
class Switched:
    """On ``main``, with ``feature``'s uncommitted snapshot left in the work tree."""

    repo: Repo
    orphan: Path
    feature_ids: list[tuple[int, str]]


@pytest.fixture(scope="module")
def switched(tmp_path_factory: pytest.TempPathFactory) -> Switched:
    """Do not change it: copy ``switched.repo`` first."""
    repo = new_repo(tmp_path_factory.mktemp("switched") / "repo")
    repo.write("app.py", "v0\n")
    repo.ok("init", "--in-tree")
    repo.commit("base")
    repo.git("checkout", "-q", "-b", "feature")
    repo.write("feature.txt", "one\n")
    repo.ok("record", "-m", "feature one")
    repo.commit("feature one")
    repo.write("feature.txt", "one\ntwo\n")
    repo.ok("record", "-m", "feature two, not committed")
    repo.git("commit", "-q", "-a", "-m", "code only")
    feature_ids = repo.snapshot_ids()
    repo.git("checkout", "-q", "main")
    untracked = [line[3:] for line in repo.status()]
    assert len(untracked) == 1 and untracked[0].startswith(".snapline/ledger/snapshots/")
    return Switched(repo, repo.path / untracked[0], feature_ids)


@pytest.mark.parametrize(
    "command",
    [("status",), ("log",), ("show", "0"), ("milestone", "list"), ("diff", "0", "0")],
    ids=["status", "log", "show", "milestone-list", "diff"],
)
def test_reading_commands_work_on_the_checkouts_own_line(
    switched: Switched, tmp_path: Path, command: tuple[str, ...]
) -> None:
    repo = copy(switched.repo, tmp_path / "copy")
    result = repo.snap(*command)
    assert result.returncode == 0, output(result)
    assert "corrupt" not in output(result)


def test_status_and_verify_name_the_orphans_and_what_to_do(
    switched: Switched, tmp_path: Path
) -> None:
    repo = copy(switched.repo, tmp_path / "copy")
    number, id_ = switched.feature_ids[-1]
    status = repo.ok("status").stdout
    assert "orphaned snapshot file whose parent is not in this checkout" in status
    assert f"snapshot {number} ({id_[:12]})" in status
    assert "Commit them on their branch" in status and "carry them over" in status
    verify = repo.snap("verify")
    assert verify.returncode == 1, output(verify)
    assert "orphaned snapshot file" in verify.stdout
    assert "corrupt" not in output(verify) and "backup" not in output(verify)
    assert [entry["number"] for entry in repo.json("log")] == [0]


def test_work_goes_on_and_the_orphan_joins_its_line_on_checkout(
    switched: Switched, tmp_path: Path
) -> None:
    repo = copy(switched.repo, tmp_path / "copy")
    repo.write("main.txt", "main\n")
    recorded = repo.json("record", "-m", "main work")
    assert recorded["number"] == 1
    assert switched.orphan.name in {p.name for p in (repo.ledger / "snapshots").iterdir()}
    repo.git("add", "main.txt", str(repo.snapshot_file(1, recorded["id"])))
    repo.git("commit", "-q", "-m", "main work")

    repo.git("checkout", "-q", "feature")
    verify = repo.snap("verify")
    assert verify.returncode == 0, output(verify)
    log = [(entry["number"], entry["id"]) for entry in repo.json("log")]
    assert log == sorted(switched.feature_ids, reverse=True)
    assert "orphaned" not in repo.ok("status").stdout
    # Committed on its branch, the file is history like any other.
    repo.commit("the ledger too")
    assert repo.snap("verify").returncode == 0


def test_a_committed_snapshot_missing_its_parent_is_still_damage(
    switched: Switched, tmp_path: Path
) -> None:
    # Committing the orphan on main makes it part of main's history: its parent is
    # missing from a tracked ledger, which no clean git operation leaves behind.
    repo = copy(switched.repo, tmp_path / "copy")
    repo.commit("orphan committed on main")
    result = repo.snap("verify")
    assert result.returncode == 3, output(result)
    assert switched.orphan.name in output(result)
