"""Every restore command crosses changes of type exactly, with git as the oracle (issue 25).

The command line twin of ``tests/snapshots/restore/test_restore_trees.py``: the same
cases (a flat directory emptied, a nested tree removed, a directory replaced by a file
and by a symlink, a file by a symlink, a case-only rename, each both ways), driven
through ``snapline rollback``, ``undo``, ``redo``, ``revert`` and ``milestone
rollback``. Each command's ``--dry-run --json`` must promise exactly what the real
``--json`` run then reports, and exit 0; git must see the committed tree afterwards.

On 615ec5a every command that empties a directory exited 2 ("No such file or
directory"), and ``undo``/``revert`` of a directory replaced by a file or a symlink
exited 2 and 1.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from snapline import Workspace
from tests.cli.conftest import Invoke
from tests.cli_runner import Result
from tests.snapshots.gitoracle import AFTER, BEFORE, CASES, Oracle, is_exact, materialise, state

_CHANGES = ("restored", "deleted", "recreated", "moved")


class Session:
    """A workspace at ``after`` with ``before`` as snapshot 1, and the command line on it."""

    def __init__(self, cli: Invoke, root: Path, git_dir: Path, before: dict, after: dict) -> None:
        self.cli = cli
        self.root = root
        Workspace.init(root).close()  # an empty baseline: ``before`` is snapshot 1
        self.oracle = Oracle(root, git_dir)
        materialise(root, before)
        assert self.run("record", "-m", "before").exit_code == 0
        self.before = self.oracle.commit("before")
        materialise(root, after)
        assert self.run("record", "-m", "after").exit_code == 0
        self.after = self.oracle.commit("after")

    def run(self, *args: str) -> Result:
        return self.cli("--root", str(self.root), *args)

    def restore(self, args: list[str], tree: str) -> None:
        """``snapline ARGS --dry-run --json``, then ``ARGS --json``: the promise, then the tree."""
        dry = self.run(*args, "--dry-run", "--json")
        assert dry.exit_code == 0, (args, dry.output)
        promised = json.loads(dry.stdout)
        assert promised["dry_run"] is True and promised["conflicts"] == []
        done = self.run(*args, "--json")
        assert done.exit_code == 0, (args, done.output)
        result = json.loads(done.stdout)
        assert result["snapshot"] is not None
        assert {k: result.get(k) for k in _CHANGES} == {k: promised.get(k) for k in _CHANGES}
        problem = is_exact(self.oracle, tree)
        assert problem is None, (args, problem)
        verify = self.run("verify")
        assert verify.exit_code == 0, verify.output

    def back_and_forth(self, command: str) -> None:
        if command == "rollback":
            self.restore(["rollback", "--to", "1"], self.before)
            self.restore(["rollback", "--to", "2"], self.after)
        elif command == "undo-redo":
            self.restore(["undo"], self.before)
            self.restore(["redo"], self.after)
            self.restore(["undo"], self.before)
        elif command == "revert":
            self.restore(["revert", "2"], self.before)
            self.restore(["revert", "latest"], self.after)
        elif command == "milestone-rollback":
            for title, to in (("before", "1"), ("after", "2")):
                assert self.run("milestone", "create", "--title", title, "--to", to).exit_code == 0
            self.restore(["milestone", "rollback", "2"], self.before)
            made = self.run("milestone", "create", "--title", "rolled back", "--to", "3")
            assert made.exit_code == 0, made.output
            self.restore(["milestone", "rollback", "3"], self.after)
        else:
            raise AssertionError(command)


COMMANDS = ["rollback", "undo-redo", "revert", "milestone-rollback"]


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("forward", [True, False], ids=["forward", "backward"])
def test_each_change_of_type_both_ways(
    cli: Invoke, root: Path, tmp_path: Path, case: str, command: str, forward: bool
) -> None:
    before, after = (state(extra) for extra in CASES[case])
    if not forward:
        before, after = after, before
    Session(cli, root, tmp_path / "oracle.git", before, after).back_and_forth(command)


@pytest.mark.parametrize("command", COMMANDS)
def test_every_change_of_type_at_once(
    cli: Invoke, root: Path, tmp_path: Path, command: str
) -> None:
    Session(cli, root, tmp_path / "oracle.git", BEFORE, AFTER).back_and_forth(command)


def test_a_dry_run_refused_is_refused_for_real_too(cli: Invoke, root: Path, tmp_path: Path) -> None:
    # An untracked file inside the directory a rollback must turn back into a file.
    session = Session(cli, root, tmp_path / "oracle.git", state(CASES["directory-to-file"][1]),
                      state(CASES["directory-to-file"][0]))  # fmt: skip
    (root / "x" / "untracked.txt").write_text("mine\n")
    dry = session.run("rollback", "--to", "1", "--dry-run", "--json")
    assert dry.exit_code == 1
    conflicts = json.loads(dry.stdout)["conflicts"]
    assert {c["path"] for c in conflicts} >= {"x/untracked.txt"}
    real = session.run("rollback", "--to", "1", "--json")
    assert real.exit_code == 1
    assert json.loads(real.stdout)["kind"] == "RollbackConflictError"
    assert (root / "x" / "untracked.txt").read_text() == "mine\n"
    assert conflicts[0]["message"] in real.stderr  # the same first conflict, word for word


def test_a_forced_dry_run_promises_what_the_forced_run_does(
    cli: Invoke, root: Path, tmp_path: Path
) -> None:
    # An untracked file inside the directory a rollback turns back into a file: --force
    # records it first, then deletes it with the directory (it stays in the history).
    before, after = (state(side) for side in CASES["directory-to-file"])
    session = Session(cli, root, tmp_path / "oracle.git", after, before)
    (root / "x" / "untracked.txt").write_text("mine\n")
    dry = session.run("rollback", "--to", "1", "--force", "--dry-run", "--json")
    assert dry.exit_code == 0, dry.output  # 615ec5a: 0, yet the rollback could not be done
    promised = json.loads(dry.stdout)
    assert {c["kind"] for c in promised["conflicts"]} == {"untracked"}
    done = session.run("rollback", "--to", "1", "--force", "--json")
    assert done.exit_code == 0, done.output
    result = json.loads(done.stdout)
    assert result["external"] is not None
    assert {k: result[k] for k in _CHANGES if k in result} == {
        k: promised[k] for k in _CHANGES if k in promised
    }
    problem = is_exact(session.oracle, session.before)
    assert problem is None, problem
    # What --force recorded first is in the history: it can be brought back.
    assert session.run("rollback", "--to", str(result["external"]["number"])).exit_code == 0
    assert (root / "x" / "untracked.txt").read_text() == "mine\n"


def test_a_forced_dry_run_refused_is_refused_for_real_too(
    cli: Invoke, root: Path, tmp_path: Path
) -> None:
    # An ignored file is never recorded, so --force cannot settle it: both refuse.
    before, after = (state(side) for side in CASES["directory-to-file"])
    session = Session(cli, root, tmp_path / "oracle.git", after, before)
    (root / ".gitignore").write_text("*.log\n")
    assert session.run("record", "-m", "ignore logs").exit_code == 0
    (root / "x" / "build.log").write_text("ignored\n")
    dry = session.run("rollback", "--to", "1", "x", "--force", "--dry-run", "--json")
    assert dry.exit_code == 1, dry.output
    assert [c["kind"] for c in json.loads(dry.stdout)["conflicts"]] == ["in-the-way"]
    real = session.run("rollback", "--to", "1", "x", "--force")
    assert real.exit_code == 1 and "x/build.log" in real.stderr
    assert (root / "x" / "build.log").read_text() == "ignored\n"
