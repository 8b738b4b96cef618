"""Shared tools of the reliability suite: children to kill, and the checks after a kill.

Every check here reopens the store the way a user would (``Workspace.open``, which
settles a journal left by a dead process) and then asks the same questions: does the
history validate, is every acknowledged snapshot there and rebuilt byte for byte, and is
the workspace in sync with the history.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import signal
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

from snapline import ContentUnavailableError, Workspace
from snapline.crashpoints import ENV as CRASH_ENV
from snapline.hashing import hash_bytes
from snapline.snapshots.read.history import state_at

__all__ = [
    "KILLED",
    "STRESS",
    "assert_healthy",
    "cli",
    "digest",
    "history_tree",
    "python",
    "tree",
]

STRESS = os.environ.get("SNAPLINE_STRESS") == "1"
"""The long mode: ``SNAPLINE_STRESS=1`` runs many more kills, processes and examples."""

KILLED = -signal.SIGKILL
"""The return code of a child that died by SIGKILL."""


def _env(crash: str | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != CRASH_ENV}
    if crash is not None:
        env[CRASH_ENV] = crash
    # The children must import this checkout's snapline, wherever pytest was started.
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[2])
    return env


def cli(
    root: Path, *args: str, crash: str | None = None, timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    """Run the real command line (``python -m snapline --root ROOT ARGS``)."""
    return subprocess.run(
        [sys.executable, "-m", "snapline", "--root", str(root), *args],
        env=_env(crash),
        capture_output=True,
        text=True,
        errors="surrogateescape",  # file names need not be UTF-8
        timeout=timeout,
        check=False,
    )


def python(
    code: str, *args: str, crash: str | None = None, timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    """Run a small library driver (``python -c CODE ARGS``)."""
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        env=_env(crash),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def tree(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` (outside ``.snapline/`` and ``.git/``) with its bytes.

    A symlink is listed with its target as content (whether it points to a file, a
    directory or nowhere) and never followed; temporary files are listed too, so a
    leftover shows up.
    """
    result = {}
    for directory, dirs, files in os.walk(root):
        base = Path(directory)
        for name in list(dirs):
            if (base / name).is_symlink():
                files.append(name)
                dirs.remove(name)
            elif base == root and name in (".snapline", ".git"):
                dirs.remove(name)
        for name in files:
            path = base / name
            rel = path.relative_to(root).as_posix()
            result[rel] = os.fsencode(os.readlink(path)) if path.is_symlink() else path.read_bytes()
    return dict(sorted(result.items()))


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def history_tree(ws: Workspace, number: int) -> dict[str, bytes]:
    """Every file of snapshot ``number``, rebuilt from the store alone (hash-checked)."""
    return {path: ws.content_at(path, number) for path in sorted(state_at(ws._store, number))}


def assert_healthy(
    root: Path,
    acknowledged: Mapping[int, Mapping[str, bytes]] | None = None,
    *,
    in_sync: bool = True,
) -> int:
    """Reopen ``root`` and check everything a kill must not break; return the latest number.

    Args:
        root: The workspace.
        acknowledged: Snapshot numbers that were acknowledged before the kill, each with
            the exact files it must rebuild (a subset: only the paths given are checked).
        in_sync: Also require the disk to match the latest snapshot (no drift).
    """
    with Workspace.open(root) as ws:
        assert ws._store.journal.entries() == [], "the journal was not settled on open"
        report = ws.validate()
        assert report.ok, json.dumps(report.to_json(), indent=1)
        numbers = [s.number for s in ws.snapshots()]
        assert numbers == list(range(len(numbers))), f"numbers are not contiguous: {numbers}"
        for number, files in (acknowledged or {}).items():
            assert number <= ws.latest, f"acknowledged snapshot {number} was lost"
            for path, content in files.items():
                assert ws.content_at(path, number) == content, (path, number)
        if in_sync:
            sync = ws.check_sync()
            assert sync.ok, json.dumps(sync.to_json(), indent=1)
            # Byte for byte, leftovers (temporary files) included; files tracked by hash
            # only are compared by hash, the only thing the store has of them.
            disk = {path: hash_bytes(data) for path, data in tree(root).items()}
            known = {path: v.hash for path, v in state_at(ws._store, ws.latest).items()}
            assert disk == known
            for path, data in tree(root).items():
                with contextlib.suppress(ContentUnavailableError):
                    assert ws.content_at(path) == data, path
        return ws.latest
