"""Random sequences of everything a workspace goes through, against a model of the history.

The model is the list of every snapshot's files (``history[n]``) and the files on disk.
Rules write, delete and move files through the library, edit and delete files behind
its back, resync, record, roll back, revert and close milestones, each time saying
what the outcome must be (a new snapshot with known files, nothing, or a refusal that
changes nothing). After every step: ``validate()`` is clean, the numbers are 0..N, the
disk is what the model says, and ``content_at`` of *every* snapshot equals the model.

The ``ci`` profile of tests/conftest.py (deterministic) runs by default; with
``SNAPLINE_STRESS=1`` the ``deep`` profile explores far more.
"""

from __future__ import annotations

import itertools
import os
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    rule,
    run_state_machine_as_test,
)

from snapline import (
    EmptyMilestoneError,
    NotTrackedError,
    RevertConflictError,
    RollbackConflictError,
    StateMismatchError,
    UnsafePathError,
    Workspace,
)
from snapline.snapshots.read.history import state_at
from snapline.snapshots.record import detect as detect_module
from tests.reliability import figures
from tests.reliability.helpers import STRESS, tree

PATHS = ["a.txt", "b.txt", "d/c.txt", "d/e/f.txt", "g", "g/h.txt", os.fsdecode(b"d/\xff.txt")]
LINES = ["alpha\n", "beta\n", "gamma\r\n", "delta", "\n", "é ü\n"]
CONTENTS = st.one_of(
    st.sampled_from([b"", b"\xef\xbb\xbfbom\n", b"\x00\x01binary", b"x" * 300]),
    st.binary(max_size=24),
    st.lists(st.sampled_from(LINES), max_size=8).map(lambda lines: "".join(lines).encode()),
)

Files = dict[str, bytes]


def _blocked(files: Files, path: str) -> str | None:
    """Why ``path`` cannot hold a file next to ``files``: a file on the way, or a directory."""
    parts = path.split("/")
    if any("/".join(parts[:i]) in files for i in range(1, len(parts))):
        return "parent"
    if any(other.startswith(path + "/") for other in files):
        return "directory"
    return None


class WorkspaceMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.tmp = Path(tempfile.mkdtemp(prefix="snapline-machine-"))
        self.root = self.tmp / "ws"
        self.root.mkdir()
        self.ws: Workspace | None = None
        self.history: list[Files] = []
        self.disk: Files = {}
        self.milestone_end = 0

    @initialize(files=st.dictionaries(st.sampled_from(PATHS), CONTENTS, max_size=4))
    def start(self, files: Files) -> None:
        for path, content in sorted(files.items()):
            if _blocked(self.disk, path) is None:
                self._put(path, content)
        self.ws = Workspace.init(self.root)
        self.history = [dict(self.disk)]

    def teardown(self) -> None:
        if self.ws is not None:
            self.ws.close()
        shutil.rmtree(self.tmp, ignore_errors=True)

    # -- helpers -----------------------------------------------------------------------

    @property
    def known(self) -> Files:
        return self.history[-1]

    @property
    def drifted(self) -> bool:
        return self.disk != self.known

    def _put(self, path: str, content: bytes) -> None:
        """Write behind snapline's back (the model follows)."""
        location = self.root / path
        location.parent.mkdir(parents=True, exist_ok=True)
        location.write_bytes(content)
        self.disk[path] = content

    def _remove(self, path: str) -> None:
        """Delete behind snapline's back (the model follows)."""
        (self.root / path).unlink()
        del self.disk[path]
        parent = (self.root / path).parent
        while parent != self.root and not any(parent.iterdir()):
            parent.rmdir()
            parent = parent.parent

    def _drift(self, path: str) -> bool:
        return self.disk.get(path) != self.known.get(path)

    def _recorded(self, snapshot: object, changes: dict[str, bytes | None]) -> None:
        """A new snapshot: the known state with ``changes`` (``None``: deleted) applied.

        What snapline wrote is on disk now too; outside edits elsewhere stay as they are.
        """
        assert snapshot is not None
        known = dict(self.known)
        for path, content in changes.items():
            if content is None:
                known.pop(path, None)
                self.disk.pop(path, None)
            else:
                known[path] = self.disk[path] = content
        self.history.append(known)
        figures.add("state_machine_snapshots")

    # -- rules ---------------------------------------------------------------------------

    @rule(path=st.sampled_from(PATHS), content=CONTENTS)
    def write(self, path: str, content: bytes) -> None:
        assert self.ws is not None
        # Every reason to refuse that applies; snapline may name any one of them.
        refusals: list[type[Exception]] = []
        if self._drift(path):
            refusals.append(StateMismatchError)
        if _blocked(self.disk, path) == "parent":
            refusals.append(UnsafePathError)
        if _blocked(self.disk, path) == "directory":
            refusals.append(NotTrackedError)
        if _blocked(self.known, path):
            # The history has a file on the way (or below): deleted outside snapline,
            # so it must be recorded first.
            refusals.append(StateMismatchError)
        try:
            snapshot = self.ws.write_file(path, content)
        except Exception as error:
            assert isinstance(error, tuple(refusals)), (refusals, error)
            return
        assert not refusals
        if self.known.get(path) == content:
            assert snapshot is None
            return
        self._recorded(snapshot, {path: content})

    @rule(path=st.sampled_from(PATHS))
    def delete(self, path: str) -> None:
        assert self.ws is not None
        try:
            snapshot = self.ws.delete_file(path)
        except (NotTrackedError, StateMismatchError, UnsafePathError):
            assert path not in self.known or self._drift(path) or _blocked(self.disk, path)
            return
        assert path in self.known and not self._drift(path)
        self._recorded(snapshot, {path: None})

    @rule(src=st.sampled_from(PATHS), dst=st.sampled_from(PATHS))
    def move(self, src: str, dst: str) -> None:
        assert self.ws is not None
        after = {p: c for p, c in self.disk.items() if p != src}
        known_after = {p: c for p, c in self.known.items() if p != src}
        possible = (
            src != dst
            and src in self.known
            and not self._drift(src)
            and not self._drift(dst)
            and _blocked(self.disk, dst) is None
            and _blocked(after, dst) is None
            and _blocked(known_after, dst) is None
        )
        try:
            snapshot = self.ws.move_file(src, dst, overwrite=True)
        except (NotTrackedError, StateMismatchError, UnsafePathError):
            assert not possible
            return
        assert possible, (src, dst)
        self._recorded(snapshot, {src: None, dst: self.disk[src]})

    @rule(path=st.sampled_from(PATHS), content=st.none() | CONTENTS)
    def external_edit(self, path: str, content: bytes | None) -> None:
        """A change made behind snapline's back (an editor, a formatter, git)."""
        if content is None:
            if path in self.disk:
                self._remove(path)
        elif _blocked(self.disk, path) is None:
            self._put(path, content)

    @rule(tool=st.sampled_from(["record", "resync"]))
    def record(self, tool: str) -> None:
        assert self.ws is not None
        if tool == "resync":
            snapshot = self.ws.resync(description="outside changes")
        else:
            snapshot = self.ws.record(tool="edit")
        if not self.drifted:
            assert snapshot is None
            return
        self._recorded(
            snapshot, {p: self.disk.get(p) for p in self.disk.keys() | self.known.keys()}
        )

    @rule(data=st.data(), force=st.booleans())
    def rollback(self, data: st.DataObject, force: bool) -> None:
        assert self.ws is not None
        to = data.draw(st.integers(0, len(self.history) - 1), label="to")
        if self.drifted and not force:
            before = tree(self.root)
            try:
                self.ws.rollback(to)
            except RollbackConflictError:
                assert tree(self.root) == before
                return
            raise AssertionError("a rollback over outside changes went through")
        result = self.ws.rollback(to, force=force)
        if self.drifted:  # recorded first, as tool "external"
            assert result.external is not None
            self._recorded(
                result.external, {p: self.disk.get(p) for p in self.disk.keys() | self.known.keys()}
            )
        target = self.history[to]
        if target == self.known:
            assert result.snapshot is None
            return
        self._recorded(
            result.snapshot, {p: target.get(p) for p in target.keys() | self.known.keys()}
        )

    @rule(data=st.data())
    def revert(self, data: st.DataObject) -> None:
        assert self.ws is not None
        if len(self.history) < 2:
            return
        number = data.draw(st.integers(1, len(self.history) - 1), label="number")
        before_disk = tree(self.root)
        try:
            result = self.ws.revert(number)
        except RevertConflictError:
            assert tree(self.root) == before_disk  # refused: nothing written
            return
        if result.snapshot is None:
            assert tree(self.root) == before_disk
            return
        now = tree(self.root)
        written = {f.path for f in result.snapshot.files} | {
            f.old_path for f in result.snapshot.files if f.old_path
        }
        assert not any(self._drift(p) for p in written), "written over outside changes"
        undone_from, undone_to = self.history[number - 1], self.history[number]
        for path in written:
            if path in undone_to and self.known.get(path) == undone_to[path]:
                # Left by the snapshot and unchanged since: exactly what it was before
                # it, or gone (added by it, or moved back to where it came from). A
                # file the snapshot moved and that was edited since comes back under
                # its old name with the edits, so other paths are not pinned down.
                assert now.get(path) == undone_from.get(path) or path not in now, path
        for path in self.disk.keys() | now.keys():
            if path not in written:
                assert now.get(path) == self.disk.get(path), path
        self._recorded(result.snapshot, {p: now.get(p) for p in written})

    @rule(title=st.sampled_from(["phase", "done", "é"]))
    def milestone(self, title: str) -> None:
        assert self.ws is not None
        latest = len(self.history) - 1
        try:
            milestone = self.ws.milestones.create(title)
        except EmptyMilestoneError:
            assert latest == self.milestone_end
            return
        assert (milestone.first, milestone.last) == (self.milestone_end + 1, latest)
        self.milestone_end = latest

    # -- what must hold after every step -----------------------------------------------

    @invariant()
    def history_matches_the_model(self) -> None:
        if self.ws is None:
            return
        ws = self.ws
        report = ws.validate()
        assert report.ok, report.problems
        assert [s.number for s in ws.snapshots()] == list(range(len(self.history)))
        for number, files in enumerate(self.history):
            assert set(state_at(ws._store, number)) == set(files), number
            for path, content in files.items():
                assert ws.content_at(path, number) == content, (path, number)
        assert tree(self.root) == self.disk
        assert ws.check_sync().ok == (not self.drifted)
        figures.add("state_machine_checks")


def test_random_histories_match_the_model() -> None:
    steps = 100 if STRESS else 50
    run_state_machine_as_test(
        WorkspaceMachine,
        settings=settings(
            stateful_step_count=steps,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
        ),
    )


class TrustingMachine(WorkspaceMachine):
    """The same, with a stat cache that trusts every entry at once (no racy window).

    So unchanged files are vouched for by their ``lstat`` alone, and a long-lived
    workspace keeps and refreshes its tracked index across every operation. Writes
    behind snapline's back get distinct mtimes, as writes at different moments have;
    within one timestamp tick only the racy window (switched off here) protects.
    """

    def _put(self, path: str, content: bytes) -> None:
        super()._put(path, content)
        stamp = next(_MTIMES)
        os.utime(self.root / path, ns=(stamp, stamp))


_MTIMES = itertools.count(1_000_000_000_000_000_000, 1_000_000_000)


def test_random_histories_match_the_model_with_a_trusting_stat_cache(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(detect_module, "RACY_WINDOW_NS", 0)
    run_state_machine_as_test(
        TrustingMachine,
        settings=settings(
            stateful_step_count=100 if STRESS else 40,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
        ),
    )
