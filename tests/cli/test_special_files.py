"""FIFOs, sockets and devices are skipped with a note, as git skips them (issue 14, item 20).

An untracked FIFO made ``verify`` exit 1 forever (nothing can record it) and a
rollback anywhere was refused "fix its permissions". Now they are notes, never drift;
a rollback refuses only when a write would land on one.
"""

from __future__ import annotations

import json
import os
import socket
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from snapline import Workspace
from tests.cli.conftest import Invoke


def _make_specials(directory: Path, prefix: str = "") -> list[str]:
    """A FIFO, a socket and (where allowed) a character device; their names."""
    made = []
    os.mkfifo(directory / f"{prefix}pipe")
    made.append(f"{prefix}pipe")
    sock = socket.socket(socket.AF_UNIX)
    # AF_UNIX paths are limited to about 100 bytes: bind from inside the directory.
    cwd = os.getcwd()
    try:
        os.chdir(directory)
        sock.bind(f"{prefix}sock")
    finally:
        os.chdir(cwd)
    _SOCKETS.append(sock)
    made.append(f"{prefix}sock")
    try:  # needs root (CAP_MKNOD), and some containers refuse it even then
        os.mknod(directory / f"{prefix}null", 0o600 | stat.S_IFCHR, os.makedev(1, 3))
        made.append(f"{prefix}null")
    except OSError:
        pass
    return made


_SOCKETS: list[socket.socket] = []


@pytest.fixture(autouse=True)
def _close_sockets() -> Iterator[None]:
    yield
    while _SOCKETS:
        _SOCKETS.pop().close()


def test_special_files_in_the_baseline_are_notes(root: Path, cli: Invoke) -> None:
    (root / "a.txt").write_text("a\n")
    (root / "sub").mkdir()
    specials = _make_specials(root) + [f"sub/{n}" for n in _make_specials(root / "sub", "s")]
    result = cli("--root", str(root), "init", "--json")
    assert result.exit_code == 0, result.output
    skipped = {item["path"]: item["reason"] for item in json.loads(result.stdout)["skipped"]}
    assert {path: skipped.get(path) for path in specials} == {
        path: "not a regular file or symlink" for path in specials
    }
    assert cli("--root", str(root), "verify").exit_code == 0


def test_special_files_appearing_later_never_fail_verify(project: Path, cli: Invoke) -> None:
    (project / "deep" / "er").mkdir(parents=True)
    _make_specials(project)
    _make_specials(project / "deep" / "er", "d")
    for _ in range(2):  # and again: nothing about them is remembered as drift
        verify = cli("verify")
        assert verify.exit_code == 0, verify.output
        shape = json.loads(cli("verify", "--json").stdout)
        assert shape["ok"] is True and shape["problems"] == []
        status = json.loads(cli("status", "--json").stdout)
        assert status["in_sync"] is True and status["drift"] == []
        record = cli("record")
        assert record.exit_code == 0 and record.stdout == "nothing changed\n"
        assert "pipe: not a regular file or symlink" in record.stderr


def test_a_tracked_file_replaced_by_a_fifo_is_deleted_and_can_be_settled(
    project: Path, cli: Invoke
) -> None:
    (project / "README.md").unlink()
    os.mkfifo(project / "README.md")
    verify = cli("verify", "--json")
    assert verify.exit_code == 1
    kinds = {(p["kind"], p["path"]) for p in json.loads(verify.stdout)["problems"]}
    assert kinds == {("deleted", "README.md")}
    assert cli("resync", "-m", "README became a pipe").exit_code == 0
    assert cli("verify").exit_code == 0


def test_rollback_ignores_special_files_not_in_its_way(project: Path, cli: Invoke) -> None:
    with Workspace.open(project) as ws:
        ws.write_file("src/app.py", "print('changed')\n")
        ws.write_file("new.txt", "new\n")
    _make_specials(project)
    _make_specials(project / "src", "s")
    result = cli("rollback", "--to", "0")
    assert result.exit_code == 0, result.output
    assert (project / "src" / "app.py").read_text() == "print('hello')\n"
    assert stat.S_ISFIFO(os.lstat(project / "pipe").st_mode)
    assert cli("verify").exit_code == 0


def test_a_fifo_where_a_tracked_file_was_is_an_outside_change_not_a_permission_problem(
    project: Path, cli: Invoke
) -> None:
    with Workspace.open(project) as ws:
        ws.write_file("README.md", "# changed\n")
    (project / "README.md").unlink()
    os.mkfifo(project / "README.md")
    refused = cli("rollback", "--to", "0")
    assert refused.exit_code == 1
    assert "README.md is deleted on disk" in refused.stderr
    assert "permissions" not in refused.stderr
    # --force records the deletion first; then the FIFO stands where the write goes.
    forced = cli("rollback", "--to", "0", "--force")
    assert forced.exit_code == 1
    assert "FIFO, socket or device" in forced.stderr


@pytest.mark.parametrize("where", ["new.txt", "gone/inner.txt"])
def test_rollback_refuses_to_write_over_a_special_file(
    project: Path, cli: Invoke, where: str
) -> None:
    with Workspace.open(project) as ws:
        ws.write_file(where, "tracked once\n")
        ws.delete_file(where)
    target = project / where
    target.parent.mkdir(exist_ok=True)
    os.mkfifo(target)
    for args in (["rollback", "--to", "1"], ["rollback", "--to", "1", "--force"]):
        result = cli(*args)
        assert result.exit_code == 1, result.output
        assert "FIFO, socket or device" in result.stderr
        assert "permissions" not in result.stderr
        assert stat.S_ISFIFO(os.lstat(target).st_mode)
    dry = cli("rollback", "--to", "1", "--dry-run")
    assert dry.exit_code == 1
    # The conflict says what to do (move the special file away); nothing to resync.
    assert "move it away and try again" in dry.output and "resync" not in dry.output
    target.unlink()
    assert cli("rollback", "--to", "1").exit_code == 0
    assert target.read_text() == "tracked once\n"
