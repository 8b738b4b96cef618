"""A store this user cannot write is read, as git reads a read-only repository.

The readers (``log``, ``show``, ``diff``, ``status``, ``verify``) answer as they do on
a writable store, even when the local index lags the ledger or is missing (its catch-up
runs in memory); the writers fail with exit 1, "permission denied", and nothing
written. Driven through the console script, run with the rights of a user who may not
write: as root, permissions do not bind, so the child drops the capabilities that
bypass them (``CAP_DAC_OVERRIDE``, ``CAP_DAC_READ_SEARCH``, ``CAP_FOWNER``) from its
bounding set before it runs snapline; and, in another test, on a read-only bind mount
in a mount namespace of its own.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.cli.conftest import run_script

_PR_CAPBSET_DROP = 24
_BYPASSING = (1, 2, 3)  # CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH, CAP_FOWNER
_READERS = [
    ["log"],
    ["log", "--json"],
    ["show", "2"],
    ["diff", "0", "2"],
    ["diff", "--stat"],
    ["status", "--json"],
    ["verify"],
    ["verify", "--full"],
]
_WRITERS = [
    ["record", "-m", "x"],
    ["resync", "-m", "x"],
    ["rollback", "--to", "1", "--yes"],
    ["milestone", "create", "--to", "latest", "-m", "m"],
]


def _drop_bypass() -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    for capability in _BYPASSING:
        if libc.prctl(_PR_CAPBSET_DROP, capability, 0, 0, 0) != 0 and os.geteuid() == 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")


def _as_reader(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``snapline ARGS`` by a process whose permission bits bind (root or not)."""
    script = Path(sys.executable).with_name("snapline")
    return subprocess.run(
        [str(script), *args],
        cwd=root, capture_output=True, text=True, timeout=120, check=False,
        preexec_fn=_drop_bypass,
    )  # fmt: skip


def _files(root: Path) -> dict[str, str]:
    """Every file and directory under ``root`` with its content's digest and mode."""
    found = {}
    for directory, dirs, files in os.walk(root):
        for name in dirs + files:
            path = Path(directory, name)
            data = b"" if path.is_dir() else path.read_bytes()
            found[str(path.relative_to(root))] = (
                f"{oct(path.stat().st_mode)} {hashlib.sha256(data).hexdigest()}"
            )
    return found


def _readonly(path: Path) -> None:
    for directory, _, files in os.walk(path):
        for name in files:
            os.chmod(os.path.join(directory, name), 0o444)
    for directory, _, _ in sorted(os.walk(path), reverse=True):
        os.chmod(directory, 0o555)


def _writable(path: Path) -> None:
    for directory, _, files in os.walk(path):
        os.chmod(directory, 0o755)
        for name in files:
            os.chmod(os.path.join(directory, name), 0o644)


@pytest.fixture
def workspace(tmp_path: Path) -> Iterator[Path]:
    """A workspace with snapshots 0..2, and the index as it was after snapshot 1."""
    root = tmp_path / "ws"
    root.mkdir()
    (root / "app.py").write_text("print(1)\n")
    assert run_script("init", cwd=root).returncode == 0
    (root / "app.py").write_text("print(2)\n")
    assert run_script("record", "-m", "one", cwd=root).returncode == 0
    shutil.copy(root / ".snapline" / "index.db", tmp_path / "index-after-1.db")
    (root / "notes.txt").write_text("notes\n")
    assert run_script("record", "-m", "two", cwd=root).returncode == 0
    yield root
    _writable(root / ".snapline")


def _answers(
    root: Path, run: Callable[..., subprocess.CompletedProcess[str]]
) -> list[tuple[int, str, str]]:
    """Each reader's exit code, output and error output."""
    answers = []
    for args in _READERS:
        done = run(root, *args)
        answers.append((done.returncode, done.stdout, done.stderr))
    return answers


def _writer(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run_script(*args, cwd=root)


@pytest.mark.parametrize("index", ["current", "behind the ledger", "missing"])
def test_readers_read_a_store_this_user_cannot_write(
    workspace: Path, tmp_path: Path, index: str
) -> None:
    (workspace / "app.py").write_text("print(3)\n")  # drift, for status, diff and verify
    store = workspace / ".snapline"
    writable = _answers(workspace, _writer)
    for log in store.glob("index.db-*"):
        log.unlink()  # none after a clean close; never applied to another file
    if index == "behind the ledger":
        shutil.copy(tmp_path / "index-after-1.db", store / "index.db")
    elif index == "missing":
        (store / "index.db").unlink()
    _readonly(store)
    before = _files(workspace)
    assert _answers(workspace, _as_reader) == writable
    assert _files(workspace) == before
    assert [code for code, _, _ in writable] == [0, 0, 0, 0, 0, 0, 1, 1]  # the drift


def test_writers_fail_on_it_and_write_nothing(workspace: Path) -> None:
    (workspace / "app.py").write_text("print(3)\n")
    _readonly(workspace / ".snapline")
    before = _files(workspace)
    for args in _WRITERS:
        done = _as_reader(workspace, *args)
        assert done.returncode == 1, (args, done.stdout, done.stderr)
        assert "permission denied" in done.stderr, args
        assert "give this user write access to .snapline/" in done.stderr, args
        assert "Traceback" not in done.stderr
        assert _files(workspace) == before, args


def test_readers_read_a_store_on_a_read_only_mount(workspace: Path) -> None:
    (workspace / "app.py").write_text("print(3)\n")
    store = workspace / ".snapline"
    writable = _answers(workspace, _writer)
    before = _files(workspace)
    snapline = Path(sys.executable).with_name("snapline")
    lines = [f"mount --bind {store} {store}", f"mount -o remount,bind,ro {store}"]
    for args in [*_READERS, ["record", "-m", "x"]]:
        lines.append(f'{snapline} {" ".join(args)}; echo "exit $?"')
    done = subprocess.run(
        ["unshare", "-m", "sh", "-c", "\n".join(lines)],
        cwd=workspace, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    expected = "".join(out + f"exit {code}\n" for code, out, _ in writable) + "exit 1\n"
    assert done.stdout == expected
    assert "Read-only file system" in done.stderr and "nothing was recorded" in done.stderr
    assert _files(workspace) == before
