"""A warm server per test, in a runtime directory of its own, always stopped afterwards.

Every process the tests start here is the real console script (``snapline``), as an agent
or a person runs it; whether a command was served warm is read from the server's own
count of the commands it forked (``snapline server status --json``), never from timing.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from snapline import Workspace
from tests.cli.conftest import run_script

GUARD = 120.0  # seconds: a bound on a hung process, never a measurement


@dataclass
class Warm:
    """A running server: its pid and runtime directory."""

    pid: int
    runtime: Path

    def status(self) -> dict[str, Any]:
        done = run_script("server", "status", "--json", cwd=self.runtime)
        assert done.returncode == 0, done.stderr
        data: dict[str, Any] = json.loads(done.stdout)
        return data

    def served(self) -> int:
        status = self.status()
        assert status["running"], status
        assert status["pid"] == self.pid
        return int(status["requests"])

    def socket(self) -> Path:
        return Path(self.status()["socket"])


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie (a child of this test that has exited) is gone for every purpose here.
    with contextlib.suppress(OSError):
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        return state != "Z"
    return True


def wait_gone(pid: int) -> None:
    deadline = time.monotonic() + GUARD
    while alive(pid):
        assert time.monotonic() < deadline, f"process {pid} still runs"
        time.sleep(0.02)


def wait_for(condition: Any, what: str) -> None:
    deadline = time.monotonic() + GUARD
    while not condition():
        assert time.monotonic() < deadline, f"never happened: {what}"
        time.sleep(0.02)


@pytest.fixture
def runtime(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A private runtime directory (short: a socket path has 107 bytes), servers allowed."""
    path = Path(tempfile.mkdtemp(prefix="slw-"))
    monkeypatch.setenv("SNAPLINE_RUNTIME_DIR", str(path))
    monkeypatch.delenv("SNAPLINE_SERVER", raising=False)
    monkeypatch.delenv("CI", raising=False)
    yield path
    # Whatever a test started here stops: by the command, then by its pid.
    path.chmod(0o700)
    for lock in path.glob("*.lock"):
        for pid in _holders(lock):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
            wait_gone(pid)
    shutil.rmtree(path, ignore_errors=True)


def _holders(lock: Path) -> list[int]:
    # The processes holding the lock file open: the servers of this directory (and
    # any worker still running, which never keeps it: see test_safety).
    found = []
    for fd_dir in Path("/proc").glob("[0-9]*/fd"):
        with contextlib.suppress(OSError):
            for fd in fd_dir.iterdir():
                with contextlib.suppress(OSError):
                    if os.readlink(fd) == str(lock):
                        found.append(int(fd_dir.parent.name))
                        break
    return found


def start_server(runtime: Path, *extra: str, env: dict[str, str] | None = None) -> Warm:
    done = run_script(
        "server", "start", "--idle-timeout", "600", "--json", *extra, cwd=runtime, env=env
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["started_now"] is True
    return Warm(int(data["pid"]), runtime)


@pytest.fixture
def warm(runtime: Path) -> Iterator[Warm]:
    """A server started with ``snapline server start``, stopped after the test."""
    server = start_server(runtime)
    yield server
    run_script("server", "stop", cwd=runtime)
    with contextlib.suppress(ProcessLookupError):
        os.kill(server.pid, signal.SIGKILL)
    wait_gone(server.pid)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A workspace with two files in its baseline."""
    root = tmp_path / "ws"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text("print('hello')\n")
    (root / "README.md").write_text("# demo\n")
    Workspace.init(root).close()
    return root


def latest(root: Path) -> int:
    with Workspace.open(root) as ws:
        return ws.latest


def local(*args: str, cwd: Path, env: dict[str, str] | None = None) -> Any:
    """``snapline ARGS`` run without the server."""
    return run_script(*args, cwd=cwd, env={**(env or {}), "SNAPLINE_SERVER": "0"})
