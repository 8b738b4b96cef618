"""The warm server serves only this user, from a private directory, with the code on disk.

Each refusal is checked through the real command: the command still runs (in its own
process) and the server's count of commands it forked does not move.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

import snapline
from snapline.cli.warm import protocol
from tests.cli.conftest import run_script
from tests.cli.warm.conftest import GUARD, Warm, alive, latest, wait_gone
from tests.cli.warm.monitoring import client_identity, forked

PACKAGE = Path(snapline.__file__).parent


def _edit(root: Path, content: str) -> None:
    (root / "src" / "app.py").write_text(content)


def test_no_command_uses_a_server_in_a_directory_that_is_not_private(
    warm: Warm, project: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # Another user who can reach the socket could run commands as this one.
    warm.runtime.chmod(0o755)
    _edit(project, "one\n")
    done = run_script("record", cwd=project)
    assert (done.returncode, done.stdout) == (0, "recorded snapshot 1: 1 file\n  M src/app.py\n")
    warm.runtime.chmod(0o700)
    assert warm.served() == 0

    link = tmp_path / "link"
    link.symlink_to(warm.runtime)
    _edit(project, "two\n")
    done = run_script("record", cwd=project, env={"SNAPLINE_RUNTIME_DIR": str(link)})
    assert (done.returncode, done.stdout) == (0, "recorded snapshot 2: 1 file\n  M src/app.py\n")
    assert warm.served() == 0

    _edit(project, "three\n")
    assert run_script("record", cwd=project).returncode == 0
    assert warm.served() == 1  # sanity: the same command, served when the directory is private


def _as_other_user(socket_path: Path, key: str, cwd: Path) -> bytes:
    # A forked child that becomes uid 65534, then connects: SO_PEERCRED holds the
    # credentials of connect(). (The venv's python may not be executable by that user.)
    def child() -> bytes:
        os.setgid(65534)
        os.setuid(65534)
        connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        connection.settimeout(GUARD)
        connection.connect(str(socket_path))
        fields = [os.fsencode(cwd), b"18", *[b"utf-8", b"strict", b"0", b"0"] * 3]
        request = protocol.encode_request("run", key, [*fields, b"", b"2", b"snapline", b"record"])
        # The server may answer and close before the request is sent: read anyway.
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            socket.send_fds(connection, [request], [0, 1, 2])
        return connection.recv(4096)

    return forked(child)


@pytest.mark.skipif(os.geteuid() != 0, reason="only root can connect as another user")
def test_a_process_of_another_user_is_refused_even_when_it_reaches_the_socket(
    warm: Warm, project: Path
) -> None:
    # The directory's mode is the first wall; the peer's uid (SO_PEERCRED) the second.
    socket_path = warm.socket()
    warm.runtime.chmod(0o711)
    socket_path.chmod(0o666)
    _edit(project, "theirs\n")
    said = _as_other_user(socket_path, protocol.identity(), project)
    warm.runtime.chmod(0o700)
    assert said == b"refused uid\n"
    assert warm.served() == 0
    assert latest(project) == 0


def _request(warm: Warm, kind: str, key: str) -> str:
    code = (
        "import socket, sys\n"
        "from snapline.cli.warm import protocol\n"
        "c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)\n"
        "c.connect(sys.argv[1])\n"
        "streams = [b'utf-8', b'strict', b'0', b'0'] * 3\n"
        "fields = [b'/', b'18', *streams, b'', b'2', b'snapline', b'x']\n"
        "request = protocol.encode_request(sys.argv[2], sys.argv[3], fields)\n"
        "socket.send_fds(c, [request], [0, 1, 2])\n"
        "print(c.recv(4096).decode().strip())\n"
    )
    return subprocess.run(
        [sys.executable, "-c", code, str(warm.socket()), kind, key],
        capture_output=True,
        text=True,
        timeout=GUARD,
        check=True,
    ).stdout.strip()


def test_a_request_of_another_identity_is_refused(warm: Warm) -> None:
    assert _request(warm, "run", "('another python',)") == "refused identity"
    assert warm.served() == 0
    assert alive(warm.pid)


@pytest.fixture
def copy(tmp_path: Path) -> Iterator[Path]:
    """A copy of the installed package, found first through PYTHONPATH."""
    path = tmp_path / "copy"
    shutil.copytree(PACKAGE, path / "snapline", ignore=shutil.ignore_patterns("__pycache__"))
    yield path


def test_a_server_whose_code_changed_refuses_stops_and_the_command_runs_once(
    runtime: Path, project: Path, copy: Path
) -> None:
    env = {"PYTHONPATH": str(copy)}
    started = run_script("server", "start", "--json", cwd=project, env=env)
    assert started.returncode == 0, started.stderr
    server = Warm(json.loads(started.stdout)["pid"], runtime)
    _edit(project, "one\n")
    assert run_script("record", cwd=project, env=env).returncode == 0
    status = json.loads(run_script("server", "status", "--json", cwd=project, env=env).stdout)
    assert status["requests"] == 1  # sanity: this copy's server served it

    dispatch = copy / "snapline" / "cli" / "dispatch.py"
    text = dispatch.read_text()
    dispatch.write_text(
        text.replace('f"snapline {__version__}\\n"', 'f"snapline {__version__} (edited)\\n"')
    )
    assert "(edited)" in dispatch.read_text()
    _edit(project, "two\n")
    done = run_script("record", cwd=project, env=env)
    assert (done.returncode, done.stdout) == (0, "recorded snapshot 2: 1 file\n  M src/app.py\n")
    wait_gone(server.pid)  # a stale server stops
    assert latest(project) == 2  # recorded once, in the client's own process
    version = run_script("--version", cwd=project, env=env)
    assert version.stdout == f"snapline {snapline.__version__} (edited)\n"


def test_a_server_whose_code_changed_says_so(
    runtime: Path, project: Path, copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTHONPATH", str(copy))  # this copy's client, and its server
    monkeypatch.chdir(project)  # not this checkout, whose snapline `python -c` would import
    started = run_script("server", "start", "--json", cwd=project)
    assert started.returncode == 0, started.stderr
    server = Warm(json.loads(started.stdout)["pid"], runtime)
    key = client_identity()
    assert _request(server, "status", key).startswith("status {")  # sanity: it answers
    dispatch = copy / "snapline" / "cli" / "dispatch.py"
    dispatch.write_text(dispatch.read_text() + "# edited\n")
    assert _request(server, "run", key) == "refused stale"
    wait_gone(server.pid)


def test_a_client_of_another_version_never_reaches_the_server(
    warm: Warm, project: Path, copy: Path
) -> None:
    init = copy / "snapline" / "__init__.py"
    init.write_text(init.read_text().replace(f'"{snapline.__version__}"', '"9.9.9"'))
    done = run_script("--version", cwd=project, env={"PYTHONPATH": str(copy)})
    assert done.stdout == "snapline 9.9.9\n"
    assert warm.served() == 0
    assert run_script("--version", cwd=project).stdout == f"snapline {snapline.__version__}\n"
    assert warm.served() == 1


_THREADED = """
import sys, threading, time
threading.Thread(target=time.sleep, args=(3600,), daemon=True).start()
from snapline.cli.warm.daemon import main
main()
"""


def test_a_server_with_a_thread_forks_nothing(runtime: Path, project: Path) -> None:
    # As if something the server imported had started a thread: it must not fork.
    read_end, write_end = os.pipe()
    process = subprocess.Popen(
        [sys.executable, "-c", _THREADED, "600", str(write_end)],
        pass_fds=(write_end,),
        cwd="/",
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    os.close(write_end)
    try:
        with os.fdopen(read_end, "rb") as ready:
            assert ready.readline().startswith(b"ready "), process.stderr
        status = json.loads(run_script("server", "status", "--json", cwd=project).stdout)
        assert status["pid"] == process.pid and status["threads"] == 2
        _edit(project, "one\n")
        done = run_script("record", cwd=project)
        assert (done.returncode, done.stdout) == (
            0,
            "recorded snapshot 1: 1 file\n  M src/app.py\n",
        )
        status = json.loads(run_script("server", "status", "--json", cwd=project).stdout)
        assert status["requests"] == 0
        assert latest(project) == 1
        # What it answers the client, which then runs the command itself.
        assert _request(Warm(process.pid, runtime), "run", client_identity()) == "refused threads"
    finally:
        process.kill()
        _, log = process.communicate(timeout=GUARD)
    said = b" snapline server: a thread runs in the server: forking nothing, the client runs"
    said += b" the command\n"
    assert said in log
    assert threading.active_count() >= 1
