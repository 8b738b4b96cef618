"""What the monitor's tests share: a check served warm, the same check walked whole."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import signal
import socket
import subprocess
import sys
import termios
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from tests.cli.conftest import run_script
from tests.cli.warm.conftest import GUARD, Warm, local
from tests.conftest import GIT_IDENTITY


def git(root: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[bytes]:
    """Run git in ``root`` with a fixed identity and no user or system configuration.

    Args:
        root: The work tree.
        args: Git's arguments.
        check: Raise ``CalledProcessError`` when git fails.
    """
    path = os.environ.get("PATH", "/usr/bin:/bin")
    env = {"PATH": path, "HOME": str(root), "LC_ALL": "C", **GIT_IDENTITY}
    return subprocess.run(["git", *args], cwd=root, env=env, capture_output=True, check=check)


def token(root: Path) -> dict[str, Any]:
    """The workspace's monitor token (``.snapline/monitor.json``)."""
    data: dict[str, Any] = json.loads((root / ".snapline" / "monitor.json").read_text())
    return data


def drift(done: Any) -> list[tuple[str, str | None, str | None, str | None]]:
    """The drift of a ``status --json`` run, as comparable tuples."""
    assert done.returncode == 0, done.stderr
    return [
        (p["kind"], p["path"], p.get("expected"), p.get("actual"))
        for p in json.loads(done.stdout)["drift"]
    ]


def warm_status(root: Path, server: Warm) -> list[tuple[str, str | None, str | None, str | None]]:
    """``status --json`` served by ``server`` (its count says it was)."""
    before = server.served()
    done = run_script("status", "--json", cwd=root)
    assert server.served() == before + 1
    return drift(done)


def walked_status(root: Path) -> list[tuple[str, str | None, str | None, str | None]]:
    """``status --json`` without a server: the whole walk, the oracle."""
    return drift(local("status", "--json", cwd=root))


Drift = list[tuple[str, str | None, str | None, str | None]]


def same_as_walk(root: Path, server: Warm) -> tuple[Drift, bool]:
    """Check warm, then walked: ``status`` and ``verify`` say the same.

    Returns:
        The warm drift, and whether the warm ``status`` (the first check here) walked
        the whole tree (its token says).
    """
    warm = warm_status(root, server)
    walked = bool(token(root)["walked"])
    assert warm == walked_status(root)
    # Verify's history checkpoint first, so that both runs below start from it.
    local("verify", cwd=root)
    served, alone = run_script("verify", cwd=root), local("verify", cwd=root)
    assert (served.returncode, served.stdout, served.stderr) == (
        alone.returncode,
        alone.stdout,
        alone.stderr,
    )
    return warm, walked


@contextlib.contextmanager
def stopped(pid: int) -> Iterator[None]:
    """The server's process stopped (SIGSTOP): its queues fill and nothing drains them."""
    os.kill(pid, signal.SIGSTOP)
    try:
        yield
    finally:
        os.kill(pid, signal.SIGCONT)


def wait_stopped(pid: int) -> None:
    """Until the kernel says ``pid`` is stopped (state ``T``): SIGSTOP is asynchronous."""
    deadline = time.monotonic() + GUARD
    while Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "T":
        assert time.monotonic() < deadline, f"process {pid} never stopped"
        time.sleep(0.01)


class SlowRequest:
    """A warm request sent in two parts, as a slow client would: the server holds it.

    The first part (less than the request's length field) is read by the server, which
    then waits for the rest; :meth:`finish` sends the rest, and :meth:`outcome` reads
    the worker's exit code and standard output.
    """

    def __init__(self, server: Warm, root: Path, *args: str) -> None:
        from snapline.cli.warm import protocol

        self._out_r, out_w = os.pipe()
        null = os.open(os.devnull, os.O_RDWR)
        env = {**os.environ, "SNAPLINE_SERVER": "1"}
        argv = [b"snapline", *(os.fsencode(arg) for arg in args)]
        streams = [b"utf-8", b"strict", b"0", b"0"] * 3
        fields = [os.fsencode(root), b"18", *streams, b"", b"%d" % len(argv), *argv]
        fields += [os.fsencode(f"{name}={value}") for name, value in env.items()]
        self._data = protocol.encode_request("run", client_identity(), fields)
        self._connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._connection.connect(str(server.socket()))
        fds = b"".join(fd.to_bytes(4, sys.byteorder, signed=True) for fd in (null, out_w, null))
        self._connection.sendmsg([self._data[:2]], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, fds)])
        os.close(null)
        os.close(out_w)
        # The server has read the first part when nothing of it is left unread.
        deadline = time.monotonic() + GUARD
        while _unread(self._connection) > 0:
            assert time.monotonic() < deadline, "the server never read the request"
            time.sleep(0.01)

    def finish(self) -> None:
        """Send the rest of the request."""
        self._connection.sendall(self._data[2:])

    def outcome(self) -> tuple[int, str]:
        """The exit code the server reports, and what the command wrote to stdout."""
        replies = b""
        while replies.count(b"\n") < 2:
            chunk = self._connection.recv(4096)
            assert chunk, replies
            replies += chunk
        self._connection.close()
        started, ended = replies.split(b"\n")[:2]
        assert started.startswith(b"started "), replies
        assert ended.startswith(b"exit "), replies
        with os.fdopen(self._out_r, "rb") as out:
            return int(ended.split()[1]), out.read().decode()


def client_identity() -> str:
    """The key a client sends, as the console script computes it.

    From a child python: pytest's import path is not a client's.
    """
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "from snapline.cli.warm import protocol; print(protocol.identity())",
        ],
        capture_output=True,
        text=True,
        check=True,
        timeout=GUARD,
    )
    return done.stdout.strip()


def forked(action: Callable[[], bytes]) -> bytes:
    """What ``action`` returns run in a forked child, or the repr of what it raised.

    For a client whose rights differ from this runner's (another user, a capability
    dropped, another mount namespace): the child changes its own, this process keeps its.
    """
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        try:
            os.close(read_end)
            os.write(write_end, action())
        except BaseException as error:
            os.write(write_end, repr(error).encode())
        finally:
            os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as reply:
        said = reply.read()
    os.waitpid(pid, 0)
    return said


def _unread(connection: socket.socket) -> int:
    # SIOCOUTQ: what this end sent that the peer has not read yet.
    buffer = fcntl.ioctl(connection.fileno(), termios.TIOCOUTQ, b"\0\0\0\0")
    return int.from_bytes(buffer, sys.byteorder)
