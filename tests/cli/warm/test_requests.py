"""What the server does with what arrives on its socket that is not a client's request.

The parent reads every connection without blocking (``daemon.py``): a request may come
in pieces, a process may connect and say nothing, or send bytes of no request at all.
Each test talks to a real server over its socket, then checks that it still serves the
real command line and that it ran nothing for what it refused.
"""

from __future__ import annotations

import json
import os
import socket
import sys
from pathlib import Path

import snapline
from snapline.cli.warm import protocol
from tests.cli.conftest import run_script
from tests.cli.warm.conftest import GUARD, Warm, alive, latest
from tests.cli.warm.monitoring import client_identity

_STREAMS = [b"utf-8", b"strict", b"0", b"0"] * 3


def _connect(server: Warm) -> socket.socket:
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    connection.settimeout(GUARD)  # a hang fails the test, never the suite
    connection.connect(str(server.socket()))
    return connection


def _until_closed(connection: socket.socket) -> bytes:
    said = b""
    while chunk := connection.recv(4096):
        said += chunk
    connection.close()
    return said


def _served_still(server: Warm, project: Path, before: int) -> None:
    # The server lives and serves the next command; it ran nothing for what it refused.
    assert alive(server.pid)
    assert server.served() == before
    version = run_script("--version", cwd=project)
    assert version.stdout == f"snapline {snapline.__version__}\n"
    assert server.served() == before + 1


def _record(root: Path) -> bytes:
    argv = [b"snapline", b"record", b"-m", b"in pieces"]
    env = [name + b"=" + value for name, value in os.environb.items()]
    fields = [os.fsencode(root), b"18", *_STREAMS, b"", b"%d" % len(argv), *argv, *env]
    return protocol.encode_request("run", client_identity(), fields)


def test_a_request_in_pieces_is_served_once_whole(warm: Warm, project: Path) -> None:
    (project / "README.md").write_text("# recorded from pieces\n")
    request = _record(project)
    connection = _connect(warm)
    # The length alone, then its first byte split off, then the body in three parts.
    for piece in (request[:1], request[1:4], request[4:40], request[40:-7], request[-7:]):
        connection.sendall(piece)
    said = connection.recv(5)
    assert said == b"send\n"
    out_r, out_w = os.pipe()
    null = os.open(os.devnull, os.O_RDWR)
    fds = b"".join(fd.to_bytes(4, sys.byteorder, signed=True) for fd in (null, out_w, null))
    connection.sendmsg([b"\0"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, fds)])
    os.close(null)
    os.close(out_w)
    started = connection.recv(64)
    assert started.startswith(b"started "), started
    connection.sendall(b"go\n")
    # The worker says how it ended, and the server again once it reaped it.
    assert _until_closed(connection) == b"exit 0\nexit 0\n"
    with os.fdopen(out_r, "rb") as out:
        assert out.read() == b"recorded snapshot 1: 1 file\n  M README.md\n"
    assert latest(project) == 1
    assert warm.served() == 1


def test_a_process_that_connects_and_says_nothing_delays_nobody(warm: Warm, project: Path) -> None:
    silent = _connect(warm)
    half = _connect(warm)
    half.sendall(_record(project)[:30])  # and never the rest
    try:
        _served_still(warm, project, 0)
        status = warm.status()
        assert (status["workers"], status["requests"]) == (0, 1)
    finally:
        silent.close()
        half.close()
    _served_still(warm, project, 1)
    assert latest(project) == 0


def test_bytes_that_are_no_request_are_dropped_without_an_answer(warm: Warm, project: Path) -> None:
    # Small, so that each is sent and read whole.
    whole = protocol.encode_request("run", client_identity(), [b"/", b"18"])
    for sent in (
        whole[:-1],  # shorter than its length says, then the end of the connection
        whole + b"more",  # longer than its length says
        len(b"hello").to_bytes(4, "big") + b"hello",  # no magic
        b"\0\0",  # not even a length
    ):
        connection = _connect(warm)
        connection.sendall(sent)
        connection.shutdown(socket.SHUT_WR)
        assert _until_closed(connection) == b"", sent
    _served_still(warm, project, 0)
    assert latest(project) == 0


def test_a_request_a_worker_cannot_take_is_refused_and_runs_nothing(
    warm: Warm, project: Path
) -> None:
    # Well framed, of this identity, but without the fields a command line needs: the
    # worker forked for it says so before it runs anything, then ends (exit 1).
    connection = _connect(warm)
    connection.sendall(protocol.encode_request("run", client_identity(), [b"/", b"18"]))
    assert connection.recv(5) == b"send\n"
    null = os.open(os.devnull, os.O_RDWR)
    try:
        socket.send_fds(connection, [b"\0"], [null, null, null])
    finally:
        os.close(null)
    assert _until_closed(connection) == b"refused setup IndexError\nexit 1\n"
    _served_still(warm, project, 1)
    assert latest(project) == 0


def test_a_request_of_an_unknown_kind_is_refused(warm: Warm, project: Path) -> None:
    connection = _connect(warm)
    connection.sendall(protocol.encode_request("dance", client_identity(), []))
    assert _until_closed(connection) == b"refused kind\n"
    _served_still(warm, project, 0)


def test_status_and_stop_are_answered_by_the_server_itself(warm: Warm, project: Path) -> None:
    connection = _connect(warm)
    connection.sendall(protocol.encode_request("status", client_identity(), []))
    word, _, data = _until_closed(connection).partition(b" ")
    status = json.loads(data)
    assert word == b"status"
    assert status == {
        "pid": warm.pid,
        "version": snapline.__version__,
        "socket": str(warm.socket()),
        "started": status["started"],
        "idle_timeout": 600.0,
        "requests": 0,
        "workers": 0,
        "threads": 1,
        "monitors": 0,
    }
    assert isinstance(status["started"], float)
    connection = _connect(warm)
    connection.sendall(protocol.encode_request("stop", client_identity(), []))
    assert _until_closed(connection) == b"stopping %d\n" % warm.pid
