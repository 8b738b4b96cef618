"""Starting, stopping and asking the warm server: ``snapline server``, ``integrate``, ``watch``."""

from __future__ import annotations

import contextlib
import errno
import json
import os
import select
import socket
import subprocess
import sys
import time
import warnings
from typing import Any

from snapline.cli.warm import protocol
from snapline.errors import SnaplineError

__all__ = [
    "ServerError",
    "autostart",
    "autostart_for",
    "start",
    "status",
    "stop",
    "stop_started_by",
]

# A bound on a server that never says whether it started, never a measurement.
_START_GUARD = 120.0
_STOP_GUARD = 60.0
_ASK_GUARD = 30.0  # a server stopped (SIGSTOP) never answers: `server status` must return
# Started detached with `-c`: sys.path[0] is then "" (the directory, "/"), as the
# identity expects of any process (it leaves sys.path[0] out).
_DAEMON = "from snapline.cli.warm.daemon import main; main()"
_LOG_LIMIT = 1 << 20


class ServerError(SnaplineError):
    """The warm server cannot be started where it would have to live.

    Attributes:
        directory: The runtime directory.
    """

    def __init__(self, message: str, directory: str) -> None:
        super().__init__(message)
        self.directory = directory


def status() -> dict[str, Any] | None:
    """What the running server says of itself, or ``None`` when none answers."""
    reply = _ask("status")
    if reply is None or not reply.startswith(b"status "):
        return None
    data: dict[str, Any] = json.loads(reply[len(b"status ") :])
    return data


def start(idle_timeout: float) -> tuple[dict[str, Any], bool]:
    """Start a server for this interpreter and installation, unless one runs.

    Args:
        idle_timeout: Seconds without a command before it exits.

    Returns:
        Its status, and whether this call started it.

    Raises:
        ServerError: The runtime directory is not private, or the server did not start.
    """
    where = protocol.paths()
    _make_private(where.directory)
    if not where.socket_fits():
        raise ServerError(
            f"the socket path {where.socket} is longer than a Unix socket address "
            f"allows; set {protocol.RUNTIME_ENV} to a shorter directory",
            where.directory,
        )
    running = status()
    if running is not None:
        return running, False
    _trim(where.log)
    process, said = _spawn(where.log, idle_timeout)
    if not said.startswith(b"ready "):
        # One that said why exits by itself once it has logged it; one silent is stuck.
        _end(process, now=not said.startswith(b"error "))
        if said.startswith(b"error already running"):
            running = status()
            if running is not None:
                return running, False
        reason = said.decode(errors="replace").removeprefix("error ").strip()
        raise ServerError(
            f"the server did not start: {reason or 'no answer'} (log: {where.log})",
            where.directory,
        )
    running = status()
    if running is None:
        # It listens where this client does not look: nobody would use it for an hour.
        _end(process, now=True)
        raise ServerError(
            f"the server started but does not answer; it was stopped (log: {where.log})",
            where.directory,
        )
    # It outlives this process on purpose: not a leak for subprocess to warn of (-X dev).
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ResourceWarning)
        del process
    return running, True


def stop() -> int | None:
    """Stop the running server; its pid, or ``None`` when none answered.

    Workers still running finish their commands; the socket is gone when this returns.
    """
    reply = _ask("stop")
    if reply is None or not reply.startswith(b"stopping "):
        return None
    pid = int(reply.split()[1])
    deadline = time.monotonic() + _STOP_GUARD
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.01)
    return pid


def autostart() -> str | None:
    """Start a server for ``watch``, where that is wanted (see :func:`autostart_for`).

    Returns:
        A warning to show when a server should have started and did not, else ``None``.
    """
    return autostart_for(None)[1]


def autostart_for(owner: str | None) -> tuple[int | None, str | None]:
    """Start a server for ``integrate claude-code`` or ``watch``, where that is wanted.

    Never in CI (``CI`` set to anything but empty, ``0`` or ``false``) nor with
    ``SNAPLINE_SERVER=0``: a server outliving a CI job, or one nobody asked for, is a
    process left behind.

    Args:
        owner: Who starts it (a project's root), kept beside the socket when this call
            starts it, so that :func:`stop_started_by` with the same owner stops it;
            ``None``: nobody.

    Returns:
        The pid of the server this call started (``None`` when one ran already, or
        none was wanted or started), and a warning when one should have started and
        did not.
    """
    if os.environ.get(protocol.DISABLE_ENV, "") in ("0", "off"):
        return None, None
    if os.environ.get("CI", "").lower() not in ("", "0", "false"):
        return None, None
    from snapline.cli.warm.daemon import DEFAULT_IDLE_TIMEOUT

    try:
        running, started = start(DEFAULT_IDLE_TIMEOUT)
    except (ServerError, OSError) as error:
        return None, f"the warm server did not start ({error}); commands run without it"
    if not started:
        return None, None
    if owner is not None:
        mark = {"by": owner, "pid": running["pid"], "started": running["started"]}
        path = protocol.paths().started_by
        with contextlib.suppress(OSError):
            with open(path + ".tmp", "w", encoding="utf-8") as file:
                json.dump(mark, file)
            os.replace(path + ".tmp", path)
    return int(running["pid"]), None


def stop_started_by(owner: str) -> int | None:
    """Stop the server :func:`autostart_for` started for ``owner``, if it still runs.

    A server started otherwise (by hand, by another project, after that one exited) is
    left running.

    Returns:
        The pid of the server stopped, or ``None``.
    """
    path = protocol.paths().started_by
    try:
        with open(path, encoding="utf-8") as file:
            mark = json.load(file)
    except (OSError, ValueError):
        return None
    if not isinstance(mark, dict) or mark.get("by") != owner:
        return None
    running = status()
    with contextlib.suppress(OSError):
        os.unlink(path)
    if running is None or [running.get("pid"), running.get("started")] != [
        mark.get("pid"),
        mark.get("started"),
    ]:
        return None  # not the one it started: that one has gone
    return stop()


def _make_private(directory: str) -> None:
    elsewhere = f"set {protocol.RUNTIME_ENV} to a directory of this user's alone"
    try:
        os.mkdir(directory, 0o700)
    except FileExistsError:
        pass
    except OSError as error:
        advice = elsewhere
        if error.errno == errno.ENOENT:
            parent = os.path.dirname(os.path.normpath(directory))
            advice = f"make its parent ({parent}) or {elsewhere}"
        raise ServerError(
            f"the runtime directory {directory} cannot be made: {error.strerror}; {advice}",
            directory,
        ) from None
    problem = protocol.private_problem(directory)
    if problem is None:
        return
    # No mode makes a link, a file or another user's directory this user's alone.
    advice = elsewhere
    if protocol.chmod_cures(directory):
        advice = (
            f"make it this user's alone (chmod 700) or set {protocol.RUNTIME_ENV} "
            "to a directory that is"
        )
    raise ServerError(
        f"the runtime directory {directory} is not private: {problem}; {advice}", directory
    )


def _spawn(log_path: str, idle_timeout: float) -> tuple[subprocess.Popen[bytes], bytes]:
    # The server, detached, with this interpreter's flags (they name the socket), and
    # the first line it says on its ready descriptor.
    read_end, write_end = os.pipe()
    log = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC, 0o600)
    environment = dict(os.environ)
    environment.pop("PYTHONWARNINGS", None)  # each of its entries is given as a -W
    if "PYTHONPATH" in environment:
        # The server runs in "/": a relative entry, which this process took from its own
        # directory, would be another sys.path there, another identity, another socket.
        entries = environment["PYTHONPATH"].split(os.pathsep)
        environment["PYTHONPATH"] = os.pathsep.join(os.path.abspath(e) for e in entries)
    try:
        process = subprocess.Popen(
            [
                sys.executable,
                *protocol.interpreter_flags(),
                "-c",
                _DAEMON,
                repr(float(idle_timeout)),
                str(write_end),
            ],
            cwd="/",
            env=environment,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            pass_fds=(write_end,),
            start_new_session=True,
        )
    except BaseException:
        os.close(read_end)
        raise
    finally:
        os.close(write_end)
        os.close(log)
    with os.fdopen(read_end, "rb") as ready:
        return process, _read_line(ready)


def _end(process: subprocess.Popen[bytes], *, now: bool) -> None:
    # A server this call started and cannot use is not left behind.
    if now:
        process.terminate()
    try:
        process.wait(_STOP_GUARD)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def _ask(kind: str) -> bytes | None:
    where = protocol.paths()
    if protocol.private_problem(where.directory) is not None:
        return None
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
        connection.settimeout(_ASK_GUARD)
        try:
            connection.connect(where.socket)
            cred = connection.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12)
            if int.from_bytes(cred[4:8], sys.byteorder) != os.geteuid():
                return None
            connection.sendall(protocol.encode_request(kind, protocol.identity(), []))
            reply = b""
            while not reply.endswith(b"\n"):
                chunk = connection.recv(65536)
                if not chunk:
                    return None
                reply += chunk
        except OSError:
            return None
    return reply.rstrip(b"\n")


def _read_line(stream: Any) -> bytes:
    fd = stream.fileno()
    said = b""
    deadline = time.monotonic() + _START_GUARD
    while b"\n" not in said and time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 1.0)
        if ready:
            chunk = os.read(fd, 4096)
            if not chunk:
                break
            said += chunk
    return said.split(b"\n", 1)[0]


def _trim(log: str) -> None:
    # The log says why a server stopped or did not start; a long-lived one keeps it short.
    with contextlib.suppress(OSError):
        if os.stat(log).st_size > _LOG_LIMIT:
            os.truncate(log, 0)
