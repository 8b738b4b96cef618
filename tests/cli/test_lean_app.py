"""A process turns only the command it runs into a click command (issue 16).

``app_for`` gives the typer application ``snapline ARGS`` runs with: a copy holding the
one command or group the arguments name, or the whole application when they name none.
The copy must behave as the whole would for that command: same help, same options,
same error handling.
"""

from __future__ import annotations

from pathlib import Path

import click
import pytest
import typer

from snapline.cli.app import app, app_for
from tests.cli.conftest import run_script
from tests.cli_runner import CliRunner


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


@pytest.mark.parametrize("args", [["nosuch"], ["nosuch", "--help"], ["--debug", "nosuch"]])
def test_a_name_that_is_no_command_gets_the_whole_application(args: list[str]) -> None:
    assert app_for(args) is app


WITHOUT_A_COMMAND = [
    [],
    ["--help"],
    ["-h"],
    ["--version"],
    ["--root"],
    ["--root", ".", "--help"],
    ["--timeout", "3", "-h"],
    ["--debug"],
    ["--bogus", "log"],
]


@pytest.mark.parametrize("args", WITHOUT_A_COMMAND)
def test_without_a_command_the_listing_answers_as_the_whole_does(args: list[str]) -> None:
    listing = app_for(args)
    runner = CliRunner()
    got = runner.invoke(listing, args, prog_name="snapline")
    want = runner.invoke(app, args, prog_name="snapline")

    assert listing is not app and sorted(_names(listing)) == sorted(NAMES)
    assert got.exit_code == want.exit_code
    assert got.output == want.output


def _leaves(command: click.Command) -> dict[str, click.Command]:
    if not isinstance(command, click.Group):
        return {command.name or "": command}
    found: dict[str, click.Command] = {}
    for name, sub in command.commands.items():
        found.update({f"{name} {leaf}".strip(): c for leaf, c in _leaves(sub).items()})
    return found


def test_the_listing_builds_no_parameters_for_its_commands() -> None:
    whole = _leaves(typer.main.get_command(app))
    listed = _leaves(typer.main.get_command(app_for(["--help"])))

    assert sorted(listed) == sorted(whole)
    assert all(not command.params for command in listed.values())
    assert sum(bool(command.params) for command in whole.values()) > 20
    assert {n: c.help for n, c in listed.items()} == {n: c.help for n, c in whole.items()}


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
