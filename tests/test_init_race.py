"""Two inits on one directory at once: exactly one wins, nothing is replaced (issue 14, item 2).

Before, both could succeed: the later renamed its store over the first, and a snapshot
already acknowledged to the first was lost. Real processes released together by a
barrier, over many rounds, through the library and through the command line.
"""

from __future__ import annotations

import multiprocessing
import subprocess
import sys
from multiprocessing.synchronize import Barrier
from pathlib import Path
from typing import Any

from snapline import AlreadyInitializedError, Workspace

ROUNDS = 8
RACERS = 3


def _racer(root: str, who: int, barrier: Barrier, results: Any) -> None:
    barrier.wait()
    try:
        ws = Workspace.init(root, timeout=60)
    except AlreadyInitializedError as error:
        results.put((who, "lost", type(error).__name__, error.exit_code, ""))
        return
    except Exception as error:  # reported, so the test shows what went wrong
        results.put((who, "error", type(error).__name__, repr(error), ""))
        return
    with ws:
        snapshot = ws.write_file(f"winner-{who}.txt", f"acknowledged to {who}\n")
        assert snapshot is not None
        results.put((who, "won", snapshot.id, snapshot.number, ""))


def _race(root: Path) -> list[tuple[Any, ...]]:
    context = multiprocessing.get_context("fork")
    barrier = context.Barrier(RACERS)
    results = context.Queue()
    processes = [
        context.Process(target=_racer, args=(str(root), who, barrier, results))
        for who in range(RACERS)
    ]
    for process in processes:
        process.start()
    outcomes = [results.get(timeout=120) for _ in processes]
    for process in processes:
        process.join(timeout=120)
        assert process.exitcode == 0
    return outcomes


def test_concurrent_library_inits_have_one_winner_and_lose_nothing(tmp_path: Path) -> None:
    for round_ in range(ROUNDS):
        root = tmp_path / f"ws{round_}"
        root.mkdir()
        for index in range(30):  # a baseline that takes a moment to capture
            (root / f"file{index}.txt").write_text(f"line {index}\n" * 50)
        outcomes = _race(root)
        won = [o for o in outcomes if o[1] == "won"]
        lost = [o for o in outcomes if o[1] == "lost"]
        assert len(won) == 1, outcomes
        assert len(lost) == RACERS - 1, outcomes
        assert all(o[2] == "AlreadyInitializedError" and o[3] == 2 for o in lost)
        who, _, snapshot_id, number, _ = won[0]
        with Workspace.open(root) as ws:
            # The winner's acknowledged snapshot survived every loser.
            assert ws.snapshot(number).id == snapshot_id
            assert ws.content_at(f"winner-{who}.txt") == f"acknowledged to {who}\n".encode()
            assert ws.latest == 1
            assert ws.validate().ok
        assert sorted(p.name for p in (root / ".snapline").iterdir() if "init" in p.name) == []


def test_concurrent_cli_inits_have_one_winner(tmp_path: Path) -> None:
    script = Path(sys.executable).with_name("snapline")
    for round_ in range(4):
        root = tmp_path / f"cli{round_}"
        root.mkdir()
        for index in range(30):
            (root / f"file{index}.txt").write_text(f"line {index}\n" * 50)
        # Both start before either can have finished its baseline.
        racers = [
            subprocess.Popen(
                [str(script), "--root", str(root), "init"],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for _ in range(2)
        ]
        results = [(racer.wait(timeout=120), *racer.communicate()) for racer in racers]
        codes = sorted(code for code, _, _ in results)
        assert codes == [0, 2], results
        loser = next(err for code, _, err in results if code == 2)
        assert "already has a snapline store" in loser
        with Workspace.open(root) as ws:
            assert ws.latest == 0 and ws.validate().ok
