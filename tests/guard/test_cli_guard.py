"""``snapline guard`` as a user runs it: a real test suite (pytest), a real failure, then undo.

The oracle is pytest itself: what it says of the files on disk before the guard, after
its rollback, and after ``snapline undo``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from snapline import Workspace
from tests.cli.conftest import run_script

GOOD = "def add(a, b):\n    return a + b\n"
BETTER = "def add(a, b):\n    return a + b\n\n\ndef double(a):\n    return add(a, a)\n"
BROKEN = "def add(a, b):\n    return a - b\n\n\ndef double(a):\n    return add(a, a)\n"
TESTS = "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"
# -B: no bytecode, since calc.py is rewritten within a second at the same size (a stale
# .pyc would run the old code).
PYTEST = [sys.executable, "-B", "-m", "pytest", "-q", "-p", "no:cacheprovider"]


@pytest.fixture
def project(root: Path) -> Path:
    """A small python project whose one test passes on its baseline."""
    (root / "calc.py").write_text(GOOD)
    (root / "test_calc.py").write_text(TESTS)
    (root / ".gitignore").write_text("__pycache__/\n")
    Workspace.init(root).close()
    return root


def checks_recorded(root: Path) -> int:
    """How many check records the history holds: commits on its checks refs (plain git)."""
    repo = str(root / ".snapline" / "repo")
    done = subprocess.run(
        ["git", "--git-dir", repo, "rev-list", "--count", "--glob=refs/snapline/checks/*"],
        capture_output=True,
        text=True,
        check=True,
    )
    return int(done.stdout)


def snapline(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run_script("--root", str(root), *args, cwd=root)


def pytest_passes(root: Path) -> bool:
    done = subprocess.run(PYTEST, cwd=root, capture_output=True, text=True, check=False)
    return done.returncode == 0


def log(root: Path) -> dict[int, Any]:
    done = snapline(root, "log", "--json")
    assert done.returncode == 0, done.stderr
    return {entry["number"]: entry["check"] for entry in json.loads(done.stdout)}


def test_a_failing_test_run_rolls_back_to_the_last_pass_and_undo_brings_it_back(
    project: Path,
) -> None:
    (project / "calc.py").write_text(BETTER)
    assert snapline(project, "record", "-m", "double").returncode == 0  # snapshot 1
    passed = snapline(project, "guard", "--", *PYTEST)
    assert passed.returncode == 0, passed.stderr
    assert "1 passed" in passed.stdout  # the check's own output passes through
    assert "snapshot 1 passed" in passed.stderr

    (project / "calc.py").write_text(BROKEN)
    assert snapline(project, "record", "-m", "break add").returncode == 0  # snapshot 2
    assert not pytest_passes(project)
    failed = snapline(project, "guard", "--rollback", "--", *PYTEST)
    assert failed.returncode == 1, failed.stderr
    assert "1 failed" in failed.stdout
    assert "snapshot 2 failed" in failed.stderr
    assert (
        "rolled back to snapshot 1, the last that passed this check, as snapshot 3" in failed.stderr
    )
    assert (project / "calc.py").read_text() == BETTER
    assert pytest_passes(project)

    checks = log(project)
    assert checks[1]["outcome"] == "pass"
    assert checks[1]["exit_code"] == 0
    assert checks[1]["command"] == PYTEST
    assert checks[2]["outcome"] == "fail"
    assert checks[2]["exit_code"] == 1
    assert checks[0] is None and checks[3] is None  # never checked
    shown = json.loads(snapline(project, "show", "3", "--json").stdout)
    assert shown["tool"] == "guard"
    assert shown["metadata"]["guard"]["failed"] == 2

    undone = snapline(project, "undo")
    assert undone.returncode == 0, undone.stderr
    assert (project / "calc.py").read_text() == BROKEN
    assert not pytest_passes(project)
    assert snapline(project, "verify").returncode == 0


def test_without_a_snapshot_that_ever_passed_nothing_is_rolled_back(project: Path) -> None:
    (project / "calc.py").write_text(BROKEN)
    assert snapline(project, "record").returncode == 0
    failed = snapline(project, "guard", "--rollback", "--", *PYTEST)
    assert failed.returncode == 1
    said = [line for line in failed.stderr.splitlines() if line.startswith("snapline:")]
    assert said == [
        f"snapline: snapshot 1 failed {' '.join(PYTEST)} (exit 1)",
        "snapline: no earlier snapshot passed this check: nothing rolled back",
    ]
    assert (project / "calc.py").read_text() == BROKEN
    with Workspace.open(project) as ws:
        assert ws.latest == 1


def test_log_show_and_the_review_page_show_pass_and_fail(project: Path, tmp_path: Path) -> None:
    assert snapline(project, "guard", "--", *PYTEST).returncode == 0
    (project / "calc.py").write_text(BROKEN)
    assert snapline(project, "record", "-m", "break").returncode == 0
    assert snapline(project, "guard", "--session", "s9", "--", *PYTEST).returncode == 1

    lines = snapline(project, "log").stdout.splitlines()
    assert lines[0].split()[0] == "1" and lines[0].endswith("FAILED")
    assert lines[1].split()[0] == "0" and lines[1].endswith("passed")
    shown = snapline(project, "show", "1").stdout
    assert f"check:     failed: {' '.join(PYTEST)} (exit 1, " in shown
    as_json = json.loads(snapline(project, "show", "1", "--json").stdout)
    assert (as_json["check"]["outcome"], as_json["check"]["session"]) == ("fail", "s9")

    page = tmp_path / "page.html"
    assert snapline(project, "report", "-o", str(page)).returncode == 0
    html = page.read_text()
    assert html.count('<span class="check fail"') == 1  # the baseline is not on the page
    assert 'id="s-1"' in html


def test_exit_codes_and_what_is_recorded(project: Path) -> None:
    # A check that fails with a code of snapline's own (3: a damaged store) still
    # makes guard exit 1; the record keeps the check's own code.
    three = snapline(project, "guard", "--", sys.executable, "-c", "raise SystemExit(3)")
    assert three.returncode == 1
    assert log(project)[0]["exit_code"] == 3
    assert checks_recorded(project) == 1

    missing = snapline(project, "guard", "--", "no-such-command-snapline")
    assert missing.returncode == 127
    assert len(missing.stderr.strip().splitlines()) == 1
    usage = snapline(project, "guard")
    assert usage.returncode == 2

    (project / "calc.py").write_text(BROKEN)  # not recorded: the check would not be of a snapshot
    drift = snapline(project, "guard", "--", sys.executable, "-c", "pass")
    assert drift.returncode == 1
    assert "calc.py was changed outside snapline" in drift.stderr
    assert checks_recorded(project) == 1  # neither of the three recorded anything


def test_json_keeps_stdout_for_the_result(project: Path) -> None:
    done = snapline(project, "guard", "--json", "--", sys.executable, "-c", "print('hello')")
    assert done.returncode == 0
    result = json.loads(done.stdout)
    assert "hello" in done.stderr
    assert result["passed"] is True
    assert result["check"]["snapshot"] == 0
    assert result["check"]["record"].endswith(".check")
    assert (result["last_pass"], result["rollback"]) == (None, None)


def test_the_documented_stop_hook_rolls_back_and_blocks_with_the_reason(project: Path) -> None:
    # The command exactly as docs/integrations.md gives it, run through a shell as
    # Claude Code runs a hook command; only the paths of snapline and python differ.
    text = (Path(__file__).resolve().parents[2] / "docs" / "integrations.md").read_text()
    block = text.split('"Stop": [', 1)[1]
    line = block.split('"command": ', 1)[1].split("\n", 1)[0].rstrip(",")
    command = json.loads(line)
    assert "/home/me/.venv/bin/snapline guard --json --rollback -- python -m pytest" in command
    script = Path(sys.executable).with_name("snapline")
    command = command.replace("/home/me/.venv/bin/snapline", f"{script} --root {project}")
    command = command.replace("python -m pytest", f"{sys.executable} -m pytest -p no:cacheprovider")
    event = json.dumps({"hook_event_name": "Stop", "stop_hook_active": False})

    def hook() -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["sh", "-c", command], cwd=project, input=event, capture_output=True, text=True
        )

    passed = hook()
    assert passed.returncode == 0, passed.stderr
    (project / "calc.py").write_text(BROKEN)
    assert snapline(project, "record").returncode == 0
    blocked = hook()
    assert blocked.returncode == 2  # Claude Code's "blocking": stderr goes to the model
    assert blocked.stdout == ""
    assert "1 failed" in blocked.stderr  # the test output, on stderr with --json
    # Then guard's JSON, for the model: rolled back to 0, the last that passed, as 2.
    result = json.loads(blocked.stderr[blocked.stderr.index("\n{\n") :])
    assert (result["passed"], result["last_pass"]) == (False, 0)
    assert result["rollback"]["snapshot"]["number"] == 2
    assert (project / "calc.py").read_text() == GOOD


@pytest.mark.parametrize("what", ["deleted", "replaced"])
def test_a_check_that_deletes_or_replaces_the_store_fails_and_writes_nothing(
    project: Path, tmp_path: Path, what: str
) -> None:
    # As `run -- rm -rf .snapline` does (exit 3, nothing recorded): the outcome has no
    # store to go to, so the check is not reported passed, and no record is written
    # into a `.snapline/` that the check removed (which would leave a stray directory
    # that `status` calls no store and `init` calls a store).
    copy = tmp_path / "copy"
    script = {
        "deleted": "rm -rf .snapline",
        # Moved aside, not deleted: a deleted directory's inode may be reused at once by
        # the copy, which would then be the same store by (device, inode).
        "replaced": f"mv .snapline {copy} && cp -r {copy} .snapline",
    }[what]
    done = snapline(project, "guard", "--", "sh", "-c", script)
    assert done.returncode == 3, done.stderr
    assert "passed" not in done.stderr
    said = done.stderr.strip().splitlines()
    assert len(said) == 1 and f"was {what} during the operation" in said[0]
    if what == "deleted":
        assert not (project / ".snapline").exists()
        status = snapline(project, "status")
        assert "no snapline history" in status.stderr
        assert snapline(project, "init").returncode == 0
    else:
        assert checks_recorded(project) == 0  # (it read an in-tree folder refs never have)
        assert snapline(project, "verify").returncode == 0
        assert log(project)[0] is None
    as_json = snapline(project, "guard", "--json", "--", "sh", "-c", "rm -rf .snapline")
    assert as_json.returncode == 3
    assert json.loads(as_json.stdout)["kind"] == "StoreVanishedError"
