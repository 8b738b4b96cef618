"""The warm server: the whole application imported once, a worker forked per command.

As Mercurial's ``unixforkingservice``: one process per user and installation listens
on a Unix socket in the private runtime directory (``protocol.py``), with snapline, its
command line and its libraries already imported. For each command it forks a worker
(``worker.py``) that runs the ordinary command line with the client's descriptors,
directory and environment, then reports how the worker ended.

Forking a process that runs threads copies their locks held, never their owners: the
parent here never starts one (no pool; nothing it imports starts one), it waits in one
``select`` loop, and it checks before every fork that it is still alone
(``/proc/self/task``). When it is not, it forks nothing and the client runs the
command itself. Its file-system monitors (``monitors.py``) are inotify queues read in
that same loop, and drained before every fork.

What the parent reads from a connection is read without blocking, so a client that
connects and says nothing delays nobody. The parent answers ``status`` and ``stop``
itself; before forking a worker it checks the client's identity and that its own code
has not changed on disk since it started (``guards.code_stamp``): a server of other code
refuses, stops, and the client runs the command itself.
"""

from __future__ import annotations

import contextlib
import fcntl
import gc
import json
import os
import selectors
import signal
import socket
import sys
import time

from snapline.cli.lean import words
from snapline.cli.warm import protocol
from snapline.cli.warm.guards import code_stamp, thread_count
from snapline.cli.warm.monitors import Monitors
from snapline.cli.warm.peer import Peer, Pending, close_all, reply

__all__ = ["DEFAULT_IDLE_TIMEOUT", "AlreadyRunningError", "Server", "main"]

DEFAULT_IDLE_TIMEOUT = 3600.0
"""Seconds without a command after which the server exits (chg's default too)."""


_MAX_REQUEST = 1 << 24  # bytes: a command line and an environment, with room to spare


class AlreadyRunningError(Exception):
    """Another server for the same interpreter and installation holds the lock."""


class Server:
    """One warm server: the socket, the lock, the loop, the workers.

    Args:
        where: The server's files (``protocol.paths()``).
        key: Its identity (``protocol.identity()``).
        idle_timeout: Seconds without a command (and no worker running) before it exits.
    """

    def __init__(self, where: protocol.Paths, key: str, idle_timeout: float) -> None:
        self.where = where
        self.key = key
        self.idle_timeout = idle_timeout
        self.started = time.time()
        self.requests = 0
        self._stamp: tuple[object, ...] = ()
        self._workers: dict[int, socket.socket] = {}
        self._pending: dict[int, Pending] = {}
        self._stopping = False
        self._selector = selectors.DefaultSelector()
        self._lock_fd = -1
        self._socket_inode = -1
        self._listener: socket.socket | None = None
        self._wakeup_r = self._wakeup_w = -1
        self._monitors = Monitors(self._selector, _log)

    def bind(self) -> None:
        """Take the lock, listen on the socket (a dead server's is replaced), catch SIGTERM.

        Raises:
            AlreadyRunningError: Another server holds the lock.
            OSError: The socket cannot be made.
        """
        self._lock_fd = os.open(self.where.lock, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(self._lock_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(self._lock_fd)
            raise AlreadyRunningError(self.where.socket) from None
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.where.socket)  # left by a server that died: the lock was free
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(self.where.socket)
        os.chmod(self.where.socket, 0o600)
        self._socket_inode = os.stat(self.where.socket).st_ino
        listener.listen(64)
        listener.setblocking(False)
        self._listener = listener
        self._stamp = code_stamp()
        # From here a SIGTERM stops it cleanly (the socket removed), even one sent as
        # soon as it says "ready", before it serves (`server start` stops one it cannot use).
        self._wakeup_r, self._wakeup_w = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
        signal.set_wakeup_fd(self._wakeup_w)
        for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            signal.signal(signum, self._stop_on_signal)
        signal.signal(signal.SIGCHLD, lambda *_: None)  # the wake-up fd is the point

    def serve(self) -> None:
        """Answer requests until stopped, idle for ``idle_timeout`` or stale."""
        assert self._listener is not None
        self._selector.register(self._listener, selectors.EVENT_READ, "accept")
        self._selector.register(self._wakeup_r, selectors.EVENT_READ, "wakeup")
        last = time.monotonic()
        try:
            while not self._stopping:
                busy = self._workers or self._pending
                timeout = None if busy else max(0.0, last + self.idle_timeout - time.monotonic())
                events = self._selector.select(timeout)
                if not events and not busy and time.monotonic() >= last + self.idle_timeout:
                    break
                for key, _ in events:
                    if key.data == "accept":
                        self._accept()
                    elif key.data == "wakeup":
                        with contextlib.suppress(BlockingIOError):
                            os.read(self._wakeup_r, 512)
                        self._reap()
                    elif key.data == "read":
                        self._read(key.fileobj)  # type: ignore[arg-type]
                    else:
                        self._monitors.handle(key)
                # Edits in a watched tree are no use of the server: only commands are.
                last = time.monotonic() if any(k.data != "monitor" for k, _ in events) else last
        finally:
            self.close()

    def close(self) -> None:
        """Stop listening: the socket removed (when still ours), the lock released."""
        if self._listener is not None:
            with contextlib.suppress(OSError):
                # Only our own: a server started since may have replaced it.
                if os.stat(self.where.socket).st_ino == self._socket_inode:
                    os.unlink(self.where.socket)
            self._listener.close()
            self._listener = None
        for pending in self._pending.values():
            close_all(pending)
        self._pending.clear()
        self._monitors.close()
        if self._lock_fd >= 0:
            os.close(self._lock_fd)
            self._lock_fd = -1

    def status(self) -> dict[str, object]:
        """What ``snapline server status`` shows."""
        from snapline import __version__

        return {
            "pid": os.getpid(),
            "version": __version__,
            "socket": self.where.socket,
            "started": self.started,
            "idle_timeout": self.idle_timeout,
            "requests": self.requests,
            "workers": len(self._workers),
            "threads": thread_count(),
            "monitors": len(self._monitors),
        }

    def _stop_on_signal(self, _signum: int, _frame: object) -> None:
        self._stopping = True

    def _accept(self) -> None:
        assert self._listener is not None
        try:
            connection, _ = self._listener.accept()
        except BlockingIOError:
            return
        peer = Peer(connection)
        if peer.uid != os.geteuid():
            # Only this user's processes: the directory is private, and this is the
            # check that holds even if its mode was loosened.
            reply(connection, b"refused uid")
            close_all(Pending(connection, peer))
            return
        connection.setblocking(False)
        self._pending[connection.fileno()] = Pending(connection, peer)
        self._selector.register(connection, selectors.EVENT_READ, "read")

    def _read(self, connection: socket.socket) -> None:
        pending = self._pending[connection.fileno()]
        try:
            data, fds, _, _ = socket.recv_fds(connection, 65536, 3, socket.MSG_CMSG_CLOEXEC)
        except BlockingIOError:
            return
        except OSError:
            data, fds = b"", []
        pending.data += data
        pending.fds += fds
        if pending.fields is not None:
            # The client's descriptors, sent only once asked: a client that gave up
            # before has none in flight here, held for as long as this server is stopped.
            if data and len(pending.fds) < 3 and len(pending.data) < 16:
                return
            self._drop(pending, close=len(pending.fds) != 3)
            if len(pending.fds) == 3:
                connection.setblocking(True)
                self._fork(pending, pending.fields)
            return
        size = int.from_bytes(pending.data[:4], "big") if len(pending.data) >= 4 else -1
        complete = size >= 0 and len(pending.data) >= 4 + size
        if data and not complete and len(pending.data) <= 4 + _MAX_REQUEST:
            return  # more to come
        if not complete or len(pending.data) != 4 + size:
            self._drop(pending)
            return
        self._drop(pending, close=False)
        body, pending.data = pending.data[4:], b""
        for fd in pending.fds:  # descriptors count only after "send"
            os.close(fd)
        pending.fds = []
        pending.fields = self._answer(pending, body)
        if pending.fields is None:
            close_all(pending)
            return
        self._pending[connection.fileno()] = pending
        self._selector.register(connection, selectors.EVENT_READ, "read")
        reply(connection, b"send")

    def _drop(self, pending: Pending, close: bool = True) -> None:
        self._selector.unregister(pending.connection)
        del self._pending[pending.connection.fileno()]
        if close:
            close_all(pending)

    def _answer(self, pending: Pending, body: bytes) -> list[bytes] | None:
        # The request's fields when a worker may run it, else None (answered here).
        connection = pending.connection
        try:
            kind, key, fields = protocol.decode_request(body)
        except (ValueError, UnicodeDecodeError):
            return None
        if kind == "status":
            reply(connection, b"status " + json.dumps(self.status()).encode())
        elif kind == "stop":
            self._stopping = True
            self.close()  # the socket gone before the answer: a new start may follow
            reply(connection, b"stopping %d" % os.getpid())
        elif kind != "run":
            reply(connection, b"refused kind")
        elif key != self.key:
            reply(connection, b"refused identity")
        elif not pending.peer.same_rights():
            # A worker has the server's rights: never more than the client's own. The
            # client runs the command itself, with exactly its own (peer.py).
            reply(connection, b"refused rights")
        elif code_stamp() != self._stamp:
            # Code changed under the server: never run it with the old code. Stop, so
            # the next start (or `snapline server start`) loads the new code.
            reply(connection, b"refused stale")
            self._stopping = True
        elif thread_count() != 1:
            _log("a thread runs in the server: forking nothing, the client runs the command")
            reply(connection, b"refused threads")
        else:
            return fields
        return None

    def _fork(self, pending: Pending, fields: list[bytes]) -> None:
        pending.peer.close()
        channel = self._monitors.before_fork()  # every change made so far, in the journals
        pid = os.fork()
        if pid == 0:
            from snapline.cli.warm.worker import work

            self._forget_in_child(pending)
            self._monitors.in_child(channel)
            work(pending.connection, pending.fds, fields)  # never returns
        channel.close()
        self.requests += 1
        for fd in pending.fds:
            os.close(fd)
        self._workers[pid] = pending.connection

    def _forget_in_child(self, own: Pending) -> None:
        # The worker keeps its connection and descriptors, nothing else of the server.
        signal.set_wakeup_fd(-1)
        self._selector.close()
        for fd in (self._wakeup_r, self._wakeup_w, self._lock_fd):
            with contextlib.suppress(OSError):
                os.close(fd)
        if self._listener is not None:
            self._listener.close()
        for connection in self._workers.values():
            connection.close()
        for pending in self._pending.values():
            if pending is not own:
                close_all(pending)

    def _reap(self) -> None:
        while self._workers:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            connection = self._workers.pop(pid, None)
            if connection is None:
                continue
            # The worker said its exit code itself; how it ended is said again here,
            # and only here when a signal ended it (the client ends by the same one).
            if os.WIFSIGNALED(status):
                reply(connection, b"signal %d" % os.WTERMSIG(status))
            else:
                reply(connection, b"exit %d" % os.waitstatus_to_exitcode(status))
            connection.close()


def _log(message: str) -> None:
    sys.stderr.write(f"{time.strftime('%Y-%m-%dT%H:%M:%S')} snapline server: {message}\n")
    sys.stderr.flush()


def main() -> None:
    """Run a server in this process: ``python -c '...main()' IDLE_TIMEOUT [READY_FD]``.

    Started by ``snapline server start`` (``control.start``), detached, with its output
    in the log file. ``READY_FD`` receives ``ready PID`` once the socket listens, or the
    reason it could not.
    """
    args = words()
    idle_timeout = float(args[0]) if args else DEFAULT_IDLE_TIMEOUT
    ready = int(args[1]) if len(args) > 1 else -1
    os.chdir("/")  # hold no directory of the user's open (an unmount, a deletion)
    key = protocol.identity()
    where = protocol.paths(key)
    problem = protocol.private_problem(where.directory)
    server = Server(where, key, idle_timeout)
    try:
        if problem is not None:
            raise OSError(f"the runtime directory {where.directory} is not private: {problem}")
        from snapline.cli.warm.preload import preload

        preload()
        # What the workers inherit stays out of their collections: a collection would
        # write to every object's header, and copy each page it touches.
        gc.collect()
        gc.freeze()
        server.bind()
    except (OSError, AlreadyRunningError, ImportError) as error:
        text = (
            f"already running ({error})"
            if isinstance(error, AlreadyRunningError)
            else f"{type(error).__name__}: {error}"
        )
        _tell(ready, f"error {text}")
        _log(f"not started: {text}")
        raise SystemExit(1) from None
    _log(f"listening on {where.socket} (pid {os.getpid()})")
    _tell(ready, f"ready {os.getpid()}")
    server.serve()
    _log("stopped")


def _tell(fd: int, line: str) -> None:
    if fd < 0:
        return
    with contextlib.suppress(OSError):
        os.write(fd, line.encode() + b"\n")
        os.close(fd)


if __name__ == "__main__":  # pragma: no cover - started by control.start
    main()
