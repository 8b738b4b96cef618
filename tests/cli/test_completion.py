"""Shell completion from a script: a shell named on the command line is the one used.

typer guesses the shell from the process tree; from a script, a Makefile or CI there may
be no shell above snapline at all, and a shell named on the command line must work
whatever the parent process. Each command here runs in an orphaned process (its parent
gone, so adopted by init): no shell anywhere among its ancestors.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

_ORPHAN = r"""
import json, os, subprocess, sys
read, write = os.pipe()
if os.fork() == 0:
    os.close(read)
    os.setsid()
    if os.fork() == 0:
        done = subprocess.run(sys.argv[1:], capture_output=True, text=True)
        os.write(write, json.dumps([done.returncode, done.stdout, done.stderr]).encode())
    os._exit(0)
os.close(write)
chunks = []
while chunk := os.read(read, 65536):
    chunks.append(chunk)
sys.stdout.write(b"".join(chunks).decode())
"""


def _orphaned(*args: str, home: Path) -> tuple[int, str, str]:
    snapline = Path(sys.executable).with_name("snapline")
    env = {**os.environ, "HOME": os.fspath(home), "SHELL": "/bin/sh"}
    done = subprocess.run(
        [sys.executable, "-c", _ORPHAN, os.fspath(snapline), *args],
        capture_output=True, text=True, env=env, cwd=home, timeout=120, check=True,
    )  # fmt: skip
    code, out, err = json.loads(done.stdout)
    return int(code), str(out), str(err)


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_show_completion_for_a_named_shell_works_without_a_shell_above(
    tmp_path: Path, shell: str
) -> None:
    code, out, err = _orphaned("--show-completion", shell, home=tmp_path)
    assert (code, err) == (0, "")
    assert f"_SNAPLINE_COMPLETE=complete_{shell}" in out


def test_install_completion_for_a_named_shell_writes_that_shells_script(tmp_path: Path) -> None:
    code, out, err = _orphaned("--install-completion", "bash", home=tmp_path)
    assert code == 0, err
    assert "bash completion installed" in out
    script = (tmp_path / ".bash_completions" / "snapline.sh").read_text()
    assert "_SNAPLINE_COMPLETE=complete_bash" in script
    assert "snapline.sh" in (tmp_path / ".bashrc").read_text()


def test_a_shell_snapline_does_not_complete_is_a_usage_error(tmp_path: Path) -> None:
    code, out, err = _orphaned("--show-completion", "tcsh", home=tmp_path)
    assert (code, out) == (2, "")
    assert "'tcsh' is not a shell snapline completes" in err
    assert "bash, zsh, fish, powershell, pwsh" in err


@pytest.mark.parametrize("option", ["--show-completion", "--install-completion"])
def test_a_bare_option_with_no_shell_above_says_to_name_one(tmp_path: Path, option: str) -> None:
    # typer 0.26's own copy of click has no optional values: the bare option is read as
    # one given the empty value, under every typer.
    code, out, err = _orphaned(option, home=tmp_path)
    assert (code, out) == (2, "")
    assert "could not tell which shell runs snapline" in err
    assert f"snapline {option} bash" in err
    assert "requires an argument" not in err


def test_a_bare_option_before_another_root_option_still_takes_no_value(tmp_path: Path) -> None:
    code, out, err = _orphaned("--show-completion", "--debug", home=tmp_path)
    assert (code, out) == (2, "")
    assert "could not tell which shell runs snapline" in err
