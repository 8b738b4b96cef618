"""The Stop-hook recipe of docs/integrations.md, taken from the page and run as Claude Code runs it.

Claude Code runs a ``Stop`` hook's command through a shell with the event JSON on stdin;
exit 2 blocks the stop and hands the hook's stderr to the model, which goes on working;
any other non-zero code is a non-blocking error shown to the person. So the recipe may
exit 2 only for what the model can fix (its own change failed the check), never for an
outside edit that waits for the person: a model must never be told to record a
person's change. The command is read from the page, so the page cannot drift from this.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from snapline import Workspace
from tests.hosts.conftest import env, event

INTEGRATIONS = Path(__file__).resolve().parents[2] / "docs" / "integrations.md"
_DOC_SNAPLINE = "/home/me/.venv/bin/snapline"
_PASSING = "def test_ok():\n    assert True\n"
_FAILING = "def test_ok():\n    assert False, 'the agent broke it'\n"


def _recipe() -> str:
    """The Stop hook's command, exactly as the page's settings block spells it."""
    text = INTEGRATIONS.read_text(encoding="utf-8")
    section = text.split("### A test guard after each turn (Stop hook)", 1)[1]
    block = re.search(r"```json\n(.*?)```", section, re.DOTALL)
    assert block is not None, "the Stop hook section has no settings block"
    settings = json.loads(block.group(1))
    command = settings["hooks"]["Stop"][0]["hooks"][0]["command"]
    assert isinstance(command, str) and _DOC_SNAPLINE in command
    return command


def _stop(project: Path) -> subprocess.CompletedProcess[str]:
    """Run the recipe in ``project`` with a Stop event on stdin, through ``sh -c``."""
    bin_dir = Path(sys.executable).parent
    command = _recipe().replace(_DOC_SNAPLINE, str(bin_dir / "snapline"))
    stop = event("Stop", project, stop_hook_active=False)
    return subprocess.run(
        ["sh", "-c", command],
        input=json.dumps(stop),
        cwd=project,
        env=env(PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}", PYTHONDONTWRITEBYTECODE="1"),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _project(root: Path, test_text: str) -> Path:
    (root / ".gitignore").write_text("__pycache__/\n.pytest_cache/\n")
    (root / "test_app.py").write_text(_PASSING)
    Workspace.init(root).close()
    with Workspace.open(root) as ws:
        ws.write_file("test_app.py", test_text, tool="Edit", session="sess-1")
    return root


def test_a_pending_outside_edit_goes_to_the_person_never_blocks_the_model(root: Path) -> None:
    project = _project(root, _FAILING)
    (project / "test_app.py").write_text(_PASSING + "# the person's edit\n")

    done = _stop(project)

    # Not 2: the model is not kept working on, nor told to resync, a person's change.
    assert done.returncode not in (0, 2), done
    assert '"decision"' not in done.stdout
    assert "resync" in done.stderr  # the person is told the way out
    with Workspace.open(project) as ws:
        assert ws.latest == 1  # nothing recorded, nothing rolled back
        assert ws.check_outcomes() == {}
    assert (project / "test_app.py").read_text().endswith("# the person's edit\n")


def test_a_failing_check_blocks_the_stop_with_the_check_output(root: Path) -> None:
    project = _project(root, _FAILING)

    done = _stop(project)

    assert done.returncode == 2, done
    assert "the agent broke it" in done.stderr  # the test output, for the model
    assert '"passed": false' in done.stderr
    # Rolled back to the last snapshot that passed: none did, so the files stay.
    assert (project / "test_app.py").read_text() == _FAILING


def test_a_passing_check_lets_the_agent_stop(root: Path) -> None:
    project = _project(root, _PASSING + "\n")

    done = _stop(project)

    assert (done.returncode, done.stdout) == (0, ""), done
    with Workspace.open(project) as ws:
        assert [o.outcome.value for o in ws.check_outcomes().values()] == ["pass"]
