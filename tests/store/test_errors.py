"""Which error an SQLite failure becomes: busy, refused by the OS, or a damaged store.

Permission and space problems are named as such (exit 1); no message advises starting a
new history. The mapping is tested on SQLite's result codes, and the space case through
a real file-size limit in a child process.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from snapline import Workspace
from snapline.store import (
    AccessProblem,
    StoreAccessError,
    StoreBusyError,
    StoreCorruptError,
    access_problem,
)
from snapline.store.errors import translate

# (SQLite result code, what SQLite says, the error snapline must raise, its problem)
CASES = [
    (5, "database is locked", StoreBusyError, None),
    (6, "database table is locked", StoreBusyError, None),
    (8, "attempt to write a readonly database", StoreAccessError, AccessProblem.PERMISSION),
    (3, "access permission denied", StoreAccessError, AccessProblem.PERMISSION),
    (14, "unable to open database file", StoreAccessError, AccessProblem.OPEN),
    (13, "database or disk is full", StoreAccessError, AccessProblem.SPACE),
    (10, "disk I/O error", StoreAccessError, AccessProblem.IO),
    (522, "disk I/O error", StoreAccessError, AccessProblem.IO),  # SQLITE_IOERR_SHORT_READ
    (3338, "disk I/O error", StoreAccessError, AccessProblem.IO),  # SQLITE_IOERR_WRITE
    (11, "database disk image is malformed", StoreCorruptError, None),
    (26, "file is not a database", StoreCorruptError, None),
]


def _error(code: int, message: str, with_code: bool) -> sqlite3.Error:
    error = sqlite3.OperationalError(message)
    if with_code:
        error.sqlite_errorcode = code  # type: ignore[attr-defined]
    return error


@pytest.mark.parametrize("with_code", [True, False], ids=["result-code", "message-only"])
@pytest.mark.parametrize(("code", "message", "expected", "problem"), CASES)
def test_sqlite_errors_are_said_as_what_they_are(
    code: int, message: str, expected: type, problem: AccessProblem | None, with_code: bool
) -> None:
    error = translate(_error(code, message, with_code), "/w/.snapline/store.db", 2.0)
    assert type(error) is expected
    if problem is not None:
        assert isinstance(error, StoreAccessError)
        assert error.problem is problem
        assert error.exit_code == 1


@pytest.mark.parametrize(("code", "message", "expected", "problem"), CASES)
def test_no_message_advises_starting_a_new_history(
    code: int, message: str, expected: type, problem: AccessProblem | None
) -> None:
    text = str(translate(_error(code, message, True), "/w/.snapline/store.db", 2.0))
    assert "snapline init" not in text
    assert "new history" not in text
    assert "/w/.snapline/store.db" in text


@pytest.mark.parametrize(
    ("number", "problem"),
    [
        (28, AccessProblem.SPACE),  # ENOSPC
        (13, AccessProblem.PERMISSION),  # EACCES
        (30, AccessProblem.PERMISSION),  # EROFS
        (27, AccessProblem.IO),  # EFBIG
        (5, AccessProblem.IO),  # EIO
    ],
)
def test_os_errors_on_store_files_are_classified(number: int, problem: AccessProblem) -> None:
    assert access_problem(OSError(number, os.strerror(number))) is problem


def test_a_file_size_limit_while_recording_is_named_and_records_nothing(root: Path) -> None:
    (root / "a.txt").write_text("a\n")
    Workspace.init(root).close()
    (root / "big.bin").write_bytes(os.urandom(300_000))  # incompressible: a big row
    # A child process under RLIMIT_FSIZE: SQLite's write of that row fails with EFBIG
    # (Python ignores SIGXFSZ), exactly as on a user's limited account.
    code = textwrap.dedent(
        f"""
        import resource, sys
        from snapline import Workspace, SnaplineError, StoreAccessError
        ws = Workspace.open({str(root)!r})
        store = ws.root / ".snapline"
        used = max(p.stat().st_size for p in store.iterdir() if p.is_file())
        resource.setrlimit(resource.RLIMIT_FSIZE, (used + 65536, resource.RLIM_INFINITY))
        try:
            ws.record()
        except SnaplineError as error:
            print(isinstance(error, StoreAccessError), error.exit_code)
            print(error)
            sys.exit(0)
        print("no error")
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, timeout=120
    )
    assert result.returncode == 0, result.stderr
    first, message = result.stdout.splitlines()[:2]
    assert first == "True 1"  # on git's refs: GitWriteRefusedError, git's objects refused
    assert "file-size limit" in message
    assert "snapline init" not in message
    with Workspace.open(root) as ws:
        assert ws.latest == 0
        assert ws.validate().ok
        snapshot = ws.record()
        assert snapshot is not None and [c.path for c in snapshot.files] == ["big.bin"]
