"""A ``.snapline/`` that git brings into a refs work tree never switches layouts silently.

A clone that fetched the moved history (its refs hold the main line, and it has no
local index yet) checks out a branch from before ``snapline upgrade``: the branch's
ledger is read as the old-branch story says (docs/format.md, snapline/moving_notes.py),
and every command says so, with the one command that moves it, as it does in the
work tree that ran the upgrade.
"""

from __future__ import annotations

from pathlib import Path

from tests.history_refs.gitrepo import Repo
from tests.history_refs.test_upgrade_branches import NOTICE, _moved_main


def test_an_old_branch_in_a_fresh_clone_names_the_upgrade(tmp_path: Path) -> None:
    repo = _moved_main(tmp_path)
    Repo(tmp_path).git("clone", "-q", str(repo.path), "clone")
    clone = Repo(tmp_path / "clone")
    clone.ok("fetch", "origin")
    clone.git("checkout", "-q", "-b", "agent-c", "origin/agent-c")
    assert not (clone.path / ".git" / "snapline" / "index.db").exists()

    for command in (("status",), ("log",), ("verify",)):
        done = clone.snap(*command)
        assert done.returncode == 0, (command, done.stdout, done.stderr)
        assert NOTICE in done.stderr, command
