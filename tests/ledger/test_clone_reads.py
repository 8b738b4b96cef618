"""A fresh clone's first command reads each workspace file once (issue 30, point 2).

The rebuilt index takes the baseline's content from the workspace files, and puts what
it read into the stat cache; the workspace check that follows must trust those entries
rather than read every file again. A file a checkout wrote just before is within the
cache's 2 s racy window by the system clock, so the rebuild judges it on the
filesystem's own clock (``store/ledger/importing.py``). Changes made after the rebuild
read a file are still seen.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from snapline import Workspace
from snapline.snapshots.record import detect
from snapline.store.ledger import importing, listed
from snapline.store.ledger.files import Ledger
from tests.ledger.conftest import Repo, clone


def _older_than_the_clock(repo: Repo) -> None:
    # The checkout's files, older than the filesystem's clock tick: what a CI job's
    # first command finds. A condition polled, not a measurement.
    newest = max(
        max(st.st_mtime_ns, st.st_ctime_ns)
        for path in repo.path.rglob("*")
        if ".git" not in path.parts and (st := path.lstat())
    )
    for _ in range(1000):
        now = listed.filesystem_now(Ledger(repo.ledger))
        if now is not None and now > newest:
            return
        time.sleep(0.01)
    raise AssertionError("the filesystem's clock never passed the checkout")


def _reads(monkeypatch: pytest.MonkeyPatch, module: object) -> list[str]:
    # The workspace files ``module`` reads from now on.
    read: list[str] = []
    real = module.read_disk_file  # type: ignore[attr-defined]

    def counted(location: object, rel: str, *args: object, **kwargs: object) -> object:
        read.append(rel)
        return real(location, rel, *args, **kwargs)

    monkeypatch.setattr(module, "read_disk_file", counted)
    return read


def test_the_first_check_of_a_clone_reads_each_file_once(
    origin: Repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = clone(origin, tmp_path / "work")
    _older_than_the_clock(repo)
    rebuilt = _reads(monkeypatch, importing)
    checked = _reads(monkeypatch, detect)

    with Workspace.open(repo.path) as ws:  # the rebuild reads the baseline's files
        report = ws.check_sync()

    assert report.ok, report.problems
    assert "README.md" in rebuilt  # still at its baseline version
    assert sorted(checked) == ["app.py", "notes.txt"]  # changed since: the check reads them
    assert not set(rebuilt) & set(checked)


def test_a_file_changed_after_the_rebuild_read_it_is_still_seen(
    origin: Repo, tmp_path: Path
) -> None:
    repo = clone(origin, tmp_path / "work")
    _older_than_the_clock(repo)
    readme = repo.path / "README.md"
    with Workspace.open(repo.path) as ws:
        before = readme.stat()
        readme.write_text("# DEMO\n")  # same size, in the same instant as the rebuild
        os.utime(readme, ns=(before.st_atime_ns, before.st_mtime_ns))
        report = ws.check_sync()

    assert not report.ok
    assert [p.path for p in report.problems] == ["README.md"]
