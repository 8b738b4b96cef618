"""Directory chains deeper than PATH_MAX are skipped with a note (issue 14, item 7).

Such a chain made ``init`` fail as a whole ("File name too long"), and later
``status``, ``record``, ``verify`` and ``rollback``. What the OS cannot reach by name is
now left out with a note (``SkipReason.UNREACHABLE``), as git warns and goes on;
everything within reach is recorded and restored as usual.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path

import pytest

from snapline import Workspace
from snapline.scanning.reasons import SkipReason
from tests.cli.conftest import Invoke

PATH_MAX = os.pathconf("/", "PC_PATH_MAX")
NAME = "d" * 200


def _open_chain(root: Path, depth: int) -> int:
    """A descriptor of ``root/NAME/.../NAME`` (``depth`` levels), made where missing."""
    fd = os.open(root, os.O_RDONLY)
    for _ in range(depth):
        with contextlib.suppress(FileExistsError):
            os.mkdir(NAME, dir_fd=fd)
        inner = os.open(NAME, os.O_RDONLY, dir_fd=fd)
        os.close(fd)
        fd = inner
    return fd


def _write_at(root: Path, depth: int, name: str, data: bytes) -> str:
    fd = _open_chain(root, depth)
    try:
        handle = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644, dir_fd=fd)
        os.write(handle, data)
        os.close(handle)
    finally:
        os.close(fd)
    return "/".join([NAME] * depth + [name])


def _read_at(root: Path, depth: int, name: str) -> bytes:
    fd = _open_chain(root, depth)
    try:
        handle = os.open(name, os.O_RDONLY, dir_fd=fd)
        try:
            return os.read(handle, 1 << 16)
        finally:
            os.close(handle)
    finally:
        os.close(fd)


@pytest.fixture
def deep(root: Path) -> dict[str, object]:
    """A workspace with files within reach, near the limit, and beyond PATH_MAX."""
    reach = (PATH_MAX - len(str(root)) - 100) // (len(NAME) + 1)  # the deepest reachable
    beyond = reach + 3
    assert len(str(root)) + beyond * (len(NAME) + 1) > PATH_MAX
    (root / "top.txt").write_text("top\n")
    near = _write_at(root, reach, "near.txt", b"near\n")
    _write_at(root, beyond, "far.txt", b"far\n")
    _write_at(root, beyond + 2, "farther.txt", b"farther\n")
    return {"root": root, "reach": reach, "near": near}


def test_init_status_verify_record_rollback_go_on(
    deep: dict[str, object], cli: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = deep["root"]
    assert isinstance(root, Path)
    reach = deep["reach"]
    assert isinstance(reach, int)
    monkeypatch.chdir(root)

    init = cli("init", "--json")
    assert init.exit_code == 0, init.output
    summary = json.loads(init.stdout)
    assert summary["files"] == 2  # top.txt and near.txt: everything within reach
    notes = [s for s in summary["skipped"] if s["reason"] == SkipReason.UNREACHABLE.value]
    # The note names the shallowest folder whose absolute name (with its NUL) exceeds PATH_MAX.
    depth = next(k for k in range(1, 64) if len(str(root / "/".join([NAME] * k))) + 1 > PATH_MAX)
    assert [n["path"] for n in notes] == ["/".join([NAME] * depth)]

    assert cli("status").exit_code == 0
    assert json.loads(cli("status", "--json").stdout)["in_sync"] is True
    assert cli("verify").exit_code == 0

    # A change within reach is recorded; the unreachable part is a note each time.
    _write_at(root, reach, "near.txt", b"near, changed\n")
    _write_at(root, reach + 5, "new-far.txt", b"out of reach\n")
    drift = json.loads(cli("status", "--json").stdout)["drift"]
    assert [(p["kind"], p["path"]) for p in drift] == [("modified", deep["near"])]
    assert cli("verify").exit_code == 1  # the real drift, and only it
    record = cli("record")
    assert record.exit_code == 0, record.output
    assert "recorded snapshot 1: 1 file" in record.stdout
    assert SkipReason.UNREACHABLE.value in record.stderr
    assert cli("verify").exit_code == 0

    rollback = cli("rollback", "--to", "0")
    assert rollback.exit_code == 0, rollback.output
    assert _read_at(root, reach, "near.txt") == b"near\n"
    assert _read_at(root, reach + 5, "new-far.txt") == b"out of reach\n"
    assert cli("verify").exit_code == 0


def test_naming_an_unreachable_path_is_a_note(deep: dict[str, object], cli: Invoke) -> None:
    root = deep["root"]
    assert isinstance(root, Path)
    Workspace.init(root).close()
    reach = deep["reach"]
    assert isinstance(reach, int)
    far = "/".join([NAME] * (reach + 3) + ["far.txt"])
    for args in (["record", far], ["rollback", "--to", "0", far], ["status"]):
        result = cli("--root", str(root), *args)
        assert result.exit_code == 0, (args[0], result.output[-300:])
    with Workspace.open(root) as ws:
        assert ws.latest == 0 and ws.validate().ok
