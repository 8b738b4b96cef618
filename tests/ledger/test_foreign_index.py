"""The local index knows whose it is: another workspace's or ledger's is set aside.

An index of an unrelated history, or a directory where ``index.db`` should be: each is
moved aside, named, and the index rebuilt from the ledger. (A journal copied from
another clone could only come from a write, which an in-tree ledger no longer takes.)
"""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.ledger.conftest import FIXTURES, Repo, clone, output

_INDEX = ("index.db", "index.db-wal", "index.db-shm")


def _copy_index(source: Repo, target: Repo) -> None:
    for name in _INDEX:
        found = source.path / ".snapline" / name
        if found.exists():
            shutil.copy2(found, target.path / ".snapline" / name)


def test_an_index_of_another_history_is_set_aside(origin: Repo, tmp_path: Path) -> None:
    # Another history's index: ledger-1's (tests/fixtures/), built by a first command.
    parent = tmp_path / "elsewhere"
    parent.mkdir()
    Repo(parent).git("clone", "-q", str(FIXTURES / "ledger-1.bundle"), "other")
    other = Repo(parent / "other")
    other.ok("status")
    here = clone(origin, tmp_path / "here")
    here.ok("status")
    _copy_index(other, here)
    verify = here.snap("verify")
    assert verify.returncode == 0, output(verify)
    assert "another ledger" in verify.stderr
    assert [entry["id"] for entry in here.json("log")][-1] == origin.ids["s0"]


def test_a_directory_at_the_index_name_is_moved_aside_and_the_index_rebuilt(
    origin: Repo, tmp_path: Path
) -> None:
    here = clone(origin, tmp_path / "here")
    (here.path / ".snapline" / "index.db").mkdir()
    (here.path / ".snapline" / "index.db" / "inside").write_text("kept\n")
    verify = here.snap("verify")
    assert verify.returncode == 0, output(verify)
    assert "not a regular file" in verify.stderr and "index.db.damaged" in verify.stderr
    assert (here.path / ".snapline" / "index.db.damaged" / "inside").read_text() == "kept\n"
    assert (here.path / ".snapline" / "index.db").is_file()
    assert here.status() == []
