"""``snapline server start|stop|status``, the idle timeout, and who starts a server."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

from tests.cli.conftest import run_script
from tests.cli.warm.conftest import Warm, start_server, wait_for, wait_gone


def test_start_status_stop(runtime: Path, project: Path) -> None:
    server = start_server(runtime)
    status = server.status()
    assert status["running"] is True
    assert status["requests"] == 0
    socket = Path(status["socket"])
    assert socket.parent == runtime
    # The socket is this user's alone, in a directory that is this user's alone.
    assert stat.S_ISSOCK(socket.lstat().st_mode)
    assert stat.S_IMODE(socket.lstat().st_mode) == 0o600
    assert stat.S_IMODE(runtime.stat().st_mode) == 0o700

    again = run_script("server", "start", "--json", cwd=project)
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["started_now"] is False
    assert json.loads(again.stdout)["pid"] == server.pid

    (project / "README.md").write_text("# changed\n")
    done = run_script("record", "README.md", cwd=project)
    assert done.returncode == 0, done.stderr
    assert server.served() == 1

    stopped = run_script("server", "stop", "--json", cwd=project)
    assert json.loads(stopped.stdout) == {"stopped": True, "pid": server.pid}
    wait_gone(server.pid)
    assert not socket.exists()
    after = run_script("server", "status", "--json", cwd=project)
    assert json.loads(after.stdout)["running"] is False
    assert run_script("server", "stop", cwd=project).stdout == "no server running\n"


def test_the_server_runs_one_thread_whatever_it_served(warm: Warm, project: Path) -> None:
    # Forking a process with threads copies their held locks without their owners: the
    # parent never starts one, counted by the kernel (C threads too), not by Python.
    (project / "src" / "app.py").write_text("print('bye')\n")
    event = {
        "hook_event_name": "PreToolUse",
        "tool_name": "Edit",
        "tool_input": {"file_path": str(project / "README.md")},
        "cwd": str(project),
        "session_id": "s",
    }
    for args in (["record"], ["log"], ["status"], ["verify"], ["--help"], ["milestone", "list"]):
        assert run_script(*args, cwd=project).returncode == 0
    hook = run_script("hook", "claude-code", cwd=project, input=json.dumps(event))
    assert hook.returncode == 0, hook.stderr
    assert warm.served() == 7
    assert warm.status()["threads"] == 1
    assert len(os.listdir(f"/proc/{warm.pid}/task")) == 1


def test_an_idle_server_exits_by_itself(runtime: Path) -> None:
    done = run_script("server", "start", "--idle-timeout", "1", "--json", cwd=runtime)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    wait_gone(int(data["pid"]))
    assert not Path(data["socket"]).exists()


def test_integrate_starts_a_server_but_never_in_ci(runtime: Path, project: Path) -> None:
    ci = run_script("integrate", "claude-code", cwd=project, env={"CI": "true"})
    assert ci.returncode == 0, ci.stderr
    assert (
        json.loads(run_script("server", "status", "--json", cwd=project).stdout)["running"] is False
    )
    off = run_script("integrate", "claude-code", "--uninstall", cwd=project)
    assert off.returncode == 0, off.stderr
    disabled = run_script("integrate", "claude-code", cwd=project, env={"SNAPLINE_SERVER": "0"})
    assert disabled.returncode == 0, disabled.stderr
    assert (
        json.loads(run_script("server", "status", "--json", cwd=project).stdout)["running"] is False
    )

    run_script("integrate", "claude-code", "--uninstall", cwd=project)
    done = run_script("integrate", "claude-code", cwd=project)
    assert done.returncode == 0, done.stderr
    status = json.loads(run_script("server", "status", "--json", cwd=project).stdout)
    assert status["running"] is True
    wait_for(lambda: run_script("server", "stop", cwd=project).returncode == 0, "stopped")
    wait_gone(int(status["pid"]))


def test_start_refuses_a_runtime_directory_that_is_not_private(runtime: Path) -> None:
    runtime.chmod(0o755)
    done = run_script("server", "start", cwd=runtime)
    assert done.returncode == 1
    assert done.stderr.startswith(
        f"snapline: error: the runtime directory {runtime} is not private"
    )
    assert "0755" in done.stderr
    assert list(runtime.iterdir()) == []


def _running(project: Path) -> dict[str, object]:
    data: dict[str, object] = json.loads(
        run_script("server", "status", "--json", cwd=project).stdout
    )
    return data


def test_integrate_says_it_started_a_server_and_uninstall_stops_that_one(
    runtime: Path, project: Path
) -> None:
    done = run_script("integrate", "claude-code", cwd=project)
    assert done.returncode == 0, done.stderr
    status = _running(project)
    assert status["running"] is True
    pid = int(str(status["pid"]))
    lines = done.stdout.splitlines()
    assert lines[1] == (
        f"started the warm server (pid {pid}) so the hooks answer without a start-up; "
        "`snapline server stop` stops it (and so does `--uninstall`)"
    )
    # Who started it is kept beside its socket, for `--uninstall` to read.
    stem = Path(str(status["socket"])).stem
    mark = json.loads((runtime / f"{stem}.started-by").read_text())
    assert mark == {"by": str(project), "pid": pid, "started": status["started"]}
    # Nothing of it in the work tree: only the settings file is new there.
    assert sorted(p.name for p in project.iterdir()) == [".claude", ".snapline", "README.md", "src"]
    again = run_script("integrate", "claude-code", cwd=project)
    assert "started the warm server" not in again.stdout  # it was running already

    off = run_script("integrate", "claude-code", "--uninstall", "--json", cwd=project)
    assert off.returncode == 0, off.stderr
    assert json.loads(off.stdout)["server_stopped"] == pid
    wait_gone(pid)
    assert _running(project)["running"] is False


def test_uninstall_leaves_a_server_integrate_did_not_start(runtime: Path, project: Path) -> None:
    server = start_server(runtime)
    done = run_script("integrate", "claude-code", "--json", cwd=project)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["server_started"] is None
    off = run_script("integrate", "claude-code", "--uninstall", cwd=project)
    assert off.returncode == 0, off.stderr
    assert "stopped the warm server" not in off.stdout
    assert _running(project)["pid"] == server.pid
    assert run_script("server", "stop", cwd=project).returncode == 0
    wait_gone(server.pid)
