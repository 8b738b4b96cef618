"""``snapline watch``: a real process, real file events, the history polled (never slept on)."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from snapline import Snapshot, Workspace
from snapline.hosts.watch import Watcher, WatchUnavailableError
from tests.hosts.conftest import env

PATIENCE = 60.0  # seconds: generous, the machine may be busy; only a bound, never a wait


def _until(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + PATIENCE
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up waiting: {what}")
        time.sleep(0.05)


def _snapshots(root: Path) -> list[Snapshot]:
    with Workspace.open(root) as ws:
        return [ws.snapshot(n) for n in range(1, ws.latest + 1)]


def _in_sync(root: Path) -> bool:
    with Workspace.open(root) as ws:
        return ws.check_sync().ok


@pytest.fixture
def start(project: Path) -> Iterator[Callable[..., subprocess.Popen[str]]]:
    started: list[subprocess.Popen[str]] = []

    def launch(*args: str) -> subprocess.Popen[str]:
        process = subprocess.Popen(
            [sys.executable, "-m", "snapline", "watch", *args],
            cwd=project,
            env=env(NO_COLOR="1"),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        started.append(process)
        # It says so once the observer is running: changes from then on are seen.
        assert process.stderr is not None
        line = process.stderr.readline()
        assert line.startswith("watching "), line + process.stderr.read()
        return process

    yield launch
    for process in started:
        if process.poll() is None:
            process.kill()
        process.communicate(timeout=PATIENCE)


def test_a_change_becomes_a_watch_snapshot(project: Path, start: Callable[..., object]) -> None:
    start("--quiet-ms", "100")

    (project / "src" / "app.py").write_text("print('bye')\n")
    _until(lambda: len(_snapshots(project)) == 1, "a snapshot of the edit")

    [snapshot] = _snapshots(project)
    assert snapshot.tool == "watch"
    assert snapshot.description == "src/app.py"
    assert [f.path for f in snapshot.files] == ["src/app.py"]


def test_a_burst_is_one_snapshot(project: Path, start: Callable[..., object]) -> None:
    # A quiet window far longer than a pause between two writes of a loaded machine: the
    # burst is one burst however slowly it is written.
    start("--quiet-ms", "2000")

    (project / "many").mkdir()
    for i in range(500):
        (project / "many" / f"f{i:03}.txt").write_text(f"{i}\n")
    _until(lambda: _in_sync(project), "every file of the burst recorded")

    snapshots = _snapshots(project)
    assert 1 <= len(snapshots) <= 3
    assert sum(len(s.files) for s in snapshots) == 500
    assert all(s.tool == "watch" for s in snapshots)


def test_ignored_paths_never_trigger_and_other_writers_keep_working(
    project: Path, start: Callable[..., object]
) -> None:
    (project / ".gitignore").write_text("*.log\nbuild/\n")
    with Workspace.open(project) as ws:
        ws.record(".gitignore", tool="setup")
    start("--quiet-ms", "100")

    (project / "debug.log").write_text("noise\n")
    (project / "build").mkdir()
    (project / "build" / "out.bin").write_bytes(b"\0" * 10)
    with Workspace.open(project, timeout=PATIENCE) as ws:
        written = ws.write_file("notes.md", "by the library\n", tool="agent")
    assert written.number == 2
    (project / "README.md").write_text("# real\n")
    _until(lambda: len(_snapshots(project)) == 3, "a snapshot of the real change")

    last = _snapshots(project)[-1]
    # The ignored files (and .snapline/, and the library's own write) were never
    # pending: the watcher's snapshot names only what changed outside.
    assert (last.tool, last.description) == ("watch", "README.md")
    assert [f.path for f in last.files] == ["README.md"]


def test_sigint_records_what_is_pending_then_exits_0(
    project: Path, start: Callable[..., subprocess.Popen[str]]
) -> None:
    process = start("--quiet-ms", "600000")

    (project / "README.md").write_text("# pending\n")
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=PATIENCE)

    assert process.returncode == 0, err
    assert "stopped watching" in err
    [snapshot] = _snapshots(project)
    assert [f.path for f in snapshot.files] == ["README.md"]
    assert out.startswith("snapshot 1: ")


def test_without_watchdog_the_error_says_how_to_get_it(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "watchdog.observers", None)

    with pytest.raises(WatchUnavailableError, match=r"pip install 'snapline\[watch\]'"):
        Watcher(ws)


def test_the_handler_drops_ignored_store_and_git_paths(project: Path) -> None:
    import queue

    from watchdog.events import (
        DirModifiedEvent,
        FileCreatedEvent,
        FileModifiedEvent,
        FileMovedEvent,
    )

    from snapline.hosts.watch import _Event, _Handler, _Rules

    (project / ".gitignore").write_text("*.log\nbuild/\n")
    events: queue.Queue[_Event] = queue.Queue()
    handler = _Handler(project, _Rules(project), events)
    for event in (
        FileModifiedEvent(str(project / "debug.log")),
        FileCreatedEvent(str(project / "build" / "deep" / "out.bin")),
        FileModifiedEvent(str(project / ".snapline" / "index.db")),
        FileModifiedEvent(str(project / ".git" / "index")),
        FileModifiedEvent(str(project.parent / "elsewhere.txt")),
        DirModifiedEvent(str(project / "src")),
        FileMovedEvent(str(project / "a.log"), str(project / "src" / "a.py")),
        FileModifiedEvent(str(project / "src" / "app.py")),
    ):
        handler.dispatch(event)

    seen = [events.get_nowait().paths for _ in range(events.qsize())]
    assert seen == [("src/a.py",), ("src/app.py",)]


def test_a_path_gone_before_the_quiet_period_ends_is_no_error(project: Path) -> None:
    # An editor's swap file: created and deleted between two recordings. Recording the
    # events' paths as given would be refused (UnknownPathError, issue 14 item 21).
    with Workspace.open(project) as ws:
        watcher = Watcher(ws, quiet=0.05)
        (project / "src" / "app.py").write_text("print('bye')\n")
        assert watcher._record({"src/app.py", "src/.app.py.swp", "gone/dir"}) == set()
        assert ws.latest == 1
        assert [f.path for f in ws.snapshot(1).files] == ["src/app.py"]
