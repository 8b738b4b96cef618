"""Random-delay kill loop: SIGKILL a busy writer at hundreds of random instants.

Each round forks a child that opens the workspace (settling whatever the last victim
left) and then writes, deletes, moves, rolls back and closes milestones as fast as it
can, acknowledging every snapshot on a pipe only after the library call returned. The
parent kills it after a random delay from a seeded generator, so the kills land
anywhere: inside SQLite commits, between a journal entry and its files, halfway through
an atomic write, during recovery. After every kill the workspace is reopened and
checked: it validates, is in sync with the history, and every acknowledged snapshot is
there with the same id and the content that was written.

Every third round is checked on a copy, so the next child has to recover the original
itself (and may be killed while doing so).
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import time
from dataclasses import dataclass
from pathlib import Path

from snapline import NotInSnapshotError, SnaplineError, Workspace
from tests.reliability import figures
from tests.reliability.helpers import STRESS, assert_healthy, digest

ROUNDS = 2000 if STRESS else 210
MAX_DELAY = 0.06
SEED = 20261122


@dataclass(frozen=True)
class Ack:
    """A snapshot the child was told about: its id, and what it wrote (``None``: deleted)."""

    number: int
    id: str
    path: str | None
    sha: str | None


def _child(root: Path, seed: int, out: int) -> None:
    """The victim: record as fast as possible, acknowledging each snapshot on ``out``."""
    rng = random.Random(seed)
    with Workspace.open(root) as ws:
        while True:
            roll = rng.random()
            path = f"d{rng.randrange(3)}/f{rng.randrange(6)}.txt"
            content = f"{seed} {rng.random()}\n" * rng.randrange(1, 40)
            try:
                if roll < 0.6:
                    snapshot = ws.write_file(path, content)
                    written: tuple[str | None, str | None] = (path, digest(content.encode()))
                elif roll < 0.75:
                    snapshot = ws.delete_file(path)
                    written = (path, None)
                elif roll < 0.88:
                    target = f"d{rng.randrange(3)}/m{rng.randrange(4)}.txt"
                    snapshot = ws.move_file(path, target, overwrite=True)
                    written = (None, None)
                elif roll < 0.96:
                    snapshot = ws.rollback(rng.randrange(ws.latest + 1)).snapshot
                    written = (None, None)
                else:
                    ws.milestones.create(f"milestone of child {seed}")
                    continue
            except SnaplineError:
                continue  # not tracked, nothing to close: expected, and not acknowledged
            if snapshot is not None:
                line = f"{snapshot.number} {snapshot.id} {written[0] or '-'} {written[1] or '-'}"
                os.write(out, (line + "\n").encode())


def _spawn(root: Path, seed: int) -> tuple[int, int]:
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child never returns into pytest
        os.close(read)
        try:
            _child(root, seed, write)
        finally:
            os._exit(0)
    os.close(write)
    return pid, read


def _acks(read: int) -> list[Ack]:
    data = b""
    while chunk := os.read(read, 65536):
        data += chunk
    os.close(read)
    acks = []
    # A line cut off by the kill was never acknowledged.
    for line in data.decode().splitlines(keepends=True):
        if not line.endswith("\n"):
            continue
        number, id_, path, sha = line.split()
        acks.append(
            Ack(int(number), id_, None if path == "-" else path, None if sha == "-" else sha)
        )
    return acks


def _check(root: Path, acknowledged: dict[int, str], fresh: list[Ack]) -> None:
    assert_healthy(root)
    with Workspace.open(root) as ws:
        ids = {row.number: row.id for row in ws._store.snapshots.select()}
        lost = [n for n, id_ in acknowledged.items() if ids.get(n) != id_]
        figures.add("kill_loop_acknowledged_lost", len(lost))
        assert lost == [], f"acknowledged snapshots lost or replaced: {lost}"
        for ack in fresh:
            if ack.path is None:
                continue
            if ack.sha is None:
                try:
                    ws.content_at(ack.path, ack.number)
                except NotInSnapshotError:
                    continue
                raise AssertionError(f"{ack.path} still exists after snapshot {ack.number}")
            assert digest(ws.content_at(ack.path, ack.number)) == ack.sha


@dataclass(frozen=True)
class Coverage:
    """How many kills landed while the child was busy, and how many snapshots it acknowledged."""

    killed_busy: int
    acknowledged: int


def kill_rounds(tmp_path: Path, root: Path, rounds: int, seed: int, max_delay: float) -> Coverage:
    """Kill ``rounds`` children after random delays up to ``max_delay``, checking after each.

    Only losses fail: where the kills landed depends on the machine's speed (a loaded
    machine may kill most children before they record anything), so it is counted and
    returned, never asserted.
    """
    rng = random.Random(seed)
    acknowledged: dict[int, str] = {}
    killed_busy = 0
    for round_ in range(rounds):
        pid, read = _spawn(root, rng.randrange(1 << 30))
        time.sleep(rng.uniform(0, max_delay))
        os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
        assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL, status
        fresh = _acks(read)
        killed_busy += bool(fresh)
        for ack in fresh:
            assert acknowledged.get(ack.number, ack.id) == ack.id, "a number was given twice"
            acknowledged[ack.number] = ack.id
        if round_ % 3 == 2:
            copy = tmp_path / "copy"
            shutil.copytree(root, copy, symlinks=True)
            _check(copy, acknowledged, fresh)
            shutil.rmtree(copy)
        else:
            _check(root, acknowledged, fresh)
    _check(root, acknowledged, [])
    with Workspace.open(root) as ws:
        assert ws.validate(deep=True).ok
    return Coverage(killed_busy=killed_busy, acknowledged=len(acknowledged))


def _seeded_workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    for d in range(3):
        (root / f"d{d}").mkdir()
        (root / f"d{d}" / "f0.txt").write_text(f"seed file {d}\n")
    Workspace.init(root).close()
    return root


def test_random_kills_lose_nothing(tmp_path: Path) -> None:
    root = _seeded_workspace(tmp_path)
    coverage = kill_rounds(tmp_path, root, ROUNDS, SEED, MAX_DELAY)
    # Reported, not asserted (issue 14, item 22): how many kills hit a busy writer
    # depends on the machine's load; the guarantee is that none lost anything.
    figures.add("kill_loop_kills", ROUNDS)
    figures.add("kill_loop_killed_busy", coverage.killed_busy)
    figures.add("kill_loop_acknowledged", coverage.acknowledged)


def test_a_machine_too_slow_to_land_a_kill_still_passes(tmp_path: Path) -> None:
    # Every child is killed at once, before it can record: what a loaded machine does
    # to many rounds. Nothing was acknowledged, so nothing may be lost, and the loop
    # must not fail for want of busy kills.
    root = _seeded_workspace(tmp_path)
    # (With main's old assertion, killed_busy > rounds // 3, this failed every time.)
    kill_rounds(tmp_path, root, 4, SEED, 0.0)
