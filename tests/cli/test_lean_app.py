"""A process turns only the command it runs into a click command (issue 16).

``app_for`` gives the typer application ``snapline ARGS`` runs with: a copy holding the
one command or group the arguments name, or the whole application when they name none.
The copy must behave as the whole would for that command: same help, same options,
same error handling.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from snapline.cli.app import app, app_for
from tests.cli.conftest import run_script


def _names(application: typer.Typer) -> list[str]:
    commands = application.registered_commands
    return [c.name or "" for c in commands] + [g.name or "" for g in application.registered_groups]


NAMES = _names(app)


@pytest.mark.parametrize("name", NAMES)
def test_each_command_alone_has_the_same_help(name: str) -> None:
    lean = app_for([name, "--help"])
    assert _names(lean) == [name]
    runner = CliRunner()
    alone = runner.invoke(lean, [name, "--help"], prog_name="snapline")
    whole = runner.invoke(app, [name, "--help"], prog_name="snapline")
    assert alone.exit_code == whole.exit_code == 0
    assert alone.output == whole.output
    assert f"Usage: snapline {name}" in alone.output


def test_the_whole_application_keeps_all_its_commands() -> None:
    lean = app_for(["log"])
    assert lean is not app
    assert sorted(_names(app)) == sorted(NAMES) and len(NAMES) > 20


@pytest.mark.parametrize(
    "args",
    [
        ["--root", "x", "log", "-n", "1"],
        ["--root=x", "--timeout", "3", "--debug", "log"],
        ["--timeout=0.5", "log", "--root"],
    ],
)
def test_root_options_come_before_the_command(args: list[str]) -> None:
    assert _names(app_for(args)) == ["log"]


@pytest.mark.parametrize(
    "args",
    [[], ["--help"], ["-h"], ["--version"], ["nosuch"], ["--root"], ["--bogus", "log"]],
)
def test_anything_else_gets_the_whole_application(args: list[str]) -> None:
    assert app_for(args) is app


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
