"""Random sequences of directory trees, symlinks and modes, restored every way, against a model.

The model is the oracle: for every snapshot, ``path -> (git mode, bytes)``, where a
symlink's bytes are its target (``tests/disk.py``). Rules change the disk as an agent's
shell would — nested trees created and removed, a directory replaced by a file or a
symlink and back, the exec bit flipped, a path renamed to a differently-cased path (a
case-only rename: on a case-insensitive filesystem the same entry, on Linux another
path) — and record the change, through the library or the real command line. Others
restore: rollback, undo, redo, revert (of any snapshot whose files are as it left them)
and milestone rollback, each through the library or the command line, and each time the
model says the state that must result (the module doc of
``snapline/snapshots/restore/undo.py`` says what undo and redo restore; the model
follows the same rules on its own bookkeeping).

After every step: ``validate()`` is clean, the numbers are 0..N, the disk is the model's
latest state, and every file of *every* snapshot, rebuilt from the store, has the
model's bytes and mode.

The ``ci`` profile of tests/conftest.py (deterministic) runs by default; with
``SNAPLINE_STRESS=1`` the ``deep`` profile explores far more.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

from snapline import (
    EmptyMilestoneError,
    NothingToRedoError,
    NothingToUndoError,
    Workspace,
)
from snapline.cli.app import app
from snapline.snapshots.read import snapshots as reading
from snapline.snapshots.read.history import state_at
from tests.cli_runner import CliRunner
from tests.disk import EXECUTABLE, REGULAR, SYMLINK, Entry, disk_tree
from tests.reliability import figures
from tests.reliability.helpers import STRESS

# Every path a rule may name: nested two levels deep, with case-only twins.
PATHS = ["a", "A", "d", "D", "d/a", "d/e", "d/E", "d/e/a", "d/e/b", "D/a"]
CASE_TWINS = [("a", "A"), ("d", "D"), ("d/e", "d/E")]
DIRECTORIES = ["d", "D", "d/e", "d/E"]
TARGETS = ["a", "d", "d/e/a", "missing", "../outside"]
CONTENTS = st.sampled_from([b"", b"one\n", b"two\nlines\n", b"crlf\r\n", b"\x00\xffbin"])

State = dict[str, Entry]


class Kind(NamedTuple):
    """What a snapshot is to undo and redo: ordinary, an undo of N or a redo of undo U."""

    undo_of: int | None = None
    redo_of: int | None = None


def _inside(path: str, top: str) -> bool:
    return path == top or path.startswith(top + "/")


def _one_tree(state: State) -> bool:
    """No path of ``state`` is both a file and a directory."""
    return not any(other.startswith(path + "/") for path in state for other in state)


class TreeMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.tmp = Path(tempfile.mkdtemp(prefix="snapline-trees-"))
        self.root = self.tmp / "ws"
        self.root.mkdir()
        self.ws: Workspace | None = None
        self.history: list[State] = []
        self.kinds: list[Kind] = []
        self.disk: State = {}
        self.milestones: list[tuple[int, int]] = []
        self.runner = CliRunner()

    @initialize(
        files=st.dictionaries(st.sampled_from(PATHS), CONTENTS, max_size=3),
        executable=st.booleans(),
    )
    def start(self, files: dict[str, bytes], executable: bool) -> None:
        for path, content in sorted(files.items()):
            self._put_file(path, content, executable)
        self.ws = Workspace.init(self.root)
        self.history = [dict(self.disk)]
        self.kinds = [Kind()]

    def teardown(self) -> None:
        if self.ws is not None:
            self.ws.close()
        shutil.rmtree(self.tmp, ignore_errors=True)

    # -- the disk, changed as a shell would (the model follows) ------------------------------

    def _clear(self, path: str) -> None:
        """Remove whatever is at ``path``: a file, a symlink or a whole tree.

        Never through a symlink: below a symlinked (or file) parent there is nothing.
        """
        location = self.root / path
        parts = path.split("/")
        parents = [self.root.joinpath(*parts[:depth]) for depth in range(1, len(parts))]
        if any(p.is_symlink() or not p.is_dir() for p in parents):
            assert not any(_inside(p, path) for p in self.disk)
            return
        if location.is_symlink() or location.is_file():
            location.unlink()
        elif location.is_dir():
            shutil.rmtree(location)
        for known in [p for p in self.disk if _inside(p, path)]:
            del self.disk[known]

    def _parents(self, path: str) -> None:
        """Make ``path``'s parents directories, replacing a file or symlink on the way."""
        parts = path.split("/")
        for depth in range(1, len(parts)):
            parent = "/".join(parts[:depth])
            location = self.root / parent
            if location.is_symlink() or (location.exists() and not location.is_dir()):
                self._clear(parent)
            location.mkdir(exist_ok=True)

    def _put_file(self, path: str, content: bytes, executable: bool) -> None:
        self._parents(path)
        self._clear(path)
        location = self.root / path
        location.write_bytes(content)
        location.chmod(0o755 if executable else 0o644)
        self.disk[path] = Entry(EXECUTABLE if executable else REGULAR, content)

    def _put_link(self, path: str, target: str) -> None:
        self._parents(path)
        self._clear(path)
        os.symlink(target, self.root / path)
        self.disk[path] = Entry(SYMLINK, os.fsencode(target))

    # -- talking to snapline ------------------------------------------------------------

    @property
    def latest(self) -> int:
        return len(self.history) - 1

    def _cli(self, *args: str) -> tuple[int, str]:
        """Run the real command line in-process, with the library's workspace closed meanwhile."""
        assert self.ws is not None
        self.ws.close()
        try:
            done = self.runner.invoke(
                app, ["--root", str(self.root), *args], catch_exceptions=False
            )
        finally:
            self.ws = Workspace.open(self.root)
        figures.add("tree_machine_cli_calls")
        return done.exit_code, done.output

    def _record(self, cli: bool) -> None:
        """Record what the rule did; a snapshot exactly when the disk moved off the latest."""
        assert self.ws is not None
        if cli:
            code, output = self._cli("record", "-m", "shell")
            assert code == 0, output
            made = self.ws.latest > self.latest
        else:
            made = self.ws.record(tool="shell") is not None
        assert made == (self.disk != self.history[-1]), (made, self.disk, self.history[-1])
        if made:
            self._new(dict(self.disk), Kind())

    def _new(self, state: State, kind: Kind) -> None:
        self.history.append(state)
        self.kinds.append(kind)
        self.disk = dict(state)
        figures.add("tree_machine_snapshots")

    def _changed(self, number: int) -> set[str]:
        """The paths snapshot ``number`` changed."""
        before, after = self.history[number - 1], self.history[number]
        return {p for p in before.keys() | after.keys() if before.get(p) != after.get(p)}

    def _restored(self, paths: set[str], source: State) -> State:
        """The latest state with ``paths`` as they are in ``source``."""
        state = {p: e for p, e in self.history[-1].items() if p not in paths}
        state.update({p: source[p] for p in paths if p in source})
        return state

    def _stands_for(self, number: int) -> int:
        """The ordinary snapshot whose state ``number`` stands for (undo.py's rules)."""
        while number > 0:
            kind = self.kinds[number]
            if kind.undo_of is not None:
                number = kind.undo_of - 1
            elif kind.redo_of is not None:
                undone = self.kinds[kind.redo_of].undo_of
                assert undone is not None
                number = undone
            else:
                return number
        return 0

    def _redo_target(self) -> tuple[int, int] | None:
        number = self.latest
        while number > 0:
            kind = self.kinds[number]
            if kind.undo_of is not None:
                return number, kind.undo_of
            if kind.redo_of is None:
                return None
            number = kind.redo_of - 1
        return None

    def _restore(
        self, cli_args: list[str] | None, call: Callable[[], object], state: State, kind: Kind
    ) -> None:
        """One restore (``cli_args`` on the command line, else ``call()``) making ``state``."""
        assert self.ws is not None
        before = self.latest
        if cli_args is not None:
            code, output = self._cli(*cli_args)
            assert code == 0, (cli_args, code, output)
        else:
            call()
        made = self.ws.latest > before
        assert made == (state != self.history[-1]), (cli_args, made)
        if made:
            assert self.ws.latest == before + 1
            self._new(state, kind)

    # -- rules that change the disk ---------------------------------------------------------

    @rule(
        path=st.sampled_from(PATHS), content=CONTENTS, executable=st.booleans(), cli=st.booleans()
    )
    def write_file(self, path: str, content: bytes, executable: bool, cli: bool) -> None:
        """A file, replacing whatever is there (a directory, a symlink) or on the way."""
        self._put_file(path, content, executable)
        self._record(cli)

    @rule(
        top=st.sampled_from(DIRECTORIES),
        files=st.lists(
            st.tuples(st.sampled_from(["a", "e/a", "e/b", "f/g/h"]), CONTENTS),
            min_size=1,
            max_size=4,
        ),
        cli=st.booleans(),
    )
    def make_tree(self, top: str, files: list[tuple[str, bytes]], cli: bool) -> None:
        """A nested tree under ``top``, in one snapshot."""
        for below, content in files:
            self._put_file(f"{top}/{below}", content, executable=False)
        self._record(cli)

    @rule(path=st.sampled_from(PATHS), cli=st.booleans())
    def remove(self, path: str, cli: bool) -> None:
        """``rm -r``: a whole tree, a file or a symlink."""
        self._clear(path)
        self._record(cli)

    @rule(path=st.sampled_from(PATHS), to=st.sampled_from(TARGETS), cli=st.booleans())
    def make_symlink(self, path: str, to: str, cli: bool) -> None:
        """A symlink, replacing whatever is there: a directory becomes a link and back."""
        self._put_link(path, to)
        self._record(cli)

    @precondition(lambda self: any(e.mode != SYMLINK for e in self.disk.values()))
    @rule(data=st.data(), cli=st.booleans())
    def flip_exec_bit(self, data: st.DataObject, cli: bool) -> None:
        files = sorted(p for p, e in self.disk.items() if e.mode != SYMLINK)
        path = data.draw(st.sampled_from(files), label="path")
        entry = self.disk[path]
        executable = entry.mode == REGULAR
        (self.root / path).chmod(0o755 if executable else 0o644)
        self.disk[path] = Entry(EXECUTABLE if executable else REGULAR, entry.content)
        self._record(cli)

    @precondition(lambda self: bool(self._directories()))
    @rule(data=st.data(), by_link=st.booleans(), content=CONTENTS, cli=st.booleans())
    def replace_directory(
        self, data: st.DataObject, by_link: bool, content: bytes, cli: bool
    ) -> None:
        """``rm -r d`` and a file or a symlink ``d`` in its place, in one snapshot."""
        top = data.draw(st.sampled_from(self._directories()), label="directory")
        if by_link:
            self._put_link(top, data.draw(st.sampled_from(TARGETS), label="to"))
        else:
            self._put_file(top, content, executable=False)
        self._record(cli)

    def _directories(self) -> list[str]:
        """The directories of the latest state that a rule may name."""
        return [d for d in DIRECTORIES if any(p.startswith(d + "/") for p in self.disk)]

    def _case_moves(self) -> list[tuple[str, str]]:
        """Every case-only rename possible now: the name in use, its free twin."""
        moves = []
        for one, other in CASE_TWINS:
            for src, dst in ((one, other), (other, one)):
                if any(_inside(p, src) for p in self.disk) and not any(
                    _inside(p, dst) for p in self.disk
                ):
                    moves.append((src, dst))
        return moves

    @precondition(lambda self: bool(self._case_moves()))
    @rule(data=st.data(), cli=st.booleans())
    def rename_case_only(self, data: st.DataObject, cli: bool) -> None:
        """``mv d D``: the same entry under a differently-cased name (a file or a tree).

        Only to a free name: where both names are in use there is no case-insensitive
        twin to model.
        """
        src, dst = data.draw(st.sampled_from(self._case_moves()), label="move")
        moved = {p: e for p, e in self.disk.items() if _inside(p, src)}
        self._clear(dst)  # an empty directory a restore may have left
        self._parents(dst)
        os.rename(self.root / src, self.root / dst)
        for path, entry in moved.items():
            del self.disk[path]
            self.disk[dst + path[len(src) :]] = entry
        self._record(cli)

    # -- rules that restore ------------------------------------------------------------------

    @rule(data=st.data(), cli=st.booleans())
    def rollback(self, data: st.DataObject, cli: bool) -> None:
        assert self.ws is not None
        to = data.draw(st.integers(0, self.latest), label="to")
        ws = self.ws
        self._restore(
            ["rollback", "--to", str(to)] if cli else None,
            lambda: ws.rollback(to),
            dict(self.history[to]),
            Kind(),
        )

    @rule(cli=st.booleans())
    def undo(self, cli: bool) -> None:
        assert self.ws is not None
        target = self._stands_for(self.latest)
        if target == 0:
            if cli:
                code, output = self._cli("undo")
                assert code == 1, output
            else:
                try:
                    self.ws.undo()
                except NothingToUndoError:
                    pass
                else:
                    raise AssertionError("an undo with nothing to undo went through")
            assert self.ws.latest == self.latest
            return
        state = self._restored(self._changed(target), self.history[target - 1])
        ws = self.ws
        self._restore(["undo"] if cli else None, ws.undo, state, Kind(undo_of=target))

    @rule(cli=st.booleans())
    def redo(self, cli: bool) -> None:
        assert self.ws is not None
        found = self._redo_target()
        if found is None:
            if cli:
                code, output = self._cli("redo")
                assert code == 1, output
            else:
                try:
                    self.ws.redo()
                except NothingToRedoError:
                    pass
                else:
                    raise AssertionError("a redo with nothing to redo went through")
            assert self.ws.latest == self.latest
            return
        undo_number, target = found
        state = self._restored(self._changed(target), self.history[target])
        ws = self.ws
        self._restore(["redo"] if cli else None, ws.redo, state, Kind(redo_of=undo_number))

    def _revertible(self) -> list[int]:
        """Snapshots whose files are all as they left them: reverting one has one answer.

        Its files go back to what they were before it, the rest stays, unless that
        would put a file where a directory is (then revert refuses, rightly).
        """
        found = []
        for number in range(1, self.latest + 1):
            changed = self._changed(number)
            unchanged = all(self.history[-1].get(p) == self.history[number].get(p) for p in changed)
            if unchanged and _one_tree(self._restored(changed, self.history[number - 1])):
                found.append(number)
        return found

    @precondition(lambda self: bool(self._revertible()))
    @rule(data=st.data(), cli=st.booleans())
    def revert(self, data: st.DataObject, cli: bool) -> None:
        """Revert a snapshot nothing touched since, or whose files came back since.

        The latest one, or one a rollback and its undo went over (what the replay of
        real histories does, and where a rename was refused).
        """
        assert self.ws is not None
        number = data.draw(st.sampled_from(self._revertible()), label="number")
        ws = self.ws
        self._restore(
            ["revert", str(number)] if cli else None,
            lambda: ws.revert(number),
            self._restored(self._changed(number), self.history[number - 1]),
            Kind(),
        )

    @rule(cli=st.booleans())
    def milestone(self, cli: bool) -> None:
        assert self.ws is not None
        start = self.milestones[-1][1] + 1 if self.milestones else 1
        if cli:
            code, output = self._cli("milestone", "create", "--title", "step")
            assert code == (0 if start <= self.latest else 1), output
        else:
            try:
                self.ws.milestones.create("step")
            except EmptyMilestoneError:
                assert start > self.latest
                return
        if start <= self.latest:
            self.milestones.append((start, self.latest))
            assert self.ws.milestones.get(len(self.milestones)).last == self.latest

    @precondition(lambda self: bool(self.milestones))
    @rule(data=st.data(), cli=st.booleans())
    def milestone_rollback(self, data: st.DataObject, cli: bool) -> None:
        assert self.ws is not None
        number = data.draw(st.integers(1, len(self.milestones)), label="milestone")
        first = self.milestones[number - 1][0]
        milestones = self.ws.milestones
        self._restore(
            ["milestone", "rollback", str(number)] if cli else None,
            lambda: milestones.rollback(number),
            dict(self.history[first - 1]),
            Kind(),
        )

    # -- what must hold after every step ---------------------------------------------------

    @invariant()
    def every_snapshot_matches_the_model(self) -> None:
        if self.ws is None:
            return
        ws = self.ws
        report = ws.validate()
        assert report.ok, report.problems
        assert ws.latest == self.latest
        assert disk_tree(self.root) == self.history[-1]
        for number, files in enumerate(self.history):
            # Rebuilt as ws.content_at does, past its check of the path on disk *now*: a
            # path of an old snapshot may lead through a directory that is a symlink today.
            versions = state_at(ws._store, number)
            rebuilt = {
                path: Entry(
                    version.mode, reading.content_at(ws._store, ws._reconstructor, path, number)
                )
                for path, version in versions.items()
            }
            assert rebuilt == files, number
        assert ws.check_sync().ok
        figures.add("tree_machine_checks")


def test_random_trees_match_the_model() -> None:
    run_state_machine_as_test(
        TreeMachine,
        settings=settings(
            stateful_step_count=100 if STRESS else 40,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
        ),
    )
