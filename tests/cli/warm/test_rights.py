"""A warm server runs a command only for a client with exactly its own rights.

A worker has the server's credentials, capabilities, root directory and namespaces. A
client in a sandbox (capabilities dropped from its bounding set, its own mount
namespace, a ``chroot``) must get the answer it gets without a server, never the
server's rights: the command runs in its own process. Each test drives the real
console script; that the server ran nothing is read from its own count of the workers
it forked (``requests``). The raw-request tests hold the server's own check to account
without the client's (a client that skips it, as hostile code in a sandbox would).
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import signal
import socket
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from snapline.cli.warm import protocol
from tests.cli.conftest import run_script
from tests.cli.warm.conftest import GUARD, Warm, latest, wait_gone
from tests.cli.warm.monitoring import client_identity, forked

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="capabilities, unshare, chroot")

SCRIPT = str(Path(sys.executable).with_name("snapline"))
RECORDED = "recorded snapshot 1: 1 file\n  M src/app.py\n"

_PR_CAPBSET_DROP = 24
_PR_SET_NO_NEW_PRIVS = 38
_CAP_DAC_OVERRIDE, _CAP_DAC_READ_SEARCH, _CAP_FOWNER = 1, 2, 3
_CLONE_NEWNS = 0x00020000

# As a sandbox starts a process: capabilities dropped from the bounding set, then exec;
# root keeps its uid but can no longer write what its uid does not own.
_WITHOUT_DAC = f"""
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
for cap in ({_CAP_DAC_OVERRIDE}, {_CAP_DAC_READ_SEARCH}, {_CAP_FOWNER}):
    if libc.prctl({_PR_CAPBSET_DROP}, cap, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")
os.execv(sys.argv[1], sys.argv[1:])
"""


def _edit(root: Path, content: str) -> None:
    (root / "src" / "app.py").write_text(content)


def _give_away(root: Path, uid: int) -> None:
    for directory, subdirectories, names in os.walk(root):
        os.chown(directory, uid, uid)
        for name in subdirectories + names:
            os.chown(os.path.join(directory, name), uid, uid, follow_symlinks=False)


def _dropped(*args: str, cwd: Path, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    done = subprocess.run(
        [sys.executable, "-c", _WITHOUT_DAC, SCRIPT, *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=GUARD,
        check=False,
    )
    return done.returncode, done.stdout, done.stderr


def test_a_client_without_the_capabilities_gets_its_own_answer_not_the_servers(
    warm: Warm, project: Path
) -> None:
    # The store belongs to another user: root may write it only through CAP_DAC_OVERRIDE,
    # which the sandboxed client lacks and the server has.
    _edit(project, "one\n")
    _give_away(project, 65534)
    cold = _dropped("record", "-m", "sandboxed", cwd=project, env={"SNAPLINE_SERVER": "0"})
    assert cold[0] != 0, cold  # sanity: the client's own rights do not reach the store
    assert latest(project) == 0
    served = _dropped("record", "-m", "sandboxed", cwd=project)
    assert served == cold
    assert latest(project) == 0
    assert warm.served() == 0

    done = run_script("record", "-m", "by root", cwd=project)
    assert (done.returncode, done.stdout) == (0, RECORDED)
    assert warm.served() == 1  # sanity: the same command, served for a client like the server


def test_a_client_in_its_own_mount_namespace_runs_the_command_itself(
    warm: Warm, project: Path
) -> None:
    _edit(project, "one\n")
    done = subprocess.run(
        ["unshare", "--mount", SCRIPT, "record", "-m", "unshared"],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=GUARD,
        check=False,
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, RECORDED, "")
    assert latest(project) == 1
    assert warm.served() == 0
    _edit(project, "two\n")
    assert run_script("record", cwd=project).returncode == 0
    assert warm.served() == 1  # sanity


def test_a_client_under_chroot_runs_the_command_itself(
    runtime: Path, project: Path, tmp_path: Path
) -> None:
    # A root directory that is the only difference: the server runs in a mount
    # namespace of its own in which `/` is also bound at JAIL, and both clients join
    # that namespace; one of them then chroots into JAIL, where every path is the same.
    jail = tmp_path / "jail"
    jail.mkdir()
    started = subprocess.run(
        [
            "unshare",
            "--mount",
            "sh",
            "-c",
            'mount --rbind / "$1" && exec "$2" server start --idle-timeout 600 --json',
            "sh",
            str(jail),
            SCRIPT,
        ],
        cwd=runtime,
        capture_output=True,
        text=True,
        timeout=GUARD,
        check=False,
    )
    assert started.returncode == 0, started.stderr
    server = Warm(int(json.loads(started.stdout)["pid"]), runtime)
    namespace = f"--mount=/proc/{server.pid}/ns/mnt"
    in_project = f'cd "{project}" && exec "{SCRIPT}" record -m "$0"'
    try:
        _edit(project, "one\n")
        jailed = subprocess.run(
            ["nsenter", namespace, "chroot", str(jail), "sh", "-c", in_project, "jailed"],
            capture_output=True,
            text=True,
            timeout=GUARD,
            check=False,
        )
        assert (jailed.returncode, jailed.stdout, jailed.stderr) == (0, RECORDED, "")
        assert latest(project) == 1
        assert server.served() == 0

        _edit(project, "two\n")
        beside = subprocess.run(
            ["nsenter", namespace, "sh", "-c", in_project, "beside"],
            capture_output=True,
            text=True,
            timeout=GUARD,
            check=False,
        )
        assert beside.returncode == 0, beside.stderr
        assert server.served() == 1  # sanity: the same namespace without the chroot
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(server.pid, signal.SIGKILL)
        wait_gone(server.pid)


def _drop_capability() -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_CAPBSET_DROP, _CAP_DAC_OVERRIDE, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl")


def _unshare_mounts() -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(_CLONE_NEWNS) != 0:
        raise OSError(ctypes.get_errno(), "unshare")


def _chroot_elsewhere() -> None:
    os.chroot("/tmp")


def _other_groups() -> None:
    os.setgroups([65534])


def _other_gid() -> None:
    os.setgid(65534)


def _no_new_privileges() -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl")


def _nothing() -> None:
    pass


def _raw_record(socket_path: Path, cwd: Path, before: Callable[[], None]) -> bytes:
    # A client that skips the client's own check: a forked child connects, changes what
    # it may do, then asks for `snapline record` (SO_PEERCRED names it; nothing it says
    # about itself is trusted).
    key = client_identity()  # a process's identity, not this test runner's (its sys.path differs)

    def child() -> bytes:
        connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        connection.settimeout(GUARD)
        connection.connect(str(socket_path))
        before()
        streams = [b"utf-8", b"strict", b"0", b"0"] * 3
        env = [name + b"=" + value for name, value in os.environb.items()]
        fields = [os.fsencode(cwd), b"18", *streams, b"", b"2", b"snapline", b"record"]
        request = protocol.encode_request("run", key, [*fields, *env])
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            connection.sendall(request)
        return connection.recv(4096)

    return forked(child)


@pytest.mark.parametrize(
    "change",
    [
        _drop_capability,
        _unshare_mounts,
        _chroot_elsewhere,
        _other_groups,
        _other_gid,
        _no_new_privileges,
    ],
    ids=lambda f: f.__name__,
)
def test_the_server_itself_refuses_a_client_whose_rights_differ(
    warm: Warm, project: Path, change: Callable[[], None]
) -> None:
    _edit(project, "theirs\n")
    assert _raw_record(warm.socket(), project, change) == b"refused rights\n"
    assert warm.served() == 0
    assert latest(project) == 0
    # Sanity: the same request from a client like the server is served.
    assert _raw_record(warm.socket(), project, _nothing) == b"send\n"  # checked, served next
