"""SIGKILL at every named step of every writing command, then reopen: nothing is lost.

Each case runs the real command line (or a small library driver) once with
``SNAPLINE_CRASH_AT`` set, so the process kills itself at that step as a power cut
would stop it. The test then reopens the workspace as the next user would and checks
the guarantees of DESIGN.md point 5: the store opens without manual repair, validates,
still holds (and rebuilds exactly) every snapshot acknowledged before the kill, and the
workspace is wholly at the old or the new state, in sync with the history.

These run outside git, on the private repository ``init`` makes there (``.snapline/repo``:
the same refs store as in a git work tree, whose own cases are in
tests/history_refs/test_crash.py); the ref is the commit point (``refs-published``).
"""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from snapline import Workspace
from snapline.crashpoints import STEPS
from tests.reliability import figures
from tests.reliability.helpers import KILLED, assert_healthy, cli, history_tree, python, tree

# -- the workspace every case starts from ------------------------------------------------

_BASELINE = {
    "a.txt": b"a0\n",
    "b.txt": b"b0\r\nno newline at end",
    "dir/c.txt": b"c0\n",
    "g": b"g is a file here\n",
    "bin.dat": bytes(range(256)),
    "empty": b"",
}


def _history(root: Path) -> dict[int, dict[str, bytes]]:
    """Snapshots 0..4 with changes of every kind; returns each one's files."""
    for rel, data in _BASELINE.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(data)
    with Workspace.init(root) as ws:
        ws.write_file("a.txt", "a1\n")  # 1
        with ws.track(["a.txt", "b.txt", "dir", "e.txt"], tool="edit") as _:  # 2
            (root / "a.txt").write_text("a2\n")
            (root / "b.txt").unlink()
            (root / "dir/c.txt").write_text("c2\n")
            (root / "e.txt").write_text("e2\n")
        ws.delete_file("g")  # 3
        ws.write_file("g/h.txt", "g became a directory\n")  # 4
        assert ws.latest == 4
        return {n: history_tree(ws, n) for n in range(ws.latest + 1)}


@dataclass(frozen=True)
class Case:
    """One command killed at one step; ``new_state`` computes the state after it."""

    name: str
    argv: tuple[str, ...]
    step: str
    driver: bool = False
    new_state: Callable[[dict[int, dict[str, bytes]]], dict[str, bytes]] | None = None

    @property
    def id(self) -> str:
        return f"{self.name}@{self.step}"


_ROLLBACK_WRITES = 6  # a.txt, b.txt, dir/c.txt, e.txt, g/h.txt, g


def _at(n: int) -> Callable[[dict[int, dict[str, bytes]]], dict[str, bytes]]:
    return lambda history: history[n]


def _apply(
    files: dict[str, bytes | None],
) -> Callable[[dict[int, dict[str, bytes]]], dict[str, bytes]]:
    """The latest state with ``files`` written (``None``: deleted)."""

    def new(history: dict[int, dict[str, bytes]]) -> dict[str, bytes]:
        state = dict(history[max(history)])
        for path, value in files.items():
            if value is None:
                state.pop(path)
            else:
                state[path] = value
        return state

    return new


# Reverting snapshot 2 undoes its four edits and keeps snapshots 3 and 4 (g is a directory).
_REVERTED = _apply(
    {"a.txt": b"a1\n", "b.txt": _BASELINE["b.txt"], "dir/c.txt": b"c0\n", "e.txt": None}
)
_WRITE = "write_file('a.txt', 'a written by the driver\\n')"
_DELETE = "delete_file('dir/c.txt')"
_MOVE = "move_file('e.txt', 'moved/e.txt')"
_APPLY_STEPS = (
    "journal-committed",
    "file-written",
    "files-written",
    "refs-published",
    "snapshot-committed",
)

CASES = [
    *(
        Case("rollback", ("rollback", "--to", "1"), step, new_state=_at(1))
        for step in (
            "journal-committed",
            "files-staged",
            *(f"file-written:{i}" for i in range(1, _ROLLBACK_WRITES + 1)),
            "files-written",
            "refs-published",
            "snapshot-committed",
        )
    ),
    *(
        Case("revert", ("revert", "2"), step, new_state=_REVERTED)
        for step in (
            "journal-committed",
            "file-written:2",
            "files-written",
            "refs-published",
            "snapshot-committed",
        )
    ),
    *(
        Case(
            "write_file",
            (_WRITE,),
            step,
            driver=True,
            new_state=_apply({"a.txt": b"a written by the driver\n"}),
        )
        for step in _APPLY_STEPS
    ),
    *(
        Case("delete_file", (_DELETE,), step, driver=True, new_state=_apply({"dir/c.txt": None}))
        for step in _APPLY_STEPS
    ),
    *(
        Case(
            "move_file",
            (_MOVE,),
            step,
            driver=True,
            new_state=_apply({"e.txt": None, "moved/e.txt": b"e2\n"}),
        )
        for step in (*_APPLY_STEPS, "file-written:2")
    ),
    *(
        Case("record", ("record", "-m", "outside edit"), step)
        for step in ("record-prepared", "refs-published", "snapshot-committed")
    ),
    *(
        Case(
            "run",
            ("run", "--", sys.executable, "-c", "open('ran.txt','w').write('ran\\n')"),
            step,
            new_state=_apply({"ran.txt": b"ran\n"}),
        )
        for step in (
            "run-journaled",
            "run-finished",
            "record-prepared",
            "refs-published",
            "snapshot-committed",
        )
    ),
    *(
        Case("milestone", ("milestone", "create", "-m", "phase one"), step)
        for step in ("milestone-prepared", "refs-published", "milestone-committed")
    ),
]
_DRIVER = """
import sys
from snapline import Workspace
with Workspace.open(sys.argv[1]) as ws:
    snapshot = ws.{call}
    print("ack", snapshot.number, flush=True)
"""


def test_every_step_is_exercised() -> None:
    # A step that no case reaches is a step whose crash nobody has checked.
    covered = {case.step.partition(":")[0] for case in CASES} | {"file-restored"}
    # baseline-built: tests/history_refs/test_crash.py kills init after its baseline's ref.
    # forget's steps: tests/history_refs/test_forget_refs.py kills a real `snapline forget`
    # before and after its refs moved, and after the index was rebuilt.
    refs_forget = Path(__file__).parent.parent / "history_refs" / "test_forget_refs.py"
    forget_text = refs_forget.read_text()
    covered |= {step for step in STEPS if step.startswith("forget-") and f'"{step}"' in forget_text}
    # refs-published: tests/history_refs/test_crash.py kills record, rollback, a library
    # write and a milestone there, in a git work tree whose history is on its refs.
    refs_text = (Path(__file__).parent.parent / "history_refs" / "test_crash.py").read_text()
    covered |= {
        step
        for step in STEPS
        if (step.startswith("refs-") or step == "baseline-built") and f'"{step}"' in refs_text
    }
    # upgrade-*: tests/history_refs/test_upgrade_crash.py kills snapline upgrade at each;
    # tests/milestones/test_closed_beside.py before and after it joined milestones.
    upgrade_text = "".join(
        (Path(__file__).parent.parent / where).read_text()
        for where in ("history_refs/test_upgrade_crash.py", "milestones/test_closed_beside.py")
    )
    covered |= {
        step for step in STEPS if step.startswith("upgrade-") and f'"{step}"' in upgrade_text
    }
    assert covered == set(STEPS)


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.id)
def test_kill_at_step(tmp_path: Path, case: Case) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    history = _history(root)
    if case.name == "record":
        (root / "a.txt").write_text("changed outside snapline\n")
    old = tree(root)
    if case.driver:
        child = python(_DRIVER.format(call=case.argv[0]), str(root), crash=case.step)
    else:
        child = cli(root, *case.argv, crash=case.step)
    assert child.returncode == KILLED, (child.returncode, child.stdout, child.stderr)
    figures.add("crash_steps_killed")

    latest = assert_healthy(root, history, in_sync=case.name != "record")
    now = tree(root)
    if case.name == "record":
        # The outside edit is either recorded whole or still waiting to be recorded.
        # The ref is the commit point: once it moved, the snapshot exists.
        committed = case.step in ("refs-published", "snapshot-committed")
        assert now == old and latest == (5 if committed else 4)
        if latest == 4:
            _resync_then_healthy(root)
        with Workspace.open(root) as ws:
            assert ws.content_at("a.txt") == b"changed outside snapline\n"
        assert_healthy(root)
        return
    if case.name == "milestone":
        with Workspace.open(root) as ws:
            milestones = ws.milestones.list()
            assert ws.validate().ok
        committed = case.step in ("refs-published", "milestone-committed")
        assert [(m.first, m.last) for m in milestones] == ([(1, 4)] if committed else [])
        assert now == old
        return
    assert case.new_state is not None
    new = case.new_state(history)
    # Never a mix: the workspace is wholly at one state, and the history agrees.
    assert now in (old, new), _mix(old, new, now)
    assert latest == (4 if now == old else 5)
    if case.name == "run" and latest == 5:
        with Workspace.open(root) as ws:
            snapshot = ws.snapshot(5)
            assert [f.path for f in snapshot.files] == ["ran.txt"]
    # And the next caller can go on working: nothing trips over a leftover.
    with Workspace.open(root) as ws:
        ws.write_file("after.txt", "the next caller\n")
    assert_healthy(root)


def _resync_then_healthy(root: Path) -> None:
    with Workspace.open(root) as ws:
        assert ws.resync(description="after the crash") is not None
    assert_healthy(root)


def _mix(old: dict[str, bytes], new: dict[str, bytes], now: dict[str, bytes]) -> str:
    return json.dumps(
        {
            "like old": sorted(p for p in now if old.get(p) == now[p]),
            "like new": sorted(p for p in now if new.get(p) == now[p]),
            "neither": sorted(p for p in now if old.get(p) != now[p] and new.get(p) != now[p]),
            "missing": sorted(set(old) & set(new) - set(now)),
        },
        indent=1,
    )


@pytest.mark.parametrize("restored", [1, 2, 4])
def test_kill_during_recovery(tmp_path: Path, restored: int) -> None:
    """A crash while recovery puts files back is settled by the next open."""
    root = tmp_path / "ws"
    root.mkdir()
    history = _history(root)
    old = tree(root)
    child = cli(root, "rollback", "--to", "1", crash="files-written")
    assert child.returncode == KILLED
    assert tree(root) == history[1]  # every file written, the snapshot not committed
    # The next process opens the store, starts putting files back, and dies too.
    again = cli(root, "log", "--json", crash=f"file-restored:{restored}")
    assert again.returncode == KILLED, again.stderr
    figures.add("crash_steps_killed", 2)
    assert assert_healthy(root, history) == 4
    assert tree(root) == old


def test_a_copy_of_a_killed_workspace_recovers_too(tmp_path: Path) -> None:
    """A backup taken after a crash (store, WAL and journal as they were) recovers alike."""
    root = tmp_path / "ws"
    root.mkdir()
    history = _history(root)
    assert cli(root, "rollback", "--to", "1", crash="file-written:3").returncode == KILLED
    copy = tmp_path / "copy"
    shutil.copytree(root, copy, symlinks=True)
    assert assert_healthy(copy, history) == 4
    assert assert_healthy(root, history) == 4


_BIG = b"".join(i.to_bytes(4, "big") for i in range(2000))  # 8000 bytes, above the limit
_BIG_CALLS = {
    "delete": "delete_file('big.bin')",
    "overwrite": "write_file('big.bin', 'small now\\n')",
    "rollback": "rollback(0).snapshot",
}


@pytest.mark.parametrize(
    "step", ["journal-committed", "file-written", "files-written", "snapshot-committed"]
)
@pytest.mark.parametrize("call", sorted(_BIG_CALLS))
def test_kill_while_replacing_a_file_tracked_by_hash_only(
    tmp_path: Path, call: str, step: str
) -> None:
    """A file the store cannot rebuild is never lost: it is parked, not overwritten.

    Regression: undoing the write rebuilt the known content from the store, which has
    none for such a file, so the next open raised ContentUnavailableError for ever and
    the file was gone.
    """
    root = tmp_path / "ws"
    root.mkdir()
    (root / "small.txt").write_text("small\n")
    with Workspace.init(root, large_file_limit=4096) as ws:
        if call == "rollback":
            (root / "big.bin").write_bytes(_BIG)
            ws.record(tool="edit")
        else:
            (root / "big.bin").write_bytes(b"")
            ws.record(tool="edit")
            (root / "big.bin").write_bytes(_BIG)
            ws.record(tool="edit")
        assert ws.snapshot(ws.latest).files[0].storage.value == "hash-only"
    old = tree(root)
    child = python(_DRIVER.format(call=_BIG_CALLS[call]), str(root), crash=step)
    assert child.returncode == KILLED, child.stderr
    figures.add("crash_steps_killed")
    assert_healthy(root)
    now = tree(root)
    if step == "snapshot-committed":
        assert now != old and now.get("big.bin") != _BIG
    else:
        assert now == old and now["big.bin"] == _BIG
    # Parked files are removed once their snapshot is committed, and never left behind.
    parked = root / ".snapline" / "parked"
    assert not parked.exists() or list(parked.iterdir()) == []
