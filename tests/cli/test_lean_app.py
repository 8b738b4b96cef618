"""A process imports only the command it runs (issues 16 and 39).

The root group is lazy: ``--help``, a usage error and shell completion read the table of
commands (``cli/commands.py``); running a command imports its one module and turns only
that command into a click command. Each case runs the console script's entry point in
its own process and reports which command modules it imported.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from snapline.cli.commands import COMMANDS
from tests.cli.conftest import run_script

MODULES = sorted({f"snapline.cli.{row.module}" for row in COMMANDS})

_PROBE = """
import json, sys
wanted = json.loads(sys.argv[2])
sys.argv = ["snapline", *json.loads(sys.argv[1])]
from snapline.cli import main
try:
    main()
except SystemExit as exit:
    code = exit.code
else:
    code = 0
print()
print(json.dumps([code, sorted(m for m in wanted if m in sys.modules)]))
"""


def _imported(
    args: list[str], cwd: Path, env: dict[str, str] | None = None
) -> tuple[int, list[str]]:
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, json.dumps(args), json.dumps(MODULES)],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    code, modules = json.loads(done.stdout.strip().splitlines()[-1])
    return code, modules


@pytest.mark.parametrize(
    "args", [["--help"], [], ["--root", ".", "-h"], ["--bogus"], ["nosuch"], ["lgo", "-n", "1"]]
)
def test_the_listing_and_its_usage_errors_import_no_command(
    args: list[str], tmp_path: Path
) -> None:
    code, modules = _imported(args, tmp_path)
    assert code in (0, 2)
    assert modules == []


@pytest.mark.parametrize(
    ("args", "module"),
    [
        (["log", "--help"], "history"),
        (["--root", "x", "--timeout=3", "--debug", "log", "-h"], "history"),
        (["milestone", "create", "--help"], "milestones"),
        (["hook", "--help"], "integrate"),
        (["run", "--help"], "recording"),
        (["guard", "--help"], "guard"),
    ],
)
def test_a_command_imports_its_own_module_alone(
    args: list[str], module: str, tmp_path: Path
) -> None:
    # Its module, and the command modules that module imports itself (milestone's
    # rollback takes restore's options), no other.
    alone = subprocess.run(
        [sys.executable, "-c", f"import sys, snapline.cli.{module}; print(*sys.modules)"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    code, modules = _imported(args, tmp_path)
    assert code == 0
    assert f"snapline.cli.{module}" in modules
    assert modules == [name for name in MODULES if name in alone]
    assert len(modules) < len(MODULES) / 2


def test_completing_a_command_name_imports_no_command(tmp_path: Path) -> None:
    env = {"_SNAPLINE_COMPLETE": "complete_bash", "COMP_WORDS": "snapline r", "COMP_CWORD": "1"}
    code, modules = _imported([], tmp_path, env={**os.environ, **env})
    assert code == 0
    assert modules == []


def test_a_command_run_alone_maps_its_errors_as_the_whole_does(project: Path) -> None:
    (project / "README.md").write_text("# changed\n")
    recorded = run_script("--root", str(project), "record", "README.md", "-m", "x", cwd=project)
    assert recorded.returncode == 0, recorded.stderr
    listed = run_script("--root", str(project), "log", "--json", cwd=project.parent)
    assert listed.returncode == 0, listed.stderr
    assert '"number": 1' in listed.stdout
    missing = run_script("show", "99", cwd=project)
    assert missing.returncode == 1
    assert "Traceback" not in missing.stderr and "99" in missing.stderr
    usage = run_script("log", "--no-such-option", cwd=project)
    assert usage.returncode == 2 and "No such option" in usage.stderr
    typo = run_script("lgo", cwd=project)
    assert typo.returncode == 2 and "Did you mean 'log'?" in typo.stderr
