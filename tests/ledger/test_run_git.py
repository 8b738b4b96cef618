"""``snapline run -- git pull`` and ``run -- git checkout B``: a run that moves git.

The command brings new ledger files along with the workspace files they explain. The
run catches the index up first and records only what the incoming ledger does not
explain: a fast-forward pull leaves one line (no ``shell`` snapshot beside the pulled
one), a pull that merges two recording branches leaves the lines for ``snapline
merge``, and a checkout follows the branch's history.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.ledger.conftest import Repo, clone, new_repo, output


def _upstream(path: Path) -> Repo:
    repo = new_repo(path)
    repo.write("app.py", "v0\n")
    repo.ok("init", "--in-tree")
    repo.commit("base")
    return repo


def _downstream(up: Repo, path: Path) -> Repo:
    # git runs inside `snapline run` without the tests' -c options: the clone's own
    # configuration names who commits a merge.
    down = clone(up, path)
    down.git("config", "user.name", "Ledger Tests")
    down.git("config", "user.email", "ledger-tests@example.invalid")
    return down


def _record_and_commit(repo: Repo, rel: str, text: str, message: str) -> None:
    repo.write(rel, text)
    repo.ok("record", "-m", message)
    repo.commit(message)


def _ids(repo: Repo) -> list[tuple[int, str]]:
    return sorted((entry["number"], entry["id"]) for entry in repo.json("log"))


def test_a_fast_forward_pull_leaves_one_line(tmp_path: Path) -> None:
    up = _upstream(tmp_path / "up")
    down = _downstream(up, tmp_path / "down")
    down.ok("status")  # the clone's index, built before the pull
    _record_and_commit(up, "app.py", "v1\n", "upstream work")

    run = down.snap("run", "--", "git", "pull", "-q", "--no-rebase")
    assert run.returncode == 0, output(run)
    assert _ids(down) == up.snapshot_ids()  # nothing recorded beside the pulled snapshot
    assert down.snapshot_ids() == up.snapshot_ids()
    verify = down.snap("verify")
    assert verify.returncode == 0, output(verify)
    assert down.status() == []


def test_only_what_the_incoming_ledger_does_not_explain_is_recorded(tmp_path: Path) -> None:
    up = _upstream(tmp_path / "up")
    down = _downstream(up, tmp_path / "down")
    down.ok("status")
    _record_and_commit(up, "app.py", "v1\n", "upstream work")

    script = "git pull -q --no-rebase && echo extra > extra.txt"
    run = json.loads(down.ok("run", "--json", "--", "sh", "-c", script).stdout)
    snapshot = run["snapshot"]
    assert snapshot["number"] == 2
    assert snapshot["parent_id"] == up.snapshot_ids()[-1][1]
    assert [change["path"] for change in snapshot["files"]] == ["extra.txt"]
    verify = down.snap("verify")
    assert verify.returncode == 0, output(verify)


def test_a_pull_that_merges_two_recording_branches_leaves_the_lines_to_snapline_merge(
    tmp_path: Path,
) -> None:
    up = _upstream(tmp_path / "up")
    down = _downstream(up, tmp_path / "down")
    _record_and_commit(up, "up.txt", "up\n", "upstream work")
    _record_and_commit(down, "down.txt", "down\n", "local work")
    before = set(down.snapshot_ids())

    run = down.snap("run", "--", "git", "pull", "-q", "--no-rebase", "--no-edit")
    assert run.returncode == 0, output(run)
    assert "run `snapline merge`" in run.stderr
    # Nothing of the run's own: the ledger holds both branches' files and no more.
    assert set(down.snapshot_ids()) == before | set(up.snapshot_ids())
    assert down.snap("verify").returncode == 1
    merged = down.json("merge")
    assert merged["number"] == 2
    verify = down.snap("verify")
    assert verify.returncode == 0, output(verify)


def test_a_checkout_run_follows_the_branch_history(tmp_path: Path) -> None:
    repo = _upstream(tmp_path / "repo")
    repo.git("checkout", "-q", "-b", "other")
    _record_and_commit(repo, "other.txt", "other\n", "other work")
    other_ids = repo.snapshot_ids()
    repo.git("checkout", "-q", "main")
    assert _ids(repo) == other_ids[:1]

    run = repo.snap("run", "--", "git", "checkout", "-q", "other")
    assert run.returncode == 0, output(run)
    assert repo.snapshot_ids() == other_ids
    assert _ids(repo) == other_ids
    verify = repo.snap("verify")
    assert verify.returncode == 0, output(verify)
    assert repo.status() == []
