"""What the client and the warm server agree on: where the socket is, whose it is, the bytes.

Imported by every ``snapline`` process on its way in (``cli/warm/client.py``), so it
imports only ``os``, ``sys`` and ``zlib``: no ``socket`` (its enums cost more than the
rest of the client), no ``hashlib``, no ``json``.

The socket lives in a private directory: ``$SNAPLINE_RUNTIME_DIR`` when set (the tests
give each test its own), else ``$XDG_RUNTIME_DIR/snapline``, else
``$TMPDIR/snapline-<uid>`` (``/tmp`` when ``TMPDIR`` is unset). The directory must be
a real directory owned by this user and closed to everyone else (no group or other
bits); a client uses no socket in any other, and the server refuses to start in one.

One server serves one interpreter and one installation: its :func:`identity` (the
interpreter, its flags and path, snapline's version and where it is installed) names
the socket, so a client of another version or another environment never finds it,
and the server checks it again in every request.
"""

from __future__ import annotations

import os
import stat
import sys
import zlib

__all__ = [
    "DISABLE_ENV",
    "MAGIC",
    "RUNTIME_ENV",
    "WAIT_ENV",
    "Paths",
    "chmod_cures",
    "decode_request",
    "encode_request",
    "identity",
    "interpreter_flags",
    "paths",
    "private_problem",
    "rights",
    "runtime_dir",
    "wait",
]

RUNTIME_ENV = "SNAPLINE_RUNTIME_DIR"
"""The environment variable naming the server's private directory (used as is)."""

DISABLE_ENV = "SNAPLINE_SERVER"
"""``SNAPLINE_SERVER=0`` (or ``off``): never use a server nor start one automatically."""

WAIT_ENV = "SNAPLINE_SERVER_WAIT"
"""Seconds a client waits for a server to start its command before running it itself."""

MAGIC = b"snapline-warm-2"
"""The first field of every request: the protocol and its version."""

_DEFAULT_WAIT = 2.0

# What decides what a process may do, as /proc shows it: its credentials, its capability
# sets, whether it may gain privileges, its seccomp filters (status); its root directory;
# its namespaces (the same path names another file in another mount namespace).
_STATUS_FIELDS = (
    b"Uid:",
    b"Gid:",
    b"Groups:",
    b"CapInh:",
    b"CapPrm:",
    b"CapEff:",
    b"CapBnd:",
    b"CapAmb:",
    b"NoNewPrivs:",
    b"Seccomp:",
    b"Seccomp_filters:",
)
_NAMESPACES = ("mnt", "user", "pid", "net", "ipc", "uts", "cgroup")

# sockaddr_un.sun_path holds 108 bytes on Linux, the terminating NUL included.
_SUN_PATH = 107


def runtime_dir() -> str:
    """The directory that holds the server's socket, lock and log (see the module doc)."""
    given = os.environ.get(RUNTIME_ENV)
    if given:
        return given
    xdg = os.environ.get("XDG_RUNTIME_DIR")
    if xdg:
        return os.path.join(xdg, "snapline")
    return os.path.join(os.environ.get("TMPDIR") or "/tmp", f"snapline-{os.geteuid()}")


def private_problem(directory: str) -> str | None:
    """Why ``directory`` may not hold the server's socket, or ``None`` when it may.

    Another user who could create or replace the socket could run commands as this
    user, or read what they print: the directory must be this user's alone.
    """
    found = _problem(directory)
    return None if found is None else found[0]


def chmod_cures(directory: str) -> bool:
    """Whether ``chmod 700`` alone would make ``directory`` private.

    True only for a real directory of this user's that others may enter; no mode makes
    a symbolic link, a file or another user's directory this user's alone.
    """
    found = _problem(directory)
    return found is not None and found[1]


def _problem(directory: str) -> tuple[str, bool] | None:
    # Why it is not private, and whether its mode is all that is wrong.
    try:
        info = os.lstat(directory)
    except FileNotFoundError:
        return "it does not exist", False
    except OSError as error:
        return f"it cannot be read ({error.strerror})", False
    if not stat.S_ISDIR(info.st_mode):
        return "it is not a directory (a symbolic link or a file)", False
    if info.st_uid != os.geteuid():
        return f"it belongs to uid {info.st_uid}, not {os.geteuid()}", False
    if info.st_mode & 0o077:
        return f"its mode is {stat.S_IMODE(info.st_mode):04o}, not 0700", True
    return None


def wait() -> float:
    """How long a client waits for a server to start its command (``$SNAPLINE_SERVER_WAIT``).

    A server stopped (SIGSTOP), swapped out or stuck must not hold a command for ever:
    after this many seconds the client runs the command itself (the worker, if one is
    forked later, finds the client gone and runs nothing).
    """
    try:
        seconds = float(os.environ.get(WAIT_ENV, ""))
    except ValueError:
        return _DEFAULT_WAIT
    return seconds if seconds > 0 else _DEFAULT_WAIT


def rights(pid: str) -> bytes | None:
    """What a process may do, as its ``/proc`` entry says: equal values, equal rights.

    Its uids, gids and groups, its five capability sets, ``no_new_privs``, its seccomp
    mode and filter count, its resource limits (``ulimit -f`` and the like: a worker has
    the server's), its root directory, its namespaces (mount, user, pid, net,
    ipc, uts, cgroup) and its security label. The server runs a command only for a
    client whose rights equal its own, and the client uses only a server whose rights
    equal its own: a process in a sandbox (capabilities dropped, another mount
    namespace, a ``chroot``) runs its commands itself.

    Args:
        pid: A process id, or ``"self"``.

    Returns:
        The facts as bytes, or ``None`` when they cannot all be read (no ``/proc``, a
        process gone, or one this process may not inspect).
    """
    base = f"/proc/{pid}/"
    try:
        fd = os.open(base + "status", os.O_RDONLY | os.O_CLOEXEC)
        try:
            status = os.read(fd, 1 << 16)
        finally:
            os.close(fd)
        facts = [line for line in status.split(b"\n") if line.startswith(_STATUS_FIELDS)]
        fd = os.open(base + "limits", os.O_RDONLY | os.O_CLOEXEC)
        try:
            facts.append(os.read(fd, 1 << 16))  # its resource limits (`ulimit`)
        finally:
            os.close(fd)
        facts.append(os.fsencode(os.readlink(base + "root")))
        facts += [os.fsencode(os.readlink(base + "ns/" + name)) for name in _NAMESPACES]
    except OSError:
        return None
    if len(facts) < 9 + 2 + len(_NAMESPACES):  # credentials, capabilities, limits, root
        return None  # a status without them: nothing to compare
    try:
        fd = os.open(base + "attr/current", os.O_RDONLY | os.O_CLOEXEC)
        try:
            facts.append(b"label " + os.read(fd, 4096))
        finally:
            os.close(fd)
    except OSError as error:
        # No security module says "invalid" for both sides alike; a label this
        # process may not read differs from its own.
        facts.append(b"label error %d" % (error.errno or 0))
    return b"\n".join(facts)


def identity() -> str:
    """What a server must share with a client to serve it: interpreter, flags, installation.

    Anything that changes what ``import`` finds or how the interpreter runs is here, so a
    server started by another Python, another virtual environment, another
    ``PYTHONPATH`` or another snapline is never used; and so is what the git library
    reads once as the server loads it (``HOME``, ``XDG_CONFIG_HOME``: where git's global
    configuration is), which a worker's environment, set to the client's, cannot move.
    ``sys.path[0]`` (the script's own directory, or the current one) is left out: it
    differs between ``snapline`` and ``python -m snapline`` and between the client and
    the server, and snapline is never imported from it. Whether the code changed since
    the server started is the server's own check (``guards.code_stamp``).
    """
    from snapline import __file__ as package_init
    from snapline import __version__

    flags = sys.flags
    parts = (
        sys.executable,
        sys.version,
        __version__,
        os.path.dirname(os.path.abspath(package_init)),
        (flags.optimize, flags.utf8_mode, flags.dev_mode, flags.isolated, flags.safe_path),
        (flags.dont_write_bytecode, flags.no_user_site, flags.ignore_environment),
        tuple(sys.warnoptions),
        tuple(sys.path[1:]),
        sys.getfilesystemencoding(),
        os.geteuid(),
        # Read once by libgit2 as it starts (its global configuration: safe.directory).
        (os.environ.get("HOME"), os.environ.get("XDG_CONFIG_HOME")),
    )
    return repr(parts)


# What -b and -bb add to sys.warnoptions, after every -W.
_BYTES_FILTERS = ("default::BytesWarning", "error::BytesWarning")


def interpreter_flags() -> list[str]:
    """The options that give a new interpreter the flags :func:`identity` reads of this one.

    For ``sys.executable FLAGS -c ...``, started without ``PYTHONWARNINGS``: CPython puts
    that variable's entries in ``sys.warnoptions`` before those of ``-W``, so every entry
    is given as a ``-W``, in order. The other flags read from the environment
    (``PYTHONOPTIMIZE``, ``PYTHONUTF8``...) come out the same with the same environment
    and these options, or are ignored by both (``-E``, ``-I``).
    """
    flags = sys.flags
    args = ["-O"] * flags.optimize + ["-b"] * flags.bytes_warning
    for on, option in (
        (flags.dont_write_bytecode, "-B"),
        (flags.no_user_site, "-s"),
        (flags.no_site, "-S"),  # not a flag identity() reads, but what sys.path holds
        (flags.ignore_environment, "-E"),
        (flags.isolated, "-I"),
        (flags.safe_path, "-P"),
    ):
        if on:
            args.append(option)
    args += ["-X", "utf8" if flags.utf8_mode else "utf8=0"]  # =0: PYTHONUTF8=1 may be set
    warnings = list(sys.warnoptions)
    # -X dev puts "default" first, -b its filter last: the new one's flags add them again.
    if flags.dev_mode:
        args += ["-X", "dev"]
        if warnings[:1] == ["default"]:
            del warnings[0]
    if flags.bytes_warning and warnings[-1:] == [_BYTES_FILTERS[flags.bytes_warning > 1]]:
        del warnings[-1]
    for option in warnings:
        args += ["-W", option]
    return args


class Paths:
    """The server's files in the runtime directory, named after its :func:`identity`."""

    def __init__(self, directory: str, key: str) -> None:
        data = key.encode("utf-8", "surrogateescape")
        name = f"server-{zlib.crc32(data):08x}{zlib.adler32(data):08x}"
        self.directory = directory
        self.socket = os.path.join(directory, name + ".sock")
        self.lock = os.path.join(directory, name + ".lock")
        self.log = os.path.join(directory, name + ".log")
        # Who started the server, when a command started it for a project (integrate):
        # that command's undoing stops it too.
        self.started_by = os.path.join(directory, name + ".started-by")

    def socket_fits(self) -> bool:
        """Whether the socket's path fits in a Unix socket address."""
        return len(os.fsencode(self.socket)) <= _SUN_PATH


def paths(key: str | None = None) -> Paths:
    """The files of the server for this interpreter and installation."""
    return Paths(runtime_dir(), identity() if key is None else key)


def encode_request(kind: str, key: str, fields: list[bytes]) -> bytes:
    """One request: a length, then NUL-separated fields (argv and environ hold no NUL)."""
    body = b"\0".join([MAGIC, kind.encode(), key.encode("utf-8", "surrogateescape"), *fields])
    return len(body).to_bytes(4, "big") + body


def decode_request(body: bytes) -> tuple[str, str, list[bytes]]:
    """The kind, the key and the other fields of a request's body (after its length).

    Raises:
        ValueError: The body is not a request of this protocol.
    """
    fields = body.split(b"\0")
    if len(fields) < 3 or fields[0] != MAGIC:
        raise ValueError("not a snapline request")
    return fields[1].decode(), fields[2].decode("utf-8", "surrogateescape"), fields[3:]
