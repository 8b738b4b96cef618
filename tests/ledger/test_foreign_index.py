"""The local index knows whose it is: another workspace's or ledger's is set aside.

An ``index.db`` copied from another clone (with a write that clone left unfinished in
its journal), an index of an unrelated history, or a directory where ``index.db``
should be: each is moved aside, named, and the index rebuilt from the ledger. A
foreign journal is never recovered here: recovering it would put this workspace's files
back to another workspace's state.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from tests.ledger.conftest import APP_V3, SNAPLINE, Repo, clone, new_repo, output

_INDEX = ("index.db", "index.db-wal", "index.db-shm")


def _copy_index(source: Repo, target: Repo) -> None:
    for name in _INDEX:
        found = source.path / ".snapline" / name
        if found.exists():
            shutil.copy2(found, target.path / ".snapline" / name)


def test_a_journal_copied_from_another_clone_is_never_recovered_here(
    origin: Repo, tmp_path: Path
) -> None:
    there = clone(origin, tmp_path / "there")
    here = clone(origin, tmp_path / "here")
    here.ok("status")
    # There, a rollback is killed with its files written and its journal pending.
    killed = subprocess.run(
        [SNAPLINE, "rollback", "--to", "0", "app.py"],
        cwd=there.path,
        env={**os.environ, "SNAPLINE_CRASH_AT": "files-written"},
        capture_output=True,
        check=False,
    )
    assert killed.returncode == -9
    _copy_index(there, here)
    # Here, an edit not recorded yet.
    here.write("app.py", "an edit not recorded yet\n")

    status = here.snap("status")
    assert status.returncode == 0, output(status)
    assert (here.path / "app.py").read_text() == "an edit not recorded yet\n"
    assert "set aside as index.db.foreign" in status.stderr
    assert "unfinished write" in status.stderr
    assert (here.path / ".snapline" / "index.db.foreign").is_file()
    assert "app.py" in status.stdout  # the edit shows as drift, as it should
    # There, the next command settles its own write as before.
    there.ok("status")
    assert (there.path / "app.py").read_text() == APP_V3


def test_an_index_of_another_history_is_set_aside(origin: Repo, tmp_path: Path) -> None:
    other = new_repo(tmp_path / "other")
    other.write("x.txt", "x\n")
    other.ok("init", "--in-tree")
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
