"""``guard --rollback``: back to the last pass of the same check, never silently past others' work.

Two sessions and a person share one workspace. The guard's rollback must go back to the
last snapshot that passed *this* check (the same command line), and must not take out a
person's edit (``resync``) or another session's snapshots without saying so: off a
terminal it refuses (exit 1) and names them, on one it shows rollback's preview and asks
[y/N]. Every step is the real console script; the terminal is a real pty.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from snapline import Workspace
from tests.cli.conftest import run_script
from tests.cli.test_preview import _terminal

# Passes while a.txt holds no "bug"; the other check passes always.
CHECK = [sys.executable, "-c", "import sys; sys.exit('bug' in open('a.txt').read())"]
OTHER = [sys.executable, "-c", "pass"]


def snapline(root: Path, *args: str) -> tuple[int, str, str]:
    done = run_script("--root", str(root), *args, cwd=root)
    return done.returncode, done.stdout, done.stderr


def record(root: Path, name: str, text: str, *args: str) -> None:
    (root / name).write_text(text)
    code, _, err = snapline(root, "record", name, *args)
    assert code == 0, err


def latest(root: Path) -> int:
    with Workspace.open(root) as ws:
        return ws.latest


@pytest.fixture
def project(root: Path) -> Path:
    (root / "a.txt").write_text("v0\n")
    Workspace.init(root).close()
    return root


def test_it_goes_back_to_the_last_pass_of_the_same_check(project: Path) -> None:
    record(project, "a.txt", "v1\n")  # 1: passes CHECK
    assert snapline(project, "guard", "--", *CHECK)[0] == 0
    record(project, "a.txt", "v2 bug\n")  # 2: passes only the other check
    assert snapline(project, "guard", "--", *OTHER)[0] == 0
    record(project, "a.txt", "v3 bug\n")  # 3
    code, _, err = snapline(project, "guard", "--rollback", "--", *CHECK)
    assert code == 1
    assert "rolled back to snapshot 1, the last that passed this check, as snapshot 4" in err
    assert (project / "a.txt").read_text() == "v1\n"


@pytest.fixture
def shared(project: Path) -> Path:
    """Snapshot 1 (s1) passes; 2 is a person's edit; 3 is session s2's; 4 (s1) breaks."""
    record(project, "a.txt", "v1\n", "--session", "s1")
    assert snapline(project, "guard", "--session", "s1", "--", *CHECK)[0] == 0
    (project / "notes.txt").write_text("by hand\n")
    code, _, err = snapline(project, "resync", "-m", "edited by hand")
    assert code == 0, err
    record(project, "b.txt", "from s2\n", "--tool", "edit", "--session", "s2")
    record(project, "a.txt", "v2 bug\n", "--session", "s1")
    assert latest(project) == 4
    return project


def _untouched(root: Path) -> None:
    assert latest(root) == 4
    assert (root / "a.txt").read_text() == "v2 bug\n"
    assert (root / "notes.txt").read_text() == "by hand\n"
    assert (root / "b.txt").read_text() == "from s2\n"


@pytest.mark.parametrize("session", [["--session", "s1"], []])
def test_off_a_terminal_it_refuses_to_take_out_others_work_and_names_it(
    shared: Path, session: list[str]
) -> None:
    # Without --session, the session is the failing snapshot's own (s1).
    code, _, err = snapline(shared, "guard", "--rollback", *session, "--", *CHECK)
    assert code == 1
    _untouched(shared)
    assert "snapshot 4 failed" in err
    assert "not rolled back to snapshot 1, the last that passed this check" in err
    assert (
        "snapshot 2 (external): a change made outside snapline (a person's edit): notes.txt" in err
    )
    assert "snapshot 3 (edit): session s2, not s1: b.txt" in err
    assert "`snapline rollback --to 1`" in err and "--force" in err
    assert "snapshot 4 (" not in err  # s1's own work is not named

    code, out, _ = snapline(shared, "guard", "--rollback", "--json", *session, "--", *CHECK)
    assert code == 1
    result = json.loads(out)
    assert (result["last_pass"], result["rollback"]) == (1, None)
    assert [(h["number"], h["session"], h["files"]) for h in result["held"]] == [
        (2, None, ["notes.txt"]),
        (3, "s2", ["b.txt"]),
    ]
    _untouched(shared)

    code, _, err = snapline(shared, "guard", "--rollback", "--force", *session, "--", *CHECK)
    assert code == 1
    assert "rolled back to snapshot 1, the last that passed this check, as snapshot 5" in err
    assert not (shared / "notes.txt").exists() and not (shared / "b.txt").exists()
    assert (shared / "a.txt").read_text() == "v1\n"


def test_another_session_guarding_counts_the_failing_snapshot_as_not_its_own(
    shared: Path,
) -> None:
    code, _, err = snapline(shared, "guard", "--rollback", "--session", "s2", "--", *CHECK)
    assert code == 1
    assert "snapshot 4 (record): session s1, not s2: a.txt" in err
    _untouched(shared)


def test_on_a_terminal_it_shows_the_preview_and_asks(shared: Path) -> None:
    args = ["--root", str(shared), "guard", "--rollback", "--", *CHECK]
    output, code = _terminal(shared, args, ["n"])
    assert code == 1, output
    assert "also takes out work that is not this session's" in output
    assert "snapshot 2 (external)" in output and "snapshot 3 (edit)" in output
    assert "rolling back to snapshot 1 will change 3 paths" in output
    assert "Roll back to snapshot 1? [y/N]" in output
    assert "nothing rolled back; `snapline rollback --to 1` when you want it" in output
    _untouched(shared)

    output, code = _terminal(shared, args, ["y"])
    assert code == 1, output
    assert "rolled back to snapshot 1, the last that passed this check, as snapshot 5" in output
    assert (shared / "a.txt").read_text() == "v1\n"
    assert not (shared / "notes.txt").exists()
