"""A stopped or stuck server delays a command a bounded time, and never holds a signal.

The client waits at most ``SNAPLINE_SERVER_WAIT`` seconds (2 by default) for a worker
to start, then runs the command itself; a worker runs a command only once its client
answers ``go``, so a client that gave up is never served late as well; a signal before
then ends the client at once. The bounds below are a hung process's, never a
measurement: the outcome is asserted, not its time.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cli.conftest import run_script
from tests.cli.warm.conftest import GUARD, Warm, latest, local, wait_for
from tests.cli.warm.monitoring import client_identity

SCRIPT = str(Path(sys.executable).with_name("snapline"))
RECORDED = "recorded snapshot 1: 1 file\n  M src/app.py\n"


def _edit(root: Path, content: str) -> None:
    (root / "src" / "app.py").write_text(content)


@pytest.fixture
def stopped(warm: Warm) -> Iterator[Warm]:
    """The server, stopped by SIGSTOP (continued afterwards, whatever happens)."""
    os.kill(warm.pid, signal.SIGSTOP)
    try:
        yield warm
    finally:
        os.kill(warm.pid, signal.SIGCONT)


def test_a_client_of_a_stopped_server_gives_up_and_gets_the_cold_answer(
    stopped: Warm, project: Path
) -> None:
    _edit(project, "one\n")
    done = run_script("record", "-m", "while stopped", cwd=project)  # bounded by GUARD
    assert (done.returncode, done.stdout, done.stderr) == (0, RECORDED, "")
    assert latest(project) == 1
    status = local("status", cwd=project)
    assert status.returncode == 0, status.stdout


def _handlers_set(pid: int) -> bool:
    # SIGTERM is caught (SigCgt) only once the client waits on a server: a Python
    # process leaves it at its default otherwise.
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("SigCgt:"):
            return bool(int(line.split()[1], 16) & (1 << (signal.SIGTERM - 1)))
    return False


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=lambda s: s.name)
def test_a_signal_ends_a_client_waiting_on_a_stopped_server_at_once(
    stopped: Warm, project: Path, signum: signal.Signals
) -> None:
    _edit(project, "one\n")
    client = subprocess.Popen(
        [SCRIPT, "record", "-m", "never"],
        cwd=project,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "SNAPLINE_SERVER_WAIT": "3600"},  # it would wait an hour
        # As a terminal starts it: a suite run in the background of a shell without job
        # control ignores SIGINT, and the client rightly ignores what it inherits ignored.
        preexec_fn=lambda: signal.signal(signum, signal.SIG_DFL),
    )
    try:
        wait_for(lambda: _handlers_set(client.pid), "the client waits on the server")
        client.send_signal(signum)
        out, err = client.communicate(timeout=GUARD)
    finally:
        with contextlib.suppress(ProcessLookupError):
            client.kill()
        client.wait()
    assert (client.returncode, out, err) == (-signum, b"", b"")
    assert latest(project) == 0


def test_a_worker_whose_client_never_says_go_runs_nothing(warm: Warm, project: Path) -> None:
    # A client that gave up after "started" was sent (it timed out, or a signal ended
    # it): the worker must not run the command the client is running itself.
    key = client_identity()
    code = (
        "import os, socket, sys\n"
        "from snapline.cli.warm import protocol\n"
        "c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)\n"
        "c.connect(sys.argv[1])\n"
        "streams = [b'utf-8', b'strict', b'0', b'0'] * 3\n"
        "env = [k + b'=' + v for k, v in os.environb.items()]\n"
        "fields = [os.getcwdb(), b'18', *streams, b'', b'2', b'snapline', b'record', *env]\n"
        "c.sendall(protocol.encode_request('run', sys.argv[2], fields))\n"
        "assert c.recv(4096) == b'send\\n'\n"
        "socket.send_fds(c, [b'\\0'], [0, 1, 2])\n"
        "print(c.recv(4096).decode().split()[0])\n"
    )
    _edit(project, "one\n")
    done = subprocess.run(
        [sys.executable, "-c", code, str(warm.socket()), key],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=GUARD,
        check=True,
    )
    assert done.stdout == "started\n"
    wait_for(lambda: warm.status()["workers"] == 0, "the worker ended")
    assert warm.served() == 1
    assert latest(project) == 0
    assert run_script("record", cwd=project).stdout == RECORDED


@pytest.mark.parametrize(
    ("given", "seconds"),
    [(None, 2.0), ("", 2.0), ("0.5", 0.5), ("7", 7.0), ("0", 2.0), ("-3", 2.0), ("soon", 2.0)],
)
def test_how_long_a_client_waits_for_a_server(
    monkeypatch: pytest.MonkeyPatch, given: str | None, seconds: float
) -> None:
    # SNAPLINE_SERVER_WAIT, as docs/cli.md says: seconds (default 2). A value that is no
    # positive number is the default: a client never waits for ever, nor gives up at once.
    from snapline.cli.warm import protocol

    if given is None:
        monkeypatch.delenv("SNAPLINE_SERVER_WAIT", raising=False)
    else:
        monkeypatch.setenv("SNAPLINE_SERVER_WAIT", given)
    assert protocol.wait() == seconds
