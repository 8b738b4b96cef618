"""What the monitor's tests share: a check served warm, the same check walked whole."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from snapline.state_dir import state_dir
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
    """The workspace's monitor token (``monitor.json`` in its local state)."""
    data: dict[str, Any] = json.loads((state_dir(root) / "monitor.json").read_text())
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
    """A warm request whose descriptors come late, as a slow client's would.

    The request is sent whole, and the server, having checked it, asks for the client's
    descriptors (``send``) and waits; :meth:`finish` sends them, on which the server
    forks the worker at once; :meth:`outcome` lets the worker run (``go``) and reads its
    exit code and standard output.
    """

    def __init__(self, server: Warm, root: Path, *args: str) -> None:
        from snapline.cli.warm import protocol

        self._out_r, self._out_w = os.pipe()
        self._null = os.open(os.devnull, os.O_RDWR)
        env = {**os.environ, "SNAPLINE_SERVER": "1"}
        argv = [b"snapline", *(os.fsencode(arg) for arg in args)]
        streams = [b"utf-8", b"strict", b"0", b"0"] * 3
        fields = [os.fsencode(root), b"18", *streams, b"", b"%d" % len(argv), *argv]
        fields += [os.fsencode(f"{name}={value}") for name, value in env.items()]
        self._replies = b""
        self._connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._connection.settimeout(GUARD)  # a hang fails the test, never the suite
        self._connection.connect(str(server.socket()))
        self._connection.sendall(protocol.encode_request("run", client_identity(), fields))
        asked = self._reply()
        assert asked == b"send", asked

    def finish(self) -> None:
        """Send the descriptors: the server forks the worker as soon as it reads them."""
        mine = (self._null, self._out_w, self._null)
        fds = b"".join(fd.to_bytes(4, sys.byteorder, signed=True) for fd in mine)
        self._connection.sendmsg([b"\0"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, fds)])
        os.close(self._null)
        os.close(self._out_w)

    def outcome(self) -> tuple[int, str]:
        """The exit code the server reports, and what the command wrote to stdout."""
        started = self._reply()
        assert started.startswith(b"started "), started
        self._connection.sendall(b"go\n")
        ended = self._reply()
        self._connection.close()
        assert ended.startswith(b"exit "), ended
        with os.fdopen(self._out_r, "rb") as out:
            return int(ended.split()[1]), out.read().decode()

    def _reply(self) -> bytes:
        while b"\n" not in self._replies:
            chunk = self._connection.recv(4096)
            assert chunk, self._replies
            self._replies += chunk
        line, self._replies = self._replies.split(b"\n", 1)
        return line


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
