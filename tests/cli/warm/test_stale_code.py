"""A server whose code changed on disk serves nothing (issue 40, point 19: the code stamp).

The server compares a stamp of its package's files with the one it took at start
(``cli/warm/guards.py``); a change of the same size must count as much as any other.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import snapline
from tests.cli.conftest import run_script
from tests.cli.warm.conftest import Warm, wait_gone

PACKAGE = Path(snapline.__file__).parent


def test_a_same_size_edit_of_the_code_makes_the_server_stale(
    runtime: Path, project: Path, tmp_path: Path
) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(PACKAGE, copy / "snapline", ignore=shutil.ignore_patterns("__pycache__"))
    env = {"PYTHONPATH": str(copy)}  # this copy is the code both server and client import
    started = run_script("server", "start", "--json", cwd=project, env=env)
    assert started.returncode == 0, started.stderr
    server = Warm(json.loads(started.stdout)["pid"], runtime)
    version = f"snapline {snapline.__version__}\n"
    first = run_script("--version", cwd=project, env=env)
    assert first.stdout == version
    status = json.loads(run_script("server", "status", "--json", cwd=project, env=env).stdout)
    assert status["requests"] == 1  # sanity: this copy's server served it

    dispatch = copy / "snapline" / "cli" / "dispatch.py"
    before = dispatch.stat()
    text = dispatch.read_text()
    edited = text.replace('f"snapline {__version__}\\n"', 'f"SNAPLINE {__version__}\\n"')
    assert edited != text and len(edited) == len(text)
    with dispatch.open("r+") as handle:  # in place: the same inode, the same size
        handle.write(edited)
    # A later time whatever the clock's grain, so only the size is left unchanged.
    os.utime(dispatch, ns=(before.st_atime_ns, before.st_mtime_ns + 1_000_000_000))
    after = dispatch.stat()
    assert (after.st_size, after.st_ino) == (before.st_size, before.st_ino)

    done = run_script("--version", cwd=project, env=env)
    assert done.stdout == f"SNAPLINE {snapline.__version__}\n"  # the code on disk ran
    wait_gone(server.pid)  # a stale server stops
