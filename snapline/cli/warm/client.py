"""The client side of the warm server: hand this command to it, or say it cannot.

Every ``snapline`` process starts here (``snapline.cli.main``). When a server for this
interpreter and installation answers in the private runtime directory, the client
sends it the command line, the current directory, the umask, the environment and its
own standard input, output and error (the file descriptors themselves, over the Unix
socket with ``SCM_RIGHTS``), as Mercurial's chg does. The server forks a worker that
takes them as its own and runs the ordinary command line: output, colour, terminal
detection and prompts are those of a local run because the worker writes to and reads
from the same files. The client passes on the signals a terminal sends it (Ctrl-C,
the quit key, a hang-up) to the worker's process group, as the terminal would have reached
the command and what it runs, and SIGTERM to the worker alone; it ends as the worker
ended: its exit code, or the same signal. ``snapline run`` at a terminal runs in its own
process: what it runs may need the terminal as its controlling terminal.

When anything is missing or wrong before the worker says it started (no server, a
socket left by a dead one, a directory that is not private, a server of other code, a
server whose rights differ from this process's own, no answer within
``protocol.wait()`` seconds) :func:`forward` returns ``None`` and the command runs in
this process, as without a server: a worker runs the command only once this client
answers its ``started`` with ``go``, so nothing runs twice, and this client's
descriptors are sent only once the server has checked the request and asked for them
(``send``), so a stopped server never holds this process's output pipes open. A signal
before ``go`` ends this process at once, as it ends a process that has not started its
command. Imports: ``os``, ``sys`` and ``_socket`` only (``socket`` itself costs more than
all the rest; ``signal``, whose enums cost a ``--version`` process a third of its time,
only once a server answers), and the table of commands (``cli/commands.py``), whose
``command_of`` says which command the words name.
"""

from __future__ import annotations

import _socket
import os
import sys

from snapline.cli.commands import command_of
from snapline.cli.warm import protocol

TYPE_CHECKING = False  # not `typing`'s: one more import on every command's way in
if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = ["SIGNALS", "forward", "run"]

SIGNALS = ("SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT")
"""The signals a client passes on to its worker, as a terminal or a parent sends them."""

_STARTED = b"started"
_EXIT = b"exit"
_SIGNAL = b"signal"
_SEND = b"send"
_GO = b"go\n"


def run(args: list[str]) -> None:
    """Run ``snapline ARGS``: in the warm server when one serves it, else in this process.

    Args:
        args: The arguments after ``snapline``.
    """
    code = forward(args)
    if code is not None:
        sys.exit(code)
    # Nothing ran in a server: the ordinary command line runs here (imported only now,
    # so a served command never loads it).
    from snapline.cli.dispatch import dispatch

    dispatch()


def forward(args: list[str]) -> int | None:
    """Run ``snapline ARGS`` in the warm server, when one may serve this process.

    Args:
        args: The arguments after ``snapline``.

    Returns:
        The exit code of the command the server ran, or ``None`` when it ran nothing
        (the caller runs the command in this process). A command that ended by a
        signal ends this process by the same signal.
    """
    if os.environ.get(protocol.DISABLE_ENV, "") in ("0", "off"):
        return None
    command, _ = command_of(args)
    if command == "server":
        return None  # `snapline server ...` manages the server: it never runs inside it
    if command == "run" and any(os.isatty(fd) for fd in (0, 1, 2)):
        # The command `run` starts may need the terminal as its controlling terminal
        # (ssh or git asking a password, a pager, an editor opening /dev/tty), which a
        # worker in the server's session cannot have.
        return None
    streams = _streams()
    if streams is None:
        return None
    try:
        directory = protocol.runtime_dir()
        key = protocol.identity()
        where = protocol.Paths(directory, key)
        if not os.path.exists(where.socket) or protocol.private_problem(directory):
            return None
        connection = _connect(where.socket)
    except (OSError, ValueError):
        return None
    if connection is None:
        return None
    try:
        return _run(connection, key, streams)
    finally:
        connection.close()


def _streams() -> list[bytes] | None:
    # How this process would have read and written its standard streams: the worker
    # opens the same descriptors the same way. A closed one: run here, as without.
    fields: list[bytes] = []
    for stream in (sys.stdin, sys.stdout, sys.stderr):
        if stream is None or not hasattr(stream, "encoding"):
            return None
        fields += [
            stream.encoding.encode(),
            (stream.errors or "strict").encode(),
            b"1" if getattr(stream, "line_buffering", False) else b"0",
            b"1" if getattr(stream, "write_through", False) else b"0",  # python -u
        ]
    return fields


def _connect(path: str) -> _socket.socket | None:
    connection = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    # A server stopped or stuck delays a command by this much at most: everything up
    # to "started" is bounded, then the command runs here.
    connection.settimeout(protocol.wait())
    try:
        connection.connect(path)
        # The directory is ours, so the socket should be too; SO_PEERCRED says who
        # listens (struct ucred: pid, uid, gid as C ints).
        cred = connection.getsockopt(_socket.SOL_SOCKET, _socket.SO_PEERCRED, 12)
        server = int.from_bytes(cred[0:4], sys.byteorder)
        mine = protocol.rights("self")
        if (
            int.from_bytes(cred[4:8], sys.byteorder) != os.geteuid()
            or mine is None
            or server <= 0
            or protocol.rights(str(server)) != mine
        ):
            # A worker would run with the server's rights: only with exactly this
            # process's own (a sandboxed process runs its commands itself). The server
            # checks the same of this process; either refusing is enough.
            connection.close()
            return None
    except OSError:
        connection.close()
        return None
    return connection


def _request(key: str, streams: list[bytes], ignored: list[int]) -> bytes:
    mask = os.umask(0o022)
    os.umask(mask)
    argv = [os.fsencode(arg) for arg in sys.argv]
    env = [name + b"=" + value for name, value in os.environb.items()]
    ignoring = b",".join(b"%d" % signum for signum in ignored)
    fields = [os.fsencode(os.getcwd()), b"%d" % mask, *streams, ignoring, b"%d" % len(argv)]
    fields += [*argv, *env]
    return protocol.encode_request("run", key, fields)


def _run(connection: _socket.socket, key: str, streams: list[bytes]) -> int | None:
    import signal  # only here, where a server answers: its enums cost every process

    worker = 0
    previous: dict[int, object] = {}

    def pass_on(signum: int, _frame: object) -> None:
        if not worker:
            # Nothing runs, nor will: a worker waits for "go", which this process no
            # longer sends. End now, as this signal ends a process.
            _restore(previous)
            signal.signal(signum, signal.SIG_DFL)
            signal.raise_signal(signum)
            return
        # What a terminal sends (Ctrl-C, the quit key, a hang-up) reaches its whole
        # foreground group, the commands a worker runs too; SIGTERM comes from a
        # process that meant this one alone.
        try:
            if signum == signal.SIGTERM:
                os.kill(worker, signum)
            else:
                os.killpg(worker, signum)
        except ProcessLookupError:
            pass

    # A signal this process ignores (started in the background of a shell without job
    # control: SIGINT and SIGQUIT) is ignored by the worker, and what it runs, too.
    signums = [int(getattr(signal, name)) for name in SIGNALS]
    ignored = [s for s in signums if signal.getsignal(s) == signal.SIG_IGN]
    for signum in signums:
        if signum not in ignored:
            previous[signum] = signal.signal(signum, pass_on)
    try:
        try:
            connection.sendall(_request(key, streams, ignored))
            replies = _Replies(connection)
            first = replies.next()
            if first is not None and first[0] == _SEND:
                fds = b"".join(fd.to_bytes(4, sys.byteorder, signed=True) for fd in (0, 1, 2))
                connection.sendmsg([b"\0"], [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS, fds)])
                first = replies.next()
        except OSError:
            first = None
        if first is None or first[0] != _STARTED:
            return None  # the worker ran nothing, and never will: the command runs here
        worker = int(first[1])
        try:
            # The worker runs the command only once it has this: a client that gave up
            # waiting (or was ended by a signal) is never served late, nothing twice.
            connection.sendall(_GO)
        except OSError:
            worker = 0
            return None
        connection.settimeout(None)  # the command itself takes what it takes
        return _outcome(replies, previous)
    finally:
        _restore(previous)


def _outcome(replies: _Replies, previous: Mapping[int, object]) -> int:
    import signal

    try:
        reply = replies.next()
    except OSError:
        reply = None
    if reply is not None and reply[0] == _EXIT:
        return int(reply[1])
    if reply is not None and reply[0] == _SIGNAL:
        # Die as the worker died, so a shell or a parent sees the same status.
        signum = int(reply[1])
        _restore(previous)
        if signum != signal.SIGKILL:  # the one whose handler cannot be set (nor needs to)
            signal.signal(signum, signal.SIG_DFL)
        signal.raise_signal(signum)
        return 128 + signum
    sys.stderr.write(
        "snapline: error: the warm server's worker ended without an exit status; "
        "whatever it recorded is complete or absent (run `snapline log` to see which), "
        "and `snapline server stop` stops the server\n"
    )
    return 1


def _restore(previous: Mapping[int, object]) -> None:
    import signal

    for signum, handler in previous.items():
        # None: a handler not set from Python, which cannot be put back; the default is.
        signal.signal(signum, signal.SIG_DFL if handler is None else handler)  # type: ignore[arg-type]


class _Replies:
    """The server's replies: one ``word value`` line each."""

    def __init__(self, connection: _socket.socket) -> None:
        self._connection = connection
        self._buffer = b""

    def next(self) -> tuple[bytes, bytes] | None:
        """The next reply, or ``None`` when the connection ended first."""
        while b"\n" not in self._buffer:
            chunk = self._connection.recv(4096)
            if not chunk:
                return None
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        word, _, value = line.partition(b" ")
        return word, value
