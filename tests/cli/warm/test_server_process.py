"""The server's process: its log, its arguments, and why it did not start.

``snapline server start`` starts ``python FLAGS -c '...daemon.main()' IDLE_TIMEOUT READY_FD``
(its own interpreter flags: test_interpreter_flags.py) detached, with its output in
``server-*.log`` beside the socket (docs/cli.md); the
process reads its two arguments, says ``ready PID`` or ``error REASON`` on ``READY_FD``
and writes what happened to the log. Each test drives the real command or the real
process and reads what a person would: the command's output, the log, the status.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

import snapline
from tests.cli.conftest import run_script
from tests.cli.warm.conftest import GUARD, alive, start_server, wait_for, wait_gone

_DAEMON = "from snapline.cli.warm.daemon import main; main()"
_LINE = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d snapline server: (.*)")
_LIMIT = 1 << 20  # bytes: a longer log is emptied when a server starts
PACKAGE = Path(snapline.__file__).parent


def _log(runtime: Path) -> Path:
    (log,) = runtime.glob("server-*.log")
    return log


def _said(text: str) -> list[str]:
    # The log's lines without their time, each checked to carry one.
    said = []
    for line in text.splitlines():
        match = _LINE.fullmatch(line)
        assert match, line
        said.append(match[1])
    return said


def _stop(runtime: Path, pid: int) -> None:
    stopped = run_script("server", "stop", "--json", cwd=runtime)
    assert json.loads(stopped.stdout) == {"stopped": True, "pid": pid}
    wait_gone(pid)


def test_the_log_says_when_the_server_listened_and_stopped(runtime: Path) -> None:
    server = start_server(runtime)
    status = server.status()
    assert status["idle_timeout"] == 600.0  # start_server's --idle-timeout
    socket = status["socket"]
    # docs/cli.md: the log is `server-*.log`, beside the socket (and its lock).
    stem = Path(socket).stem
    assert re.fullmatch(r"server-[0-9a-f]{16}", stem), stem
    assert sorted(p.name for p in runtime.iterdir()) == [
        f"{stem}.{s}" for s in ("lock", "log", "sock")
    ]
    _stop(runtime, server.pid)
    log = _log(runtime)
    assert _said(log.read_text()) == [f"listening on {socket} (pid {server.pid})", "stopped"]

    # A log of the limit's size is kept and written after; a longer one is emptied.
    kept = "x" * (_LIMIT - 1) + "\n"
    log.write_text(kept)
    again = start_server(runtime)
    _stop(runtime, again.pid)
    text = log.read_text()
    assert text.startswith(kept)
    assert _said(text[len(kept) :]) == [f"listening on {socket} (pid {again.pid})", "stopped"]

    log.write_text(text + "y\n")  # now longer than the limit
    third = start_server(runtime)
    _stop(runtime, third.pid)
    assert _said(log.read_text()) == [f"listening on {socket} (pid {third.pid})", "stopped"]


@contextlib.contextmanager
def _by_hand(
    runtime: Path, *args: str, ready: int | None = None
) -> Iterator[subprocess.Popen[bytes]]:
    """The server's process started as its docstring says, with ``args``.

    ``ready``: a descriptor of this process passed as the child's standard input.
    """
    process = subprocess.Popen(
        [sys.executable, "-c", _DAEMON, *args],
        cwd=runtime,
        stdin=subprocess.DEVNULL if ready is None else ready,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        yield process
    finally:
        with contextlib.suppress(ProcessLookupError):
            process.kill()
        process.communicate(timeout=GUARD)


def _answering(runtime: Path, process: subprocess.Popen[bytes]) -> dict[str, object]:
    # Until the server answers `server status`, or its process ended (a failure).
    found: dict[str, object] = {}

    def answers() -> bool:
        assert process.poll() is None, process.communicate(timeout=GUARD)
        found.update(json.loads(run_script("server", "status", "--json", cwd=runtime).stdout))
        return bool(found["running"])

    wait_for(answers, "the server answers")
    return found


@pytest.mark.parametrize(
    ("args", "idle_timeout"), [((), 3600.0), (("45",), 45.0)], ids=["no-arguments", "idle-only"]
)
def test_the_server_started_by_hand_without_a_ready_descriptor(
    runtime: Path, args: tuple[str, ...], idle_timeout: float
) -> None:
    with _by_hand(runtime, *args) as process:
        status = _answering(runtime, process)
        assert (status["pid"], status["idle_timeout"]) == (process.pid, idle_timeout)
        process.terminate()  # `server stop` would wait for this test's child to be reaped
        out, err = process.communicate(timeout=GUARD)
    assert process.returncode == 0
    assert out == b""  # nobody asked to be told "ready": nothing on any descriptor
    listening = f"listening on {status['socket']} (pid {process.pid})"
    assert _said(err.decode()) == [listening, "stopped"]


def test_the_ready_descriptor_may_be_any_one_even_the_standard_input(runtime: Path) -> None:
    read_end, write_end = os.pipe()
    try:
        with _by_hand(runtime, "30", "0", ready=write_end) as process:
            os.close(write_end)
            with os.fdopen(read_end, "rb") as ready:
                read_end = -1
                assert ready.read() == b"ready %d\n" % process.pid  # then closed: EOF
            assert _answering(runtime, process)["idle_timeout"] == 30.0
            process.terminate()
            assert process.wait(timeout=GUARD) == 0
    finally:
        if read_end >= 0:
            os.close(read_end)


def _loose(runtime: Path) -> tuple[Path, str]:
    runtime.chmod(0o750)
    return runtime, "its mode is 0750, not 0700"


def _gone(runtime: Path) -> tuple[Path, str]:
    return runtime / "gone", "it does not exist"  # the server makes none: `start` does


def _under_a_file(runtime: Path) -> tuple[Path, str]:
    (runtime / "file").write_text("")
    return runtime / "file" / "sub", "it cannot be read (Not a directory)"


@pytest.mark.parametrize("make", [_loose, _gone, _under_a_file], ids=lambda f: f.__name__[1:])
def test_a_server_started_by_hand_refuses_a_directory_that_is_not_private(
    runtime: Path, monkeypatch: pytest.MonkeyPatch, make: Callable[[Path], tuple[Path, str]]
) -> None:
    directory, problem = make(runtime)
    monkeypatch.setenv("SNAPLINE_RUNTIME_DIR", str(directory))
    before = sorted(p.name for p in runtime.iterdir())
    read_end, write_end = os.pipe()
    with _by_hand(runtime, "30", "0", ready=write_end) as process:
        os.close(write_end)
        with os.fdopen(read_end, "rb") as ready:
            said = ready.read().decode()
        out, err = process.communicate(timeout=GUARD)
    reason = f"OSError: the runtime directory {directory} is not private: {problem}"
    assert (process.returncode, said, out) == (1, f"error {reason}\n", b"")
    assert _said(err.decode()) == [f"not started: {reason}"]
    assert sorted(p.name for p in runtime.iterdir()) == before  # no socket, no lock


def test_a_second_server_is_refused_while_one_runs(runtime: Path) -> None:
    # Its socket gone (removed by hand), the running server is found by its lock: the
    # new one refuses, and `server start` says why.
    server = start_server(runtime)
    socket = server.socket()
    socket.unlink()
    done = run_script("server", "start", cwd=runtime)
    log = _log(runtime)
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == (
        f"snapline: error: the server did not start: already running ({socket}) (log: {log})\n"
    )
    assert _said(log.read_text()) == [
        f"listening on {socket} (pid {server.pid})",
        f"not started: already running ({socket})",
    ]
    os.kill(server.pid, signal.SIGTERM)  # no socket to ask it by: as a person would
    wait_gone(server.pid)
    assert _said(log.read_text())[-1] == "stopped"


def test_a_runtime_directory_too_long_for_a_socket(runtime: Path) -> None:
    deep = runtime / ("d" * 100)
    deep.mkdir(mode=0o700)
    done = run_script("server", "start", cwd=runtime, env={"SNAPLINE_RUNTIME_DIR": str(deep)})
    assert done.returncode == 1
    (socket,) = re.findall(r"the socket path (\S+) is longer", done.stderr)
    assert Path(socket).parent == deep
    assert done.stderr == (
        f"snapline: error: the socket path {socket} is longer than a Unix socket address "
        "allows; set SNAPLINE_RUNTIME_DIR to a shorter directory\n"
    )
    assert list(deep.iterdir()) == []


@pytest.fixture
def copy(tmp_path: Path) -> Path:
    """A copy of the installed package, found first through PYTHONPATH."""
    path = tmp_path / "copy"
    shutil.copytree(PACKAGE, path / "snapline", ignore=shutil.ignore_patterns("__pycache__"))
    return path


def test_a_server_that_dies_before_a_word_is_reported_with_the_log(
    runtime: Path, copy: Path
) -> None:
    # A broken installation: the server's module fails as it loads, before it can say
    # why on the ready descriptor; what it said instead is in the log.
    daemon = copy / "snapline" / "cli" / "warm" / "daemon.py"
    future = "from __future__ import annotations\n"
    daemon.write_text(
        daemon.read_text().replace(future, future + 'raise SystemExit("broken on purpose")\n')
    )
    done = run_script("server", "start", cwd=runtime, env={"PYTHONPATH": str(copy)})
    log = _log(runtime)
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == (f"snapline: error: the server did not start: no answer (log: {log})\n")
    assert log.read_text() == "broken on purpose\n"


def test_a_server_its_client_cannot_reach_is_stopped_and_reported_with_the_log(
    runtime: Path, copy: Path
) -> None:
    # A server that says "ready" and listens where its client never looks (here a copy
    # whose server names its socket after another identity, as a server with other
    # flags or another import path would): `server start` says so, and stops it.
    daemon = copy / "snapline" / "cli" / "warm" / "daemon.py"
    mine = "key = protocol.identity()\n"
    assert mine in daemon.read_text()
    daemon.write_text(daemon.read_text().replace(mine, 'key = protocol.identity() + "x"\n'))
    done = run_script("server", "start", cwd=runtime, env={"PYTHONPATH": str(copy)})
    log = _log(runtime)  # the client's: the server writes to what it was given
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == (
        f"snapline: error: the server started but does not answer; it was stopped (log: {log})\n"
    )
    listening, stopped = _said(log.read_text())
    assert stopped == "stopped"
    match = re.fullmatch(r"listening on \S+ \(pid (\d+)\)", listening)
    assert match, listening
    assert not alive(int(match[1]))  # no server left behind
