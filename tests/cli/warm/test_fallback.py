"""A dead, killed or vanished server never loses a record nor records one twice."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

from snapline import Workspace
from tests.cli.conftest import run_script
from tests.cli.warm.conftest import GUARD, Warm, latest, local, wait_for, wait_gone

SCRIPT = str(Path(sys.executable).with_name("snapline"))


def _edit(root: Path, content: str) -> None:
    (root / "src" / "app.py").write_text(content)


def _files(root: Path, number: int) -> list[str]:
    with Workspace.open(root) as ws:
        return [change.path for change in ws.snapshot(number).files]


def test_a_socket_left_by_a_killed_server_is_passed_by(warm: Warm, project: Path) -> None:
    socket_path = warm.socket()
    os.kill(warm.pid, signal.SIGKILL)
    wait_gone(warm.pid)
    assert socket_path.exists()  # what a SIGKILL leaves behind
    _edit(project, "one\n")
    done = run_script("record", "-m", "after", cwd=project)
    assert (done.returncode, done.stdout, done.stderr) == (
        0,
        "recorded snapshot 1: 1 file\n  M src/app.py\n",
        "",
    )
    assert latest(project) == 1
    # And a new server replaces the dead one's socket.
    started = run_script("server", "start", "--json", cwd=project)
    assert started.returncode == 0, started.stderr
    pid = json.loads(started.stdout)["pid"]
    assert run_script("server", "stop", cwd=project).returncode == 0
    wait_gone(pid)


def _event(root: Path, name: str) -> str:
    return json.dumps(
        {
            "session_id": "s1",
            "cwd": str(root),
            "hook_event_name": name,
            "tool_name": "Edit",
            "tool_use_id": "t1",
            "tool_input": {"file_path": str(root / "src" / "app.py")},
        }
    )


def test_a_server_killed_while_its_worker_runs_the_command_loses_nothing(
    warm: Warm, project: Path
) -> None:
    # The hook's worker waits for its event on stdin: the server is killed meanwhile,
    # then the event arrives. The worker is a process of its own: it records and answers.
    _edit(project, "edited by the agent\n")
    hook = subprocess.Popen(
        [SCRIPT, "hook", "claude-code"],
        cwd=project,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    wait_for(lambda: warm.status()["workers"] == 1, "the worker runs")
    os.kill(warm.pid, signal.SIGKILL)
    wait_gone(warm.pid)
    out, err = hook.communicate(_event(project, "PostToolUse").encode(), timeout=GUARD)
    assert (hook.returncode, out, err) == (0, b"", b"")
    assert latest(project) == 1
    assert _files(project, 1) == ["src/app.py"]
    # The next command finds no server, runs in its own process, records nothing twice.
    again = run_script("hook", "claude-code", cwd=project, input=_event(project, "PostToolUse"))
    assert again.returncode == 0
    assert latest(project) == 1


def test_a_worker_killed_mid_record_ends_as_a_killed_process_and_the_next_record_lands_once(
    warm: Warm, project: Path, tmp_path: Path
) -> None:
    twin = tmp_path / "twin"
    shutil.copytree(project, twin, symlinks=True)
    crash = {"SNAPLINE_CRASH_AT": "record-prepared"}
    outcomes = []
    for root, runner in ((project, run_script), (twin, local)):
        _edit(root, "half done\n")
        done = runner("record", "-m", "killed", cwd=root, env=crash)
        outcomes.append((done.returncode, done.stdout, done.stderr))
    assert outcomes[0] == outcomes[1] == (-signal.SIGKILL, "", "")
    assert warm.served() == 1
    for root, runner in ((project, run_script), (twin, local)):
        assert latest(root) == 0  # killed before its transaction committed
        done = runner("record", "-m", "again", cwd=root)
        assert (done.returncode, done.stdout) == (
            0,
            "recorded snapshot 1: 1 file\n  M src/app.py\n",
        )
        assert runner("verify", "--full", cwd=root).returncode == 0
        assert latest(root) == 1
    assert warm.served() == 3


def _children(pid: int) -> list[int]:
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


def test_a_worker_killed_with_its_server_leaves_its_client_one_clear_line(
    warm: Warm, project: Path
) -> None:
    # Nobody is left to say how the command ended: the client says so, and where to
    # look, instead of a traceback or a hang.
    hook = subprocess.Popen(
        [SCRIPT, "hook", "claude-code"],
        cwd=project,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    wait_for(lambda: warm.status()["workers"] == 1, "the worker runs")
    (worker,) = _children(warm.pid)
    os.kill(warm.pid, signal.SIGKILL)
    wait_gone(warm.pid)
    os.kill(worker, signal.SIGKILL)
    wait_gone(worker)
    out, err = hook.communicate(_event(project, "PostToolUse").encode(), timeout=GUARD)
    assert (hook.returncode, out, err.decode()) == (
        1,
        b"",
        "snapline: error: the warm server's worker ended without an exit status; "
        "whatever it recorded is complete or absent (run `snapline log` to see which), "
        "and `snapline server stop` stops the server\n",
    )
    assert latest(project) == 0
