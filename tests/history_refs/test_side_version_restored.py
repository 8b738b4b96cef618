"""A restore to a version only a joined line recorded keeps that content in the index.

A side line (a linked work tree, as a second agent works) adds ``side.txt`` and then
edits it; the main work tree merges the branch in git and joins the line with
``snapline merge``. The side's first version of ``side.txt`` is in no main-line
snapshot: a rollback to the side's first snapshot (and a revert of its second) writes
it, read from the side line's state. The new snapshot stores it in full and must keep it
where the next process finds it: ``verify`` then exits 0, never 3 (``missing-content``),
and a fresh index built from the refs agrees.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.history_refs.gitrepo import Repo, new_repo

FIRST = "side one\n"


def _record(repo: Repo, message: str) -> Any:
    done = json.loads(repo.ok("record", "-m", message, "--json"))
    repo.git("add", "-A")
    repo.git("commit", "-qm", message)
    return done


def _joined(tmp_path: Path) -> tuple[Repo, str, str]:
    """The main work tree after the merge; the side's two snapshot ids."""
    main = new_repo(tmp_path / "main", {"app.py": "v0\n"})
    main.ok("init")
    main.git("worktree", "add", "-q", "-b", "side", str(tmp_path / "side"))
    side = Repo(tmp_path / "side")
    (side.path / "side.txt").write_text(FIRST)
    first = _record(side, "side one")["id"]
    (side.path / "side.txt").write_text(FIRST + "side two\n")
    second = _record(side, "side two")["id"]
    (main.path / "app.py").write_text("v1\n")
    _record(main, "main work")
    main.git("merge", "-q", "--no-edit", "side")
    main.ok("merge")
    return main, first, second


@pytest.mark.parametrize("restore", ["rollback", "revert"])
def test_a_version_only_a_joined_line_held_is_kept_by_the_restore(
    tmp_path: Path, restore: str
) -> None:
    main, first, second = _joined(tmp_path)
    if restore == "rollback":
        main.ok("rollback", "--to", f"id:{first[:8]}")
    else:
        main.ok("revert", f"id:{second[:8]}")
    assert (main.path / "side.txt").read_text() == FIRST
    verify = main.snap("verify")
    assert verify.returncode == 0, verify.stdout + verify.stderr
    # The index is a cache of the refs: built again from them, it agrees.
    for name in ("index.db", "index.db-wal", "index.db-shm"):
        (main.path / ".git" / "snapline" / name).unlink(missing_ok=True)
    rebuilt = main.snap("verify")
    assert rebuilt.returncode == 0, rebuilt.stdout + rebuilt.stderr
    (main.path / "side.txt").write_text("moved on\n")
    main.ok("record", "-m", "moved on")
    main.ok("rollback", "--to", "latest~1")
    assert (main.path / "side.txt").read_text() == FIRST
