"""Fixtures for driving the real ``snapline`` command line in temporary workspaces."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from snapline import Workspace
from snapline.cli.app import app
from tests.cli_runner import CliRunner, Result

Invoke = Callable[..., Result]


@pytest.fixture
def cli() -> Invoke:
    """``cli("log", "--json")`` runs the typer app in-process and returns its result."""
    runner = CliRunner()

    def invoke(*args: str, input: str | None = None) -> Result:
        return runner.invoke(app, list(args), input=input, catch_exceptions=False)

    return invoke


@pytest.fixture
def project(root: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An initialised workspace (two files in the baseline), and the current directory."""
    (root / "src").mkdir()
    (root / "src" / "app.py").write_text("print('hello')\n")
    (root / "README.md").write_text("# demo\n")
    Workspace.init(root).close()
    monkeypatch.chdir(root)
    monkeypatch.delenv("NO_COLOR", raising=False)
    return root


def damage_line_ref(root: Path) -> None:
    """Garbage in the one line ref of the private repository ``init`` made outside git."""
    (ref,) = (root / ".snapline" / "repo" / "refs" / "snapline" / "lines").iterdir()
    ref.write_bytes(b"this is not a ref\n" * 100)


def as_json(result: Result) -> Any:
    """The JSON a ``--json`` command printed on stdout."""
    assert result.exit_code == 0 or result.stdout.strip(), result.output
    return json.loads(result.stdout)


def run_script(
    *args: str, cwd: Path, env: dict[str, str] | None = None, input: str | None = None
) -> subprocess.CompletedProcess[str]:
    """Run the installed console script, ``snapline ARGS``, as a user would."""
    script = Path(sys.executable).with_name("snapline")
    return subprocess.run(
        [str(script), *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        input=input,
        env={**os.environ, **(env or {})},
        timeout=120,
        check=False,
    )
