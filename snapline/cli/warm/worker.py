"""A worker of the warm server: become the client's process, run the ordinary command line.

Forked by the server (``daemon.py``) for one command. It takes the client's standard
input, output and error (the descriptors it sent) as its own 0, 1 and 2, its directory,
umask, environment and ``sys.argv``, opens ``sys.stdin``, ``sys.stdout`` and
``sys.stderr`` as the client's Python opened them, and puts back the signal handlers a
fresh interpreter has. Then it tells the client it started (with its process group,
which the client's signals are passed to), waits for the client's ``go`` (a client that
gave up waiting gets no late run) and runs :func:`snapline.cli.dispatch.dispatch`,
the same function a process without a server runs: one code path. It ends as a Python
process would: atexit handlers, streams flushed (exit 120 when that fails), the code of
``SystemExit``, a traceback and exit 1 for an uncaught error, death by SIGINT for an
uncaught ``KeyboardInterrupt``.
"""

from __future__ import annotations

import atexit
import contextlib
import io
import locale
import os
import signal
import socket
import sys
import time
import traceback
from typing import TextIO

__all__ = ["work"]


def work(connection: socket.socket, fds: list[int], fields: list[bytes]) -> None:
    """Run the request's command line in this (forked) process, then exit.

    Args:
        connection: The client's connection (replies go there).
        fds: The client's standard input, output and error.
        fields: The request's fields after its kind and key.
    """
    code = 1
    try:
        _defaults()
        _adopt(fds, fields)
    except Exception as error:  # nothing ran: the client runs the command itself
        with contextlib.suppress(OSError):
            connection.sendall(b"refused setup %s\n" % type(error).__name__.encode())
        os._exit(1)
    _started(connection)
    signum = 0
    try:
        from snapline.cli.dispatch import dispatch

        dispatch()
        code = 0
    except SystemExit as done:
        code = _exit_code(done)
    except KeyboardInterrupt:
        traceback.print_exc()
        signum = signal.SIGINT
    except BaseException:
        traceback.print_exc()
        code = 1
    code = _finish(code)
    with contextlib.suppress(OSError):
        if signum:
            connection.sendall(b"signal %d\n" % signum)
        else:
            connection.sendall(b"exit %d\n" % code)
    if signum:
        # As CPython does after an uncaught KeyboardInterrupt: die by the signal.
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)
    os._exit(code)


def _started(connection: socket.socket) -> None:
    # Say so, then wait for the client's "go": a client that gave up waiting for the
    # server (stopped, slow) or was ended by a signal has run the command itself, or
    # not at all, and sends none. Then this ends before running anything.
    said = b""
    try:
        connection.sendall(b"started %d\n" % os.getpid())
        while not said.endswith(b"\n") and len(said) < 16:
            chunk = connection.recv(16 - len(said))
            if not chunk:
                break
            said += chunk
    except OSError:
        pass
    except KeyboardInterrupt:
        # The client's Ctrl-C passed on before the command started: end by it.
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)
    if said != b"go\n":
        os._exit(1)


def _defaults() -> None:
    # The handlers of a fresh interpreter (the server's own are for the server), and a
    # process group of its own: the client's Ctrl-C reaches this worker and any command
    # it runs, as the terminal's would reach a local process and its children.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    for signum in (signal.SIGTERM, signal.SIGHUP, signal.SIGCHLD, signal.SIGQUIT):
        signal.signal(signum, signal.SIG_DFL)
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)
    os.setpgid(0, 0)


def _adopt(fds: list[int], fields: list[bytes]) -> None:
    if len(fds) != 3:
        raise ValueError("three descriptors expected")
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    cwd, umask, *rest = fields
    streams, ignoring, rest = rest[:12], rest[12], rest[13:]
    argc = int(rest[0])
    argv, env = rest[1 : 1 + argc], rest[1 + argc :]
    for signum in filter(None, ignoring.split(b",")):
        # Ignored by the client: ignored here and by what this runs, as it would be.
        signal.signal(int(signum), signal.SIG_IGN)
    os.chdir(cwd)
    os.umask(int(umask))
    os.environb.clear()
    for entry in env:
        name, _, value = entry.partition(b"=")
        os.environb[name] = value
    sys.argv = [os.fsdecode(arg) for arg in argv]
    # What reads the environment once per process reads the client's.
    time.tzset()
    locale.setlocale(locale.LC_CTYPE, "")
    if "tempfile" in sys.modules:
        # gettempdir() keeps the TMPDIR it first read; None makes it read again.
        setattr(sys.modules["tempfile"], "tempdir", None)  # noqa: B010
    sys.stdin, sys.stdout, sys.stderr = (
        _stream(fd, streams[4 * fd : 4 * fd + 4]) for fd in (0, 1, 2)
    )
    for stream in ("stdin", "stdout", "stderr"):
        # What the streams were at start-up: shutil.get_terminal_size reads __stdout__.
        setattr(sys, f"__{stream}__", getattr(sys, stream))


def _stream(fd: int, spec: list[bytes]) -> io.TextIOWrapper:
    encoding, errors, line_buffering, write_through = (value.decode() for value in spec)
    binary: io.BufferedIOBase
    if fd == 0:
        binary = io.BufferedReader(io.FileIO(fd, "r", closefd=False))
    else:
        binary = io.BufferedWriter(io.FileIO(fd, "w", closefd=False))
    return io.TextIOWrapper(
        binary,
        encoding=encoding,
        errors=errors,
        newline="\n",
        line_buffering=line_buffering == "1",
        write_through=write_through == "1",
    )


def _exit_code(done: SystemExit) -> int:
    # As CPython's handling of SystemExit: None is 0, an int is itself, anything else
    # is printed on stderr and is 1.
    if done.code is None:
        return 0
    if isinstance(done.code, int):
        return done.code & 0xFF
    with contextlib.suppress(OSError):
        sys.stderr.write(f"{done.code}\n")
    return 1


def _finish(code: int) -> int:
    # What CPython does on its way out: atexit handlers, non-daemon threads joined,
    # then the standard streams flushed; a flush that fails makes the status 120.
    threading = sys.modules.get("threading")
    shutdown = getattr(threading, "_shutdown", None)
    if shutdown is not None:
        shutdown()
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            code = 120
            _silence(stream)
    return code


def _silence(stream: TextIO) -> None:
    # A reader that went away: what was not written is dropped, as at CPython's exit.
    with contextlib.suppress(OSError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, stream.fileno())
        os.close(devnull)
