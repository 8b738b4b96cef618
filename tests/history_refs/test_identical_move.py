"""A move onto a file with the same bytes and mode, on git's refs: a sound snapshot.

The record names the target as modified (its hashes equal) and the source as deleted;
the state's tree changes only at the source. The line's reader took the record's extra
path for damage (exit 3) on every later command. Found by the workspace state machine
(tests/reliability/test_state_machine.py) once it ran on a private repository.
"""

from __future__ import annotations

from pathlib import Path

from snapline import Workspace
from tests.history_refs.gitrepo import new_repo


def test_a_move_onto_an_identical_file_verifies_and_reads_again(tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "work", {"a.txt": "same\n", "b.txt": "same\n"})
    repo.ok("init")
    with Workspace.open(repo.path) as ws:
        moved = ws.move_file("b.txt", "a.txt", overwrite=True)
    assert sorted(f.path for f in moved.files) == ["a.txt", "b.txt"]
    assert "ok" in repo.ok("verify")
    repo.ok("verify", "--full")
    assert "b.txt" in repo.ok("show", str(moved.number))
    (repo.path / ".git" / "snapline" / "index.db").unlink()  # read again from the refs
    repo.ok("verify", "--full")
    assert repo.files() >= {"a.txt"} and not (repo.path / "b.txt").exists()
