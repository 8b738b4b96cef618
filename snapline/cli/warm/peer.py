"""The other end of a connection: what it sent so far, and whether it may do what we may.

A worker runs with the server's rights, not the client's: its credentials, capability
sets, ``no_new_privs``, seccomp filters, root directory and namespaces are the server's.
A client in a sandbox (capabilities dropped, ``unshare``, ``chroot``) must not get the
server to do what it could not do itself, so the server forks a worker only for a
client whose rights, read by the server itself from the client's ``/proc`` entry
(``protocol.rights``), equal its own. The client sends nothing that is trusted here.

A pid names a process only while it lives: a client that connects and exits could
leave its pid to another process by the time ``/proc`` is read. The server holds a
pidfd of the process that connected (``SO_PEERPIDFD``, Linux 6.5; before that a pidfd
opened at ``accept``, which narrows the window to the time between ``connect`` and
``accept``), and trusts what it read only if that process was still alive after the
reading: a pid is not reused while its process exists.
"""

from __future__ import annotations

import contextlib
import os
import select
import socket
import sys
from dataclasses import dataclass, field

from snapline.cli.warm import protocol

__all__ = ["Peer", "Pending", "close_all", "reply"]

# <asm-generic/socket.h>; Python 3.11's socket module does not name it.
_SO_PEERPIDFD = getattr(socket, "SO_PEERPIDFD", 77)


class Peer:
    """Who connected: the pid and uid of ``connect()`` (``SO_PEERCRED``), and a pidfd.

    Args:
        connection: An accepted Unix stream connection.
    """

    def __init__(self, connection: socket.socket) -> None:
        cred = connection.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12)
        self.pid = int.from_bytes(cred[0:4], sys.byteorder)
        self.uid = int.from_bytes(cred[4:8], sys.byteorder)
        self.pidfd = -1
        try:
            self.pidfd = connection.getsockopt(socket.SOL_SOCKET, _SO_PEERPIDFD)
        except OSError:
            with contextlib.suppress(OSError, ValueError):
                if self.pid > 0:
                    self.pidfd = os.pidfd_open(self.pid)
        if self.pidfd >= 0:
            os.set_inheritable(self.pidfd, False)

    def same_rights(self) -> bool:
        """Whether the process that connected may do all the server may (and is alive)."""
        if self.pid <= 0 or self.pidfd < 0:
            return False
        theirs = protocol.rights(str(self.pid))
        ours = protocol.rights("self")
        # A pidfd is readable once its process has exited: then the pid read above may
        # have named another process.
        exited, _, _ = select.select([self.pidfd], [], [], 0)
        return not exited and theirs is not None and theirs == ours

    def close(self) -> None:
        """Let go of the pidfd."""
        if self.pidfd >= 0:
            with contextlib.suppress(OSError):
                os.close(self.pidfd)
            self.pidfd = -1


@dataclass
class Pending:
    """A connection whose request is still arriving, or whose descriptors are."""

    connection: socket.socket
    peer: Peer
    data: bytes = b""
    fds: list[int] = field(default_factory=list)
    fields: list[bytes] | None = None  # checked, "send" said: the descriptors are next


def reply(connection: socket.socket, line: bytes) -> None:
    """Send one reply line; a client gone meanwhile is no error."""
    with contextlib.suppress(OSError):
        connection.sendall(line + b"\n")


def close_all(pending: Pending) -> None:
    """Close a connection, with the descriptors it sent and its peer's pidfd."""
    pending.peer.close()
    for fd in pending.fds:
        with contextlib.suppress(OSError):
            os.close(fd)
    pending.connection.close()
