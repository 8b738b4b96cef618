"""Exit codes that mean one thing: 2 for usage only, 70 for a bug (issue 25, item 3).

The errors are injected into the real console script: a ``sitecustomize`` module on
``PYTHONPATH`` (Python imports it at start-up) replaces one function deep in the
restore path, so the error travels the whole way up, as a real one would.

On 615ec5a an unexpected error exited 1 (an internal error, like a failed check) and a
``FileNotFoundError`` raised while writing exited 2, the code kept for usage errors.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from snapline import Workspace
from snapline.cli.errors import EXIT_INTERNAL
from tests.snapshots.trees import files

_INJECT = """
import snapline.atomic


def _broken(self):
    raise {error}


snapline.atomic.WriteBatch.finish = _broken
"""


def _script(
    root: Path, error: str | None, *args: str, **env: str
) -> subprocess.CompletedProcess[str]:
    """``snapline ARGS`` in ``root``, with ``error`` raised when a write batch finishes."""
    extra = dict(env)
    if error is not None:
        hooks = root.parent / "hooks"
        hooks.mkdir(exist_ok=True)
        (hooks / "sitecustomize.py").write_text(_INJECT.format(error=error))
        extra["PYTHONPATH"] = os.pathsep.join(
            p for p in (str(hooks), os.environ.get("PYTHONPATH", "")) if p
        )
    script = Path(sys.executable).with_name("snapline")
    return subprocess.run(
        [str(script), *args],
        cwd=root,
        capture_output=True,
        text=True,
        env={**os.environ, "SNAPLINE_DEBUG": "", **extra},
        timeout=120,
        check=False,
    )


@pytest.fixture
def emptied(root: Path) -> Path:
    """A workspace whose latest snapshot added ``pkg/a`` and ``pkg/b``: undo empties ``pkg``."""
    with Workspace.init(root) as ws:
        (root / "pkg").mkdir()
        (root / "pkg" / "a").write_text("1\n")
        (root / "pkg" / "b").write_text("2\n")
        ws.record()
    return root


def test_the_issue_repro_exits_0(emptied: Path) -> None:
    # `mkdir pkg; echo 1 >pkg/a; echo 2 >pkg/b; snapline record; snapline undo`: exit 2.
    result = _script(emptied, None, "undo")
    assert result.returncode == 0, result.stderr
    assert not (emptied / "pkg").exists()
    assert _script(emptied, None, "verify").returncode == 0


def test_an_internal_error_exits_70_with_one_line_and_loses_nothing(emptied: Path) -> None:
    before = files(emptied)
    result = _script(emptied, 'RuntimeError("injected")', "undo")
    assert result.returncode == EXIT_INTERNAL == 70, result.stderr
    assert result.stdout == ""
    (line,) = result.stderr.splitlines()
    assert line.startswith(
        "snapline: error: internal error (a bug in snapline): RuntimeError: injected; "
    )
    assert "report it" in line and "--debug" in line
    # The journal put every file back: the undo can be done once the bug is gone.
    assert files(emptied) == before
    assert _script(emptied, None, "verify").returncode == 0


def test_debug_shows_the_traceback_and_keeps_the_code(emptied: Path) -> None:
    for args, env in ((("--debug", "undo"), {}), (("undo",), {"SNAPLINE_DEBUG": "1"})):
        result = _script(emptied, 'RuntimeError("injected")', *args, **env)
        assert result.returncode == EXIT_INTERNAL, (args, result.stderr)
        assert result.stderr.startswith("Traceback (most recent call last):"), args
        assert "in _broken" in result.stderr and "WriteBatch" not in result.stdout
        assert result.stderr.splitlines()[-1].startswith("snapline: error: internal error")


def test_json_gives_an_internal_error_its_own_kind(emptied: Path) -> None:
    result = _script(emptied, 'RuntimeError("injected")', "undo", "--json")
    assert result.returncode == EXIT_INTERNAL
    data = json.loads(result.stdout)
    assert data["kind"] == "InternalError"
    assert data["exit_code"] == EXIT_INTERNAL
    assert data["error"].startswith("internal error (a bug in snapline): RuntimeError")


def test_the_fast_paths_exit_70_too(emptied: Path) -> None:
    # A plain `record` and `verify` start without the typer application.
    (emptied / "pkg" / "c").write_text("3\n")
    hooks = emptied.parent / "hooks"
    hooks.mkdir()
    (hooks / "sitecustomize.py").write_text(
        "import snapline.snapshots.record.recorder as r\n"
        "def _broken(*args, **kwargs):\n    raise KeyError('injected')\n"
        "r.Recorder.record = _broken\n"
        "import snapline.workspace.rows as w\nw.verify_problems = _broken\n"
    )
    inherited = os.environ.get("PYTHONPATH", "")
    env = {"PYTHONPATH": os.pathsep.join(p for p in (str(hooks), inherited) if p)}
    env["SNAPLINE_DEBUG"] = ""
    script = str(Path(sys.executable).with_name("snapline"))
    for args in (["record"], ["record", "--json"], ["verify"], ["verify", "--json"]):
        result = subprocess.run(
            [script, *args],
            cwd=emptied,
            capture_output=True,
            text=True,
            env={**os.environ, **env},
            timeout=120,
            check=False,
        )
        assert result.returncode == EXIT_INTERNAL, (args, result.stderr)
        assert "internal error (a bug in snapline): KeyError" in result.stderr, args
        if "--json" in args:
            assert json.loads(result.stdout)["kind"] == "InternalError"


@pytest.mark.parametrize(
    "error",
    [
        'FileNotFoundError(2, "No such file or directory", "pkg")',
        'NotADirectoryError(20, "Not a directory", "pkg")',
        'PermissionError(13, "Permission denied", "pkg")',
    ],
)
def test_an_os_error_while_writing_is_a_failure_never_a_usage_error(
    emptied: Path, error: str
) -> None:
    before = files(emptied)
    for args in (["undo"], ["rollback", "--to", "0"]):
        result = _script(emptied, error, *args)
        assert result.returncode == 1, (args, result.stderr)
        (line,) = result.stderr.splitlines()
        assert line.startswith("snapline: error: ") and ": pkg" in line
        assert files(emptied) == before


def test_usage_errors_still_exit_2(emptied: Path) -> None:
    for args in (["undo", "--no-such-option"], ["rollback", "--to", "tip"], ["revert", "0"]):
        assert _script(emptied, None, *args).returncode == 2, args
    missing = emptied.parent / "missing"
    result = _script(emptied, None, "--root", str(missing), "init")
    assert result.returncode == 2, result.stderr
    assert result.stderr == f"snapline: error: {missing} is not a directory; create it first\n"
