"""The rollback preview, its [y/N] and the picker, driven through a pseudo-terminal.

A person at a terminal sees what a restore will change and answers; a script, CI or an
agent (no terminal, --yes, --json, --dry-run) sees nothing new. Each case runs the real
console script on the slave side of a pty, as a terminal would, and types the answers.
"""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from snapline import Workspace
from tests.cli.conftest import run_script

SCRIPT = str(Path(sys.executable).with_name("snapline"))
_DEADLINE = 120.0  # seconds: a bound on a hung process, never a measurement


def _terminal(root: Path, args: list[str], answers: list[str]) -> tuple[str, int]:
    """Run ``snapline ARGS`` on a pty; type each answer when a prompt ends the output."""
    main, child = pty.openpty()
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "200"}
    process = subprocess.Popen(
        [SCRIPT, *args], stdin=child, stdout=child, stderr=child, cwd=root, env=env
    )
    os.close(child)
    output = b""
    pending = list(answers)
    end = time.monotonic() + _DEADLINE
    while time.monotonic() < end:
        ready, _, _ = select.select([main], [], [], 1.0)
        if not ready:
            if process.poll() is not None:
                break
            continue
        try:
            chunk = os.read(main, 65536)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        output += chunk
        if pending and output.rstrip().endswith((b"]:", b"cancel):")):
            os.write(main, pending.pop(0).encode() + b"\n")
    os.close(main)
    code = process.wait(timeout=_DEADLINE)
    assert not pending, output.decode()
    return output.decode().replace("\r\n", "\n"), code


@pytest.fixture
def history(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "a.txt").write_text("one\n")
    (root / "keep.txt").write_text("keep\n")
    Workspace.init(root).close()
    (root / "pkg" / "a.txt").write_text("one\ntwo\nthree\n")
    (root / "pkg" / "b.txt").write_text("b\n")
    assert run_script("record", "-m", "more", cwd=root).returncode == 0
    assert (
        run_script("milestone", "create", "--title", "m1", "--to", "latest", cwd=root).returncode
        == 0
    )
    return root


def _latest(root: Path) -> int:
    with Workspace.open(root) as ws:
        return ws.latest


def test_no_leaves_everything_as_it_was(history: Path) -> None:
    output, code = _terminal(history, ["rollback", "--to", "0"], ["n"])
    assert code == 0
    assert "rolling back to snapshot 0 will change 2 paths" in output
    assert "pkg/a.txt |    2 --" in output
    assert "2 files changed, 0 insertions(+), 3 deletions(-)" in output
    assert "Roll back to snapshot 0? [y/N]" in output
    assert "cancelled: nothing changed" in output
    assert (history / "pkg" / "b.txt").exists()
    assert _latest(history) == 1


def test_yes_rolls_back_and_the_whole_diff_is_shown_first(history: Path) -> None:
    output, code = _terminal(history, ["rollback", "--to", "0", "--diff"], ["y"])
    assert code == 0, output
    assert "-two\n" in output and "+++ b/pkg/a.txt" in output
    assert "rolled back to snapshot 0 as snapshot 2" in output
    assert not (history / "pkg" / "b.txt").exists()
    assert (history / "pkg" / "a.txt").read_text() == "one\n"


def test_the_picker_offers_snapshots_and_milestones(history: Path) -> None:
    output, code = _terminal(history, ["rollback"], ["0", "y"])
    assert code == 0, output
    assert "recent snapshots" in output and "m1" in output and "more" in output
    assert "rolled back to snapshot 0" in output
    assert _latest(history) == 2
    output, code = _terminal(history, ["rollback"], [""])
    assert code == 0 and "cancelled: nothing changed" in output
    assert _latest(history) == 2


@pytest.mark.parametrize(
    ("args", "question"),
    [
        (["undo"], "Roll back to snapshot 0?"),
        (["revert", "1"], "Revert snapshot 1?"),
        (["milestone", "rollback", "1"], "Roll back to snapshot 0?"),
    ],
)
def test_every_restore_asks_on_a_terminal(history: Path, args: list[str], question: str) -> None:
    output, code = _terminal(history, args, ["n"])
    assert code == 0 and question in output and "cancelled" in output
    assert _latest(history) == 1
    output, code = _terminal(history, args, ["y"])
    assert code == 0, output
    assert _latest(history) == 2
    assert not (history / "pkg" / "b.txt").exists()


def test_redo_asks_too(history: Path) -> None:
    assert run_script("undo", cwd=history).returncode == 0
    output, code = _terminal(history, ["redo"], ["y"])
    assert code == 0 and "[y/N]" in output, output
    assert (history / "pkg" / "b.txt").read_text() == "b\n"


@pytest.mark.parametrize("flag", ["--yes", "--json", "--dry-run"])
def test_yes_json_and_dry_run_never_ask(history: Path, flag: str) -> None:
    output, code = _terminal(history, ["rollback", "--to", "0", flag], [])
    assert code == 0, output
    assert "[y/N]" not in output
    assert _latest(history) == (1 if flag == "--dry-run" else 2)


def test_off_a_terminal_nothing_changes_from_before(history: Path) -> None:
    missing = run_script("rollback", cwd=history)
    assert missing.returncode == 2
    assert "Missing option '--to'" in missing.stderr
    done = subprocess.run(
        [SCRIPT, "rollback", "--to", "0"],
        cwd=history,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0 and "[y/N]" not in done.stdout
    assert _latest(history) == 2


def test_m1_in_the_picker_is_the_state_milestone_rollback_1_goes_to(history: Path) -> None:
    # milestone rollback 1 goes back to just before milestone 1 (snapshot first - 1 = 0).
    output, code = _terminal(history, ["milestone", "rollback", "1"], ["y"])
    assert code == 0 and "Roll back to snapshot 0?" in output, output
    by_milestone = sorted(p.relative_to(history) for p in history.rglob("*.txt"))
    assert run_script("undo", "--yes", cwd=history).returncode == 0

    output, code = _terminal(history, ["rollback"], ["m1", "y"])
    assert code == 0, output
    assert "m<M> goes back to just before milestone M" in output
    assert "Roll back to snapshot 0?" in output
    assert sorted(p.relative_to(history) for p in history.rglob("*.txt")) == by_milestone
