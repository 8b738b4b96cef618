"""A reader that went away (`snapline --help | head -0`): exit 1 quietly, as git says nothing.

Every command, the ones answered before typer is built (`--version`, the root's
`--help`, the lean `record` and `verify`) as much as typer's, writes into a pipe whose
reader has closed it: no traceback, nothing on stderr, exit code 1, and what a writing
command did before its output stays done.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.conftest import run_script


def _into_a_closed_pipe(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    read, write = os.pipe()
    os.close(read)  # the reader is gone before snapline writes a byte
    try:
        return subprocess.run(
            [str(Path(sys.executable).with_name("snapline")), *args],
            cwd=cwd,
            stdout=write,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, "SNAPLINE_SERVER": "0"},
            timeout=120,
            check=False,
        )
    finally:
        os.close(write)


@pytest.mark.parametrize(
    "args", [["--version"], ["--help"], ["-h"], ["log", "--help"], ["log"], ["verify"]]
)
def test_a_reader_gone_ends_the_command_quietly(tmp_path: Path, args: list[str]) -> None:
    (tmp_path / "a.txt").write_text("one\n")
    assert run_script("init", cwd=tmp_path).returncode == 0
    done = _into_a_closed_pipe(*args, cwd=tmp_path)
    assert (done.returncode, done.stderr) == (1, "")


def test_a_record_whose_reader_is_gone_is_still_recorded(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("one\n")
    assert run_script("init", cwd=tmp_path).returncode == 0
    (tmp_path / "a.txt").write_text("two\n")
    done = _into_a_closed_pipe("record", "a.txt", "-m", "edit", cwd=tmp_path)
    assert (done.returncode, done.stderr) == (1, "")
    log = run_script("log", "--json", cwd=tmp_path)
    assert '"edit"' in log.stdout
    assert run_script("verify", cwd=tmp_path).returncode == 0
