"""Many writers and readers on one store: consecutive numbers, whole snapshots, clear "busy".

Eight processes record fifty snapshots each into one workspace while readers run
``snapline log --json`` and ``snapline verify --json`` in a loop. The writers must get
snapshots 1..400 between them, no gap and no number twice; every snapshot a reader
lists must be exactly the snapshot in the final history (never half of one); and a
reader never fails, except that ``verify`` may report a writer's file caught between
its write and its commit as drift (exit 1, sync problems only). A writer that cannot
get the store within its timeout exits 4 with a "busy" line and leaves the store whole.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import filelock

from snapline import StoreBusyError, Workspace
from tests.reliability import figures
from tests.reliability.helpers import STRESS, _env, assert_healthy, cli

WRITERS = 8
RECORDS = 50

_WRITER = textwrap.dedent(
    """
    import sys
    from snapline import Workspace
    root, name, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    with Workspace.open(root, timeout=120) as ws:
        for i in range(count):
            snapshot = ws.write_file(f"{name}/file.txt", f"{name} {i}\\n" * (i + 1), tool=name)
            print(snapshot.number, snapshot.id, flush=True)
    """
)

_SYNC_KINDS = {"modified", "deleted", "untracked", "unreadable"}


class _Reader:
    """One reading command in the background, its output going to files (never a full pipe)."""

    def __init__(self, root: Path, kind: str, scratch: Path) -> None:
        self.kind = kind
        self._out = (scratch / f"{kind}-{time.monotonic_ns()}.out").open("w+")
        self._err = (scratch / f"{kind}-{time.monotonic_ns()}.err").open("w+")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "snapline", "--root", str(root), kind, "--json"],
            env=_env(None),
            stdout=self._out,
            stderr=self._err,
            text=True,
        )

    def result(self) -> tuple[int, str, str]:
        code = self.process.wait()
        self._out.seek(0)
        self._err.seek(0)
        out, err = self._out.read(), self._err.read()
        self._out.close()
        self._err.close()
        return code, out, err


def _stop(writers: list[subprocess.Popen[str]], readers: list[_Reader]) -> None:
    for writer in writers:
        if writer.poll() is None:
            writer.kill()
            writer.communicate()  # closes its pipes
    for reader in readers:
        if reader.process.poll() is None:
            reader.process.kill()
        reader.result()
    readers.clear()


def test_writers_get_consecutive_numbers_and_readers_see_whole_snapshots(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "seed.txt").write_text("seed\n")
    Workspace.init(root).close()
    records = RECORDS * (4 if STRESS else 1)
    started = time.monotonic()
    writers = [
        subprocess.Popen(
            [sys.executable, "-c", _WRITER, str(root), f"w{i}", str(records)],
            env=_env(None),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for i in range(WRITERS)
    ]
    seen_logs: list[list[dict[str, object]]] = []
    verify_runs = 0
    readers: list[_Reader] = []
    scratch = tmp_path / "readers"
    scratch.mkdir()
    try:
        while any(w.poll() is None for w in writers) or readers:
            for reader in list(readers):
                if reader.process.poll() is None:
                    continue
                readers.remove(reader)
                code, out, err = reader.result()
                if reader.kind == "log":
                    assert code == 0, err
                    seen_logs.append(json.loads(out))
                else:
                    verify_runs += 1
                    report = json.loads(out)
                    assert code in (0, 1), err
                    # Only a writer caught between its write and its commit, never the history.
                    assert {p["kind"] for p in report["problems"]} <= _SYNC_KINDS, report
                    assert report["ok"] == (code == 0)
            if any(w.poll() is None for w in writers) and len(readers) < 2:
                kind = "verify" if any(r.kind == "log" for r in readers) else "log"
                readers.append(_Reader(root, kind, scratch))
            time.sleep(0.01)
    finally:
        # A failed check leaves no process running into the next test (nor an open file).
        _stop(writers, readers)
    acknowledged: dict[int, str] = {}
    for writer in writers:
        out, err = writer.communicate()
        assert writer.returncode == 0, err
        for line in out.splitlines():
            number, id_ = line.split()
            assert int(number) not in acknowledged, f"snapshot {number} was given twice"
            acknowledged[int(number)] = id_
    elapsed = time.monotonic() - started
    total = WRITERS * records
    assert sorted(acknowledged) == list(range(1, total + 1))

    final = cli(root, "log", "--json")
    assert final.returncode == 0, final.stderr
    history = {entry["number"]: entry for entry in json.loads(final.stdout)}
    assert sorted(history) == list(range(total + 1))
    assert all(history[n]["id"] == id_ for n, id_ in acknowledged.items())
    # Every snapshot a reader saw, at whatever moment, is the whole final snapshot.
    listed = 0
    for log in seen_logs:
        numbers = [entry["number"] for entry in log]  # newest first
        assert numbers == list(reversed(range(len(numbers)))), "a reader saw a gap"
        for entry in log:
            assert entry == history[entry["number"]]
            listed += 1
    assert seen_logs and verify_runs, "the readers never ran while the writers worked"
    assert_healthy(root)
    with Workspace.open(root) as ws:
        assert ws.validate(deep=True).ok
        for i in range(WRITERS):
            expected = f"w{i} {records - 1}\n" * records
            assert ws.content_at(f"w{i}/file.txt") == expected.encode()
    figures.add("concurrency_writers", WRITERS)
    figures.add("concurrency_records", total)
    figures.add("concurrency_reader_runs", len(seen_logs) + verify_runs)
    figures.add("concurrency_snapshots_seen_by_readers", listed)
    figures.add("concurrency_seconds", round(elapsed))


def test_a_writer_that_cannot_get_the_lock_says_busy(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "a.txt").write_text("a\n")
    Workspace.init(root).close()
    (root / "a.txt").write_text("changed\n")
    with filelock.FileLock(str(root / ".snapline" / "lock")):
        started = time.monotonic()
        busy = cli(root, "--timeout", "0.5", "record", "-m", "blocked")
        waited = time.monotonic() - started
        # Readers do not need the lock.
        assert cli(root, "log", "--json").returncode == 0
    assert busy.returncode == 4, busy.stderr
    assert busy.stderr.count("\n") == 1 and "busy" in busy.stderr, busy.stderr
    assert waited < 10
    assert assert_healthy(root, in_sync=False) == 0
    assert cli(root, "record", "-m", "now it can").returncode == 0
    assert assert_healthy(root) == 1
    figures.add("busy_writers_refused")


def test_a_writer_blocked_inside_sqlite_says_busy(tmp_path: Path) -> None:
    """The second line of defence: a transaction held by someone who skipped the lock."""
    root = tmp_path / "ws"
    root.mkdir()
    (root / "a.txt").write_text("a\n")
    Workspace.init(root).close()
    db = sqlite3.connect(root / ".snapline" / "index.db", isolation_level=None)
    try:
        db.execute("BEGIN IMMEDIATE")
        with Workspace.open(root, timeout=0.3) as ws:
            try:
                ws.write_file("a.txt", "blocked\n")
            except StoreBusyError as error:
                assert "busy" in str(error) and error.exit_code == 4
            else:
                raise AssertionError("the write went through a held transaction")
        assert (root / "a.txt").read_text() == "a\n"
        (root / "b.txt").write_text("new\n")
        busy = cli(root, "--timeout", "0.3", "resync", "-m", "blocked")
        assert busy.returncode == 4 and "busy" in busy.stderr, busy.stderr
    finally:
        db.execute("ROLLBACK")
        db.close()
    assert assert_healthy(root, in_sync=False) == 0
    figures.add("busy_writers_refused", 2)
