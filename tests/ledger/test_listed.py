"""A command that finds the ledger's folders as a listing left them does not list them.

After a ``verify`` found the index holding exactly the ledger's files, it keeps a stamp
of the folders of records (``store/ledger/listed.py``); a later process that finds the
same stamp does not list them (issue 30: a warm verify must not grow with the history).
These tests hold the stamp to what it promises: anything a git operation, a copy or
another program adds is still seen, even with the folder's mtime put back, and a stamp
taken in the clock tick of a change is never kept.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from snapline import Workspace
from snapline.store.ledger import listed
from snapline.store.ledger.files import Ledger
from tests.ledger.conftest import FIXTURES, Repo, clone, output


def _settle(ledger: Path) -> None:
    # Wait until the folders are older than the filesystem's clock tick, as a user's
    # next command finds them: a stamp taken in the tick of a change is not kept. Not
    # a measurement: a condition polled, bounded by the test's own timeout.
    folders = listed.folder_stamps(Ledger(ledger))
    for _ in range(1000):
        if listed.safely_old(folders, listed.filesystem_now(Ledger(ledger))):
            return
        time.sleep(0.01)
    raise AssertionError(f"the filesystem's clock never passed the folders of {ledger}")


def _listings(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    # Every listing of a ledger folder of records made from now on, by kind.
    made: list[str] = []
    entries = Ledger.entries

    def counted(self: Ledger, kind: str) -> list[str]:
        made.append(kind)
        return entries(self, kind)

    monkeypatch.setattr(Ledger, "entries", counted)
    return made


def _verified(origin: Repo, tmp_path: Path) -> Repo:
    repo = clone(origin, tmp_path / "work")
    _settle(repo.ledger)
    assert repo.json("verify")["ok"]  # rebuilds, checks all, keeps the stamp
    assert repo.json("verify")["ok"]
    return repo


def test_after_a_verify_the_next_command_does_not_list_the_ledger(
    origin: Repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = _verified(origin, tmp_path)
    made = _listings(monkeypatch)

    with Workspace.open(repo.path) as ws:
        report = ws.verify()

    assert report.ok and report.since == 3
    # Milestone files are still read to name milestones of other lines: they are few,
    # one per milestone. The folder that grows with every record is not listed.
    assert "snapshots" not in made and "forgotten" not in made


def _fixture_verified(tmp_path: Path) -> Repo:
    # ledger-2 (its writer's history, tests/fixtures/): a clone whose verify kept a stamp.
    parent = tmp_path / "fixture"
    parent.mkdir()
    Repo(parent).git("clone", "-q", str(FIXTURES / "ledger-2.bundle"), "repo")
    repo = Repo(parent / "repo")
    repo.git("branch", "-q", "agent-c", "origin/agent-c")
    _settle(repo.ledger)
    assert repo.json("verify")["ok"]
    assert repo.json("verify")["ok"]
    return repo


def test_a_snapshot_pulled_in_with_the_folder_mtime_put_back_is_seen(tmp_path: Path) -> None:
    repo = _fixture_verified(tmp_path)
    latest = repo.json("log")[0]
    repo.git("reset", "-q", "--hard", "HEAD~2")  # the history as it was one pull ago
    _settle(repo.ledger)
    assert repo.json("verify")["ok"] and repo.json("verify")["ok"]
    folder = repo.ledger / "snapshots"
    before = os.stat(folder)

    repo.git("merge", "-q", "--ff-only", "origin/main")  # the pull
    # The folder's times as they were: only its ctime, which nothing sets back, differs.
    os.utime(folder, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert os.stat(folder).st_mtime_ns == before.st_mtime_ns

    assert repo.json("log")[0] == latest
    assert repo.json("verify")["ok"]


def test_a_snapshot_of_another_line_merged_in_is_seen(tmp_path: Path) -> None:
    repo = _fixture_verified(tmp_path)
    folder = repo.ledger / "snapshots"
    before = os.stat(folder)

    repo.git("merge", "-q", "--no-edit", "agent-c")  # a line not joined yet
    os.utime(folder, ns=(before.st_atime_ns, before.st_mtime_ns))

    result = repo.snap("verify")
    assert result.returncode == 1, output(result)
    assert "snapline merge" in output(result)  # the two lines, named
    refused = repo.snap("record", "-m", "on top")
    assert refused.returncode == 1 and "snapline upgrade" in output(refused)


def test_a_stamp_taken_in_the_tick_of_a_change_is_not_kept(
    origin: Repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = clone(origin, tmp_path / "work")
    assert repo.json("verify")["ok"]
    ledger = Ledger(repo.ledger)
    folders = listed.folder_stamps(ledger)
    newest = max(s[3] for s in folders if s is not None)
    # The filesystem's clock still reads the tick of the folders' last change.
    monkeypatch.setattr(listed, "filesystem_now", lambda _ledger: newest)
    from snapline.store.ledger import agreement

    monkeypatch.setattr(agreement, "filesystem_now", lambda _ledger: newest)
    with Workspace.open(repo.path) as ws:
        assert ws.verify().ok
        assert ws._store.listed.get() is None  # nothing kept
    made = _listings(monkeypatch)
    with Workspace.open(repo.path) as ws:
        assert ws.verify().ok
    assert made  # listed again


def test_only_a_stamp_older_than_the_clock_reading_is_safe() -> None:
    stamp = (1, 2, 3, 1_000, 4096)

    assert listed.safely_old((stamp, None, None), 1_001)
    assert not listed.safely_old((stamp, None, None), 1_000)
    assert not listed.safely_old((stamp,), None)  # no clock (read-only): never
