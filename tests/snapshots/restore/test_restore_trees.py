"""Every restore of the library crosses changes of type exactly, with git as the oracle (issue 25).

Each case records a state with a directory tree (snapshot 1) and one where it was
emptied, removed or replaced by a file or a symlink (snapshot 2), both also committed to
a real git repository. Every restore call — ``rollback``, ``undo``, ``redo``,
``revert``, ``milestones.rollback`` — must then go back and forth between the two, and
git must see exactly the committed tree each time (contents, modes, symlink targets, no
empty directory left). Before each real run its dry run is asked: it must promise the
same changes, with no conflict, and the real run must keep that promise.

On 615ec5a every case that empties a directory failed with ``FileNotFoundError`` (the
batch fsynced a directory it had removed), and ``undo``/``revert`` of a directory
replaced by a file or a symlink refused ("its parent is not a directory").
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from snapline import RevertResult, RollbackResult, Workspace
from tests.snapshots.gitoracle import AFTER, BEFORE, CASES, Oracle, is_exact, materialise, state

Result = RollbackResult | RevertResult
Restore = Callable[[Workspace, bool], Result]


class History:
    """A workspace at ``after`` with ``before`` recorded as snapshot 1, both committed to git."""

    def __init__(self, root: Path, git_dir: Path, before: dict, after: dict) -> None:
        # An empty baseline: ``before`` always differs from it (snapshot 1).
        self.ws = Workspace.init(root)
        self.oracle = Oracle(root, git_dir)
        materialise(root, before)
        self.ws.record(description="before")
        self.before = self.oracle.commit("before")
        materialise(root, after)
        self.ws.record(description="after")
        self.after = self.oracle.commit("after")
        assert self.before != self.after

    def restore(self, call: Restore, tree: str) -> Result:
        """Run ``call`` as a dry run, then for real; check the promise and the tree."""
        promised = call(self.ws, True)
        assert promised.dry_run and not promised.conflicts, promised.conflicts
        assert self.oracle.tree() != tree  # the dry run wrote nothing
        done = call(self.ws, False)
        assert done.snapshot is not None
        assert _changes(done) == _changes(promised)
        problem = is_exact(self.oracle, tree)
        assert problem is None, problem
        report = self.ws.verify()
        assert report.ok, report.problems
        return done


def _changes(result: Result) -> tuple[object, ...]:
    moved = result.moved if isinstance(result, RevertResult) else ()
    return (result.restored, result.deleted, result.recreated, moved)


def _rollback(to: int) -> Restore:
    return lambda ws, dry: ws.rollback(to, dry_run=dry)


def _undo(ws: Workspace, dry: bool) -> Result:
    return ws.undo(dry_run=dry)


def _redo(ws: Workspace, dry: bool) -> Result:
    return ws.redo(dry_run=dry)


def _revert(number: int) -> Restore:
    return lambda ws, dry: ws.revert(number, dry_run=dry)


def _milestone(number: int) -> Restore:
    return lambda ws, dry: ws.milestones.rollback(number, dry_run=dry)


def _back_and_forth(history: History, command: str) -> None:
    """From ``after`` back to ``before`` and forth again, with ``command``."""
    ws = history.ws
    if command == "rollback":
        history.restore(_rollback(1), history.before)
        history.restore(_rollback(2), history.after)
    elif command == "undo-redo":
        history.restore(_undo, history.before)
        history.restore(_redo, history.after)
        history.restore(_undo, history.before)
    elif command == "revert":
        history.restore(_revert(2), history.before)
        history.restore(_revert(3), history.after)
    elif command == "milestone-rollback":
        ws.milestones.create("before", to=1)
        ws.milestones.create("after", to=2)
        history.restore(_milestone(2), history.before)
        ws.milestones.create("rolled back", to=3)
        history.restore(_milestone(3), history.after)
    else:
        raise AssertionError(command)


COMMANDS = ["rollback", "undo-redo", "revert", "milestone-rollback"]


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("forward", [True, False], ids=["forward", "backward"])
def test_each_change_of_type_both_ways(
    root: Path, tmp_path: Path, case: str, command: str, forward: bool
) -> None:
    before, after = (state(extra) for extra in CASES[case])
    if not forward:
        before, after = after, before
    history = History(root, tmp_path / "oracle.git", before, after)
    try:
        _back_and_forth(history, command)
    finally:
        history.ws.close()


@pytest.mark.parametrize("command", COMMANDS)
def test_every_change_of_type_at_once(root: Path, tmp_path: Path, command: str) -> None:
    history = History(root, tmp_path / "oracle.git", BEFORE, AFTER)
    try:
        _back_and_forth(history, command)
    finally:
        history.ws.close()


def test_the_issue_repro_empties_a_flat_directory(root: Path) -> None:
    # `mkdir pkg; echo 1 >pkg/a; echo 2 >pkg/b; snapline record; snapline undo`
    with Workspace.init(root) as ws:
        (root / "pkg").mkdir()
        (root / "pkg" / "a").write_text("1\n")
        (root / "pkg" / "b").write_text("2\n")
        ws.record()
        result = ws.undo()
        assert sorted(result.deleted) == ["pkg/a", "pkg/b"]
        assert not (root / "pkg").exists()


def _mixed(choices: list[bool]) -> dict[str, tuple[str, bytes]]:
    """A state with, for each case in order, its ``before`` (True) or its ``after`` side."""
    mixed: dict[str, tuple[str, bytes]] = {}
    for pick, (before, after) in zip(choices, CASES.values(), strict=True):
        mixed.update(before if pick else after)
    return state(mixed)


_SIDES = st.lists(st.booleans(), min_size=len(CASES), max_size=len(CASES))


@given(first=_SIDES, second=_SIDES, command=st.sampled_from(["rollback", "undo", "revert"]))
def test_a_dry_run_is_a_promise_on_mixed_trees(
    tmp_path_factory: pytest.TempPathFactory, first: list[bool], second: list[bool], command: str
) -> None:
    # Any mix of the cases' sides, one way then the other: the dry run answers without
    # a conflict, and the real run does exactly what it promised, to git's tree.
    base = tmp_path_factory.mktemp("mixed")
    root = base / "ws"
    root.mkdir()
    before, after = _mixed(first), _mixed(second)
    if before == after:
        after = state({})
    history = History(root, base / "oracle.git", before, after)
    try:
        call = {"rollback": _rollback(1), "undo": _undo, "revert": _revert(2)}[command]
        history.restore(call, history.before)
    finally:
        history.ws.close()
