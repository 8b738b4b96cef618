"""A command served warm prints, colours, asks and exits exactly as the same command run alone.

The oracle is the same command line run without a server (``SNAPLINE_SERVER=0``), on
the same workspace for what only reads and on a twin workspace for what writes; the
server's own count says the warm run was served by it.
"""

from __future__ import annotations

import fcntl
import json
import os
import platform
import pty
import select
import shutil
import signal
import subprocess
import sys
import termios
import time
from collections.abc import Callable
from pathlib import Path

import filelock
import pytest

from snapline import Workspace
from tests.cli.conftest import run_script
from tests.cli.warm.conftest import GUARD, Warm, latest, local, wait_for

SCRIPT = str(Path(sys.executable).with_name("snapline"))

READING = [
    ["log"],
    ["log", "--json"],
    ["status"],
    ["status", "--json"],
    ["show", "1"],
    ["show", "99"],  # exit 1
    ["show", "abc", "--json"],  # exit 2, JSON on stdout
    ["diff", "0", "1"],
    ["verify", "--full"],  # without --full, a second verify says the first checked
    ["milestone", "list"],
    ["--help"],
    ["log", "--help"],
    ["--version"],
    ["bogus"],  # exit 2
    ["record", "--bogus"],  # exit 2
    ["rollback", "--to", "0", "--dry-run"],
]


@pytest.fixture
def history(project: Path) -> Path:
    (project / "src" / "app.py").write_text("print('bye')\n")
    assert local("record", "-m", "first", cwd=project).returncode == 0
    return project


def test_reading_commands_answer_the_same_off_a_terminal(warm: Warm, history: Path) -> None:
    for number, args in enumerate(READING, start=1):
        served = run_script(*args, cwd=history)
        alone = local(*args, cwd=history)
        assert (served.stdout, served.stderr, served.returncode) == (
            alone.stdout,
            alone.stderr,
            alone.returncode,
        ), args
        assert warm.served() == number, args
    assert {run_script(*a, cwd=history).returncode for a in READING} == {0, 1, 2}


def test_writing_commands_answer_the_same_off_a_terminal(
    warm: Warm, history: Path, tmp_path: Path
) -> None:
    twin = tmp_path / "twin"
    shutil.copytree(history, twin, symlinks=True)
    steps = [
        (["record", "-m", "nothing"], None),
        (["record", "src/app.py", "-m", "second"], "print('again')\n"),
        (["record", "src/app.py", "--json"], "print('thrice')\n"),
        (["rollback", "--to", "1", "-y"], None),
        (["undo", "-y"], None),
        (["revert", "99"], None),  # exit 1
        (["milestone", "create", "--to", "latest", "--title", "m"], None),
    ]
    for args, content in steps:
        outputs = []
        for root, runner in ((history, run_script), (twin, local)):
            if content is not None:
                (root / "src" / "app.py").write_text(content)
            done = runner(*args, cwd=root)
            outputs.append((_steady(done.stdout, root), done.stderr, done.returncode))
        assert outputs[0] == outputs[1], args
    assert warm.served() == len(steps)
    assert latest(history) == latest(twin) == 5


def test_hook_warnings_answer_the_same(warm: Warm, history: Path) -> None:
    # What Claude Code reads of a hook (one JSON object on stdout, at exit 0) and the
    # line for logs (stderr), for input it cannot read, a misconfigured command, and an
    # edit left unrecorded by a busy store (the person and the model told).
    (history / "src" / "app.py").write_text("print('unrecorded')\n")
    edit = {
        "session_id": "s",
        "cwd": str(history),
        "hook_event_name": "PostToolUse",
        "tool_name": "Edit",
        "tool_input": {"file_path": str(history / "src" / "app.py")},
    }
    cases = [
        (["hook", "claude-code"], "{not json"),
        (["hook", "claude-code", "--bogus"], json.dumps(edit)),
        (["--timeout", "0.1", "hook", "claude-code"], json.dumps(edit)),
    ]
    with filelock.FileLock(str(history / ".snapline" / "lock")):
        for number, (args, text) in enumerate(cases, start=1):
            served = run_script(*args, cwd=history, input=text)
            alone = run_script(*args, cwd=history, input=text, env={"SNAPLINE_SERVER": "0"})
            assert (served.stdout, served.stderr, served.returncode) == (
                alone.stdout,
                alone.stderr,
                alone.returncode,
            ), args
            assert json.loads(served.stdout)["systemMessage"] + "\n" == served.stderr
            assert warm.served() == number, args
    assert latest(history) == 1


def test_an_edit_left_unrecorded_is_recorded_the_same_warm(
    warm: Warm, history: Path, tmp_path: Path
) -> None:
    # An edit a busy store kept the hook from recording is noted, and the next hook
    # records it as the Edit's: served warm (history) and run alone (its twin) alike.
    twin = tmp_path / "twin"
    shutil.copytree(history, twin, symlinks=True)
    answers: dict[Path, list[tuple[str, str, int]]] = {}
    for root, alone in ((history, {}), (twin, {"SNAPLINE_SERVER": "0"})):
        (root / "src" / "app.py").write_text("print('unrecorded')\n")
        edit = {
            "session_id": "s",
            "cwd": str(root),
            "hook_event_name": "PostToolUse",
            "tool_name": "Edit",
            "tool_use_id": "toolu_01",
            "tool_input": {"file_path": "src/app.py"},
        }
        with filelock.FileLock(str(root / ".snapline" / "lock")):
            post = run_script(
                "--timeout",
                "0.1",
                "hook",
                "claude-code",
                cwd=root,
                input=json.dumps(edit),
                env=alone,
            )
        edit.update(hook_event_name="PreToolUse", tool_use_id="toolu_02")
        pre = run_script("hook", "claude-code", cwd=root, input=json.dumps(edit), env=alone)
        answers[root] = [
            (
                done.stdout.replace(str(root), "ROOT"),
                done.stderr.replace(str(root), "ROOT"),
                done.returncode,
            )
            for done in (post, pre)
        ]
    assert answers[history] == answers[twin]
    assert "at your next tool call" in answers[history][0][0]
    assert answers[history][1] == ("", "", 0)  # the edit recorded, not refused
    assert warm.served() == 2
    for root in (history, twin):
        with Workspace.open(root) as ws:
            snapshot = ws.snapshot(ws.latest)
        assert (snapshot.number, snapshot.tool, snapshot.session) == (2, "Edit", "s")


def _steady(text: str, root: Path) -> str:
    # What differs between two workspaces by nature: their path, ids and times.
    text = text.replace(str(root), "ROOT")
    try:
        data = json.loads(text)
    except ValueError:
        return text
    for key in ("id", "parent_id", "time", "chain_hash"):
        data.pop(key, None)
    return json.dumps(data, sort_keys=True)


def _terminal(
    root: Path,
    args: list[str],
    answers: list[tuple[bytes, bytes]],
    env: dict[str, str],
    server: int | None = None,
) -> tuple[bytes, int]:
    """Run ``snapline ARGS`` as the controlling terminal's foreground process.

    Each answer is typed once the output ends with its cue and, for a prompt, once the
    process that asks waits in ``read`` on the terminal: CPython's ``input()`` checks
    for a signal only when its read is interrupted, so a Ctrl-C typed between the
    prompt and the read would wait for the next key, with or without a server.
    """
    main, child = pty.openpty()
    fcntl.ioctl(child, termios.TIOCSWINSZ, b"\x18\x00\x78\x00\x00\x00\x00\x00")  # 24 x 120

    def own_terminal() -> None:
        # A foreground job of an interactive shell: its terminal, and the terminal's
        # signals not ignored (a suite started in the background ignores SIGINT).
        fcntl.ioctl(0, termios.TIOCSCTTY, 0)
        for signum in (signal.SIGINT, signal.SIGQUIT):
            signal.signal(signum, signal.SIG_DFL)

    process = subprocess.Popen(
        [SCRIPT, *args],
        stdin=child,
        stdout=child,
        stderr=child,
        cwd=root,
        env={**os.environ, **env},
        start_new_session=True,
        preexec_fn=own_terminal,
    )
    os.close(child)
    output = b""
    pending = list(answers)
    end = time.monotonic() + GUARD
    while time.monotonic() < end:
        ready, _, _ = select.select([main], [], [], 1.0)
        if not ready:
            if process.poll() is not None:
                break
            continue
        try:
            chunk = os.read(main, 65536)
        except OSError:
            break
        if not chunk:
            break
        output += chunk
        if pending and output.endswith(pending[0][0]):
            if pending[0][0] == PROMPT:
                _wait_reading(_worker(server) if server else process.pid)
            os.write(main, pending.pop(0)[1])
    os.close(main)
    code = process.wait(timeout=GUARD)
    assert not pending, output.decode()
    return output, code


PROMPT = b"]: "
# The number of the read system call, which /proc/PID/syscall shows first.
_READ = {"x86_64": "0", "aarch64": "63"}[platform.machine()]


def _worker(server: int) -> int:
    children = Path(f"/proc/{server}/task/{server}/children").read_text().split()
    assert len(children) == 1, children
    return int(children[0])


def _wait_reading(pid: int) -> None:
    def reading() -> bool:
        words = Path(f"/proc/{pid}/syscall").read_text().split()
        return words[:2] == [_READ, "0x0"]

    wait_for(reading, f"process {pid} reads its terminal")


def _tries(run: Callable[[], tuple[bytes, int]], says: bytes) -> tuple[bytes, int]:
    # A Ctrl-C typed at the prompt ended once, in a full run of the suite and without
    # the server, as "Aborted!" with its output cut at "^C" (exit 1) instead of the
    # prompt's own "cancelled" (exit 0): a race of the terminal and CPython's input(),
    # the same with or without a server. Each side gets three tries to show what the
    # case expects; every other case shows it the first time.
    for _ in range(3):
        result = run()
        if says in result[0]:
            return result
    return result


COLOUR = {"TERM": "xterm-256color", "COLUMNS": "120"}


@pytest.mark.parametrize(
    ("args", "answers", "says"),
    [
        (["log"], [], b"\x1b["),  # coloured, as on a terminal
        (["status"], [], b"\x1b["),
        (["show", "1"], [], b"\x1b["),
        (["show", "99"], [], b"there is no snapshot 99"),
        # click writes its prompt's last space through input(" "): once it is out, the
        # process reads, and the terminal's echo of the answer comes after it.
        (["rollback", "--to", "0"], [(PROMPT, b"n\n")], b"[y/N]"),  # the preview, answered no
        (["rollback", "--to", "0"], [(PROMPT, b"\x03")], b"^C\r\ncancelled"),  # Ctrl-C
        # `run` at a terminal runs in its own process (served: 0): the command it runs
        # may open /dev/tty, which only a process of the terminal's session can.
        (["run", "--", "sh", "-c", "echo hi > /dev/tty"], [], b"hi\r\n"),
        (["run", "--", "sh", "-c", "echo ready; sleep 600"], [(b"ready\r\n", b"\x03")], b"^C"),
    ],
)
def test_on_a_terminal_colour_prompts_and_ctrl_c_are_the_same(
    warm: Warm, history: Path, args: list[str], answers: list[tuple[bytes, bytes]], says: bytes
) -> None:
    env = {k: v for k, v in COLOUR.items()}
    alone = _tries(lambda: _terminal(history, args, answers, {**env, "SNAPLINE_SERVER": "0"}), says)
    before = warm.served()
    served = _tries(lambda: _terminal(history, args, answers, env, server=warm.pid), says)
    assert warm.served() - before in ((0,) if args[0] == "run" else (1, 2, 3))
    assert served == alone
    assert says in alone[0]
    assert latest(history) == 1  # nothing was rolled back


def _ignoring_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def test_a_signal_the_caller_ignores_stays_ignored_in_what_a_served_command_runs(
    warm: Warm, history: Path
) -> None:
    # Started from a shell's background (no job control), a process ignores SIGINT and
    # so does what it runs; a worker's own handlers must not undo that.
    args = [SCRIPT, "run", "--", "sh", "-c", "kill -INT $$; echo survived"]
    outcomes = []
    for env in ({}, {"SNAPLINE_SERVER": "0"}):
        done = subprocess.run(
            args,
            cwd=history,
            env={**os.environ, **env},
            capture_output=True,
            text=True,
            preexec_fn=_ignoring_sigint,
            timeout=GUARD,
            check=False,
        )
        outcomes.append((done.returncode, done.stdout, done.stderr))
    assert outcomes[0] == outcomes[1]
    assert "survived" in outcomes[1][1]
    assert warm.served() == 1
