"""``snapline server start|stop|status``, the idle timeout, and who starts a server."""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

import snapline
from tests.cli.conftest import run_script
from tests.cli.warm.conftest import GUARD, Warm, start_server, wait_for, wait_gone


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
    for value in ("0", "off"):
        env = {"SNAPLINE_SERVER": value}
        disabled = run_script("integrate", "claude-code", cwd=project, env=env)
        assert disabled.returncode == 0, disabled.stderr
        assert (
            json.loads(run_script("server", "status", "--json", cwd=project).stdout)["running"]
            is False
        )
        run_script("integrate", "claude-code", "--uninstall", cwd=project)

    done = run_script("integrate", "claude-code", cwd=project)
    assert done.returncode == 0, done.stderr
    status = json.loads(run_script("server", "status", "--json", cwd=project).stdout)
    assert status["running"] is True
    wait_for(lambda: run_script("server", "stop", cwd=project).returncode == 0, "stopped")
    wait_gone(int(status["pid"]))


@pytest.mark.parametrize("ci", ["0", "False"])
def test_integrate_starts_a_server_where_ci_says_0_or_false(
    runtime: Path, project: Path, ci: str
) -> None:
    done = run_script("integrate", "claude-code", "--json", cwd=project, env={"CI": ci})
    assert done.returncode == 0, done.stderr
    pid = json.loads(done.stdout)["server_started"]
    status = _running(project)
    assert (status["running"], status.get("pid")) == (True, pid)
    off = run_script("integrate", "claude-code", "--uninstall", "--json", cwd=project)
    assert json.loads(off.stdout)["server_stopped"] == pid
    wait_gone(pid)


def test_snapline_server_0_or_off_makes_every_command_ignore_the_server(
    warm: Warm, project: Path
) -> None:
    for value in ("0", "off"):
        done = run_script("--version", cwd=project, env={"SNAPLINE_SERVER": value})
        assert (done.returncode, done.stdout) == (0, f"snapline {snapline.__version__}\n")
    assert warm.served() == 0
    assert run_script("--version", cwd=project, env={"SNAPLINE_SERVER": "1"}).returncode == 0
    assert warm.served() == 1  # sanity: any other value uses it


def test_where_the_socket_is_without_snapline_runtime_dir(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # docs/cli.md: $XDG_RUNTIME_DIR/snapline, else $TMPDIR/snapline-UID (/tmp by default).
    for name in ("SNAPLINE_RUNTIME_DIR", "XDG_RUNTIME_DIR", "TMPDIR"):
        monkeypatch.delenv(name, raising=False)
    xdg, tmp, uid = tmp_path / "xdg", tmp_path / "tmp", os.geteuid()
    for env, directory in (
        ({"XDG_RUNTIME_DIR": str(xdg), "TMPDIR": str(tmp)}, xdg / "snapline"),
        ({"TMPDIR": str(tmp)}, tmp / f"snapline-{uid}"),
        ({}, Path(f"/tmp/snapline-{uid}")),
    ):
        done = run_script("server", "status", "--json", cwd=tmp_path, env=env)
        assert done.returncode == 0, done.stderr
        assert Path(json.loads(done.stdout)["socket"]).parent == directory, env
    assert list(tmp_path.iterdir()) == []  # asking creates no directory


_ELSEWHERE = "set SNAPLINE_RUNTIME_DIR to a directory of this user's alone"
_CHMOD = "make it this user's alone (chmod 700) or set SNAPLINE_RUNTIME_DIR to a directory that is"


def _open_to_all(runtime: Path, _elsewhere: Path) -> tuple[Path, str]:
    runtime.chmod(0o755)
    return runtime, f"its mode is 0755, not 0700; {_CHMOD}"


def _a_link(runtime: Path, elsewhere: Path) -> tuple[Path, str]:
    link = elsewhere / "link"
    link.symlink_to(runtime)  # to a private directory: the link itself is refused
    return link, f"it is not a directory (a symbolic link or a file); {_ELSEWHERE}"


def _a_file(_runtime: Path, elsewhere: Path) -> tuple[Path, str]:
    file = elsewhere / "file"
    file.write_text("")
    file.chmod(0o755)  # no chmod makes a file a directory
    return file, f"it is not a directory (a symbolic link or a file); {_ELSEWHERE}"


def _another_users(runtime: Path, _elsewhere: Path) -> tuple[Path, str]:
    if os.geteuid() != 0:
        pytest.skip("only root can give a directory away")
    os.chown(runtime, 65534, 65534)
    runtime.chmod(0o755)  # its mode too: chmod alone would not make it this user's
    return runtime, f"it belongs to uid 65534, not {os.geteuid()}; {_ELSEWHERE}"


@pytest.mark.parametrize(
    "make", [_open_to_all, _a_link, _a_file, _another_users], ids=lambda f: f.__name__.strip("_")
)
def test_start_refuses_a_runtime_directory_that_is_not_private(
    runtime: Path, tmp_path: Path, make: Callable[[Path, Path], tuple[Path, str]]
) -> None:
    # chmod is the advice only where chmod would do: another place, wherever it would not.
    directory, reason = make(runtime, tmp_path)
    env = {"SNAPLINE_RUNTIME_DIR": str(directory)}
    done = run_script("server", "start", cwd=tmp_path, env=env)
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == (
        f"snapline: error: the runtime directory {directory} is not private: {reason}\n"
    )
    assert list(runtime.iterdir()) == []


def _under_a_file(runtime: Path) -> tuple[Path, str]:
    (runtime / "file").write_text("")
    return runtime / "file" / "sub", f"Not a directory; {_ELSEWHERE}"


def _under_nothing(runtime: Path) -> tuple[Path, str]:
    parent = runtime / "gone" / "deeper"
    return parent / "sub", f"No such file or directory; make its parent ({parent}) or {_ELSEWHERE}"


_CANNOT_BE_MADE = [_under_a_file, _under_nothing]


@pytest.mark.parametrize("make", _CANNOT_BE_MADE, ids=lambda f: f.__name__.strip("_"))
def test_start_says_why_the_runtime_directory_cannot_be_made(
    runtime: Path, make: Callable[[Path], tuple[Path, str]]
) -> None:
    directory, why = make(runtime)
    env = {"SNAPLINE_RUNTIME_DIR": str(directory)}
    done = run_script("server", "start", cwd=runtime, env=env)
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == (
        f"snapline: error: the runtime directory {directory} cannot be made: {why}\n"
    )
    assert not directory.exists()


@pytest.mark.parametrize("make", _CANNOT_BE_MADE, ids=lambda f: f.__name__.strip("_"))
def test_integrate_and_watch_say_why_the_runtime_directory_cannot_be_made(
    runtime: Path, project: Path, make: Callable[[Path], tuple[Path, str]]
) -> None:
    directory, why = make(runtime)
    env = {"SNAPLINE_RUNTIME_DIR": str(directory), "NO_COLOR": "1"}
    warning = (
        f"snapline: warning: the warm server did not start (the runtime directory {directory} "
        f"cannot be made: {why}); commands run without it"
    )
    done = run_script("integrate", "claude-code", cwd=project, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines()[-1] == warning
    watch = subprocess.Popen(
        [str(Path(sys.executable).with_name("snapline")), "watch"],
        cwd=project,
        env={**os.environ, **env},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert watch.stderr is not None
        assert watch.stderr.readline() == warning + "\n"
        assert watch.stderr.readline().startswith("watching ")
    finally:
        watch.send_signal(signal.SIGINT)
        watch.communicate(timeout=GUARD)
    assert watch.returncode == 0
    assert not directory.exists()


def test_integrate_says_when_the_server_cannot_start_and_installs_anyway(
    runtime: Path, project: Path
) -> None:
    runtime.chmod(0o755)
    done = run_script("integrate", "claude-code", cwd=project)
    assert done.returncode == 0, done.stderr
    # (Beside, maybe, a line about where the hooks find `snapline`.)
    assert done.stderr.splitlines()[-1] == (
        f"snapline: warning: the warm server did not start (the runtime directory {runtime} "
        "is not private: its mode is 0755, not 0700; make it this user's alone (chmod 700) or "
        "set SNAPLINE_RUNTIME_DIR to a directory that is); commands run without it"
    )
    assert done.stdout.startswith("installed snapline's hooks in ")
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
