"""The command line as a whole: help, discovery, global options, errors and lazy imports."""

from __future__ import annotations

import json
import os
import shlex
import sqlite3
import subprocess
import sys
from pathlib import Path

import filelock
import pytest
import typer

import snapline
from snapline import Workspace
from snapline.cli import click_api as click
from snapline.cli.app import app
from snapline.cli.errors import EXIT_INTERNAL
from snapline.cli.output import color_enabled, github_annotation
from snapline.cli.usage import shown
from tests.cli.conftest import Invoke, as_json, damage_line_ref, run_script
from tests.cli_runner import CliRunner

# What `snapline --help` must not load (STYLE habit 12, measured in the benchmark).
HEAVY = ("diff_match_patch", "pydantic", "sqlite3", "rich", "rich.table", "snapline.workspace")


def test_help_lists_every_command(cli: Invoke) -> None:
    result = cli("--help")
    assert result.exit_code == 0
    for command in (
        "init", "status", "record", "run", "log", "show", "diff", "rollback", "revert",
        "resync", "milestone", "verify", "gc",
    ):  # fmt: skip
        assert f"  {command} " in result.stdout
    assert "Exit codes" in result.stdout


def test_help_imports_nothing_heavy() -> None:
    # Exactly what the console script does: `snapline.cli:main` with sys.argv.
    probe = (
        "import sys\n"
        "sys.argv = ['snapline', '--help']\n"
        "from snapline.cli import main\n"
        "try:\n"
        "    main()\n"
        "except SystemExit as exit:\n"
        "    assert exit.code == 0, exit.code\n"
        f"print([m for m in {HEAVY!r} if m in sys.modules])\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    )
    assert "Usage: snapline" in result.stdout
    assert result.stdout.strip().splitlines()[-1] == "[]", result.stdout


def test_subcommand_help_imports_no_library() -> None:
    # typer itself coerces a subcommand's parameters with pydantic, so only the
    # root --help is pydantic-free; the store, the diff engine and rich stay unloaded.
    heavy = tuple(m for m in HEAVY if m != "pydantic")
    probe = (
        "import sys\n"
        "from snapline.cli.app import app\n"
        "for args in (['verify', '--help'], ['milestone', 'create', '--help']):\n"
        "    try:\n"
        "        app(args, prog_name='snapline')\n"
        "    except SystemExit:\n"
        "        pass\n"
        f"print([m for m in {heavy!r} if m in sys.modules])\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip().splitlines()[-1] == "[]"


def test_console_script_and_module_run(project: Path) -> None:
    script = run_script("status", "--json", cwd=project)
    assert script.returncode == 0, script.stderr
    assert json.loads(script.stdout)["latest"]["number"] == 0
    module = subprocess.run(
        [sys.executable, "-m", "snapline", "--version"],
        cwd=project,
        capture_output=True,
        text=True,
        check=False,
    )
    assert module.returncode == 0
    assert module.stdout.startswith("snapline ")


def test_version_loads_neither_typer_nor_the_store(project: Path) -> None:
    """``--version`` is answered before the typer app is built (issue 16)."""
    result = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "snapline", "--version"],
        cwd=project,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0 and result.stdout == f"snapline {snapline.__version__}\n"
    imported = {line.rsplit("|", 1)[-1].strip() for line in result.stderr.splitlines()}
    assert "snapline.cli.__init__" not in imported  # sanity: the list holds module names
    assert "snapline.cli" in imported
    assert not {"typer", "rich", "pydantic", "sqlite3"} & imported


def test_no_arguments_shows_help(cli: Invoke) -> None:
    result = cli()
    assert result.exit_code in (0, 2)
    assert "Usage:" in result.output


def test_usage_errors_exit_2(cli: Invoke, project: Path) -> None:
    assert cli("no-such-command").exit_code == 2
    assert cli("show", "not-a-number").exit_code == 2
    assert cli("rollback").exit_code == 2  # --to is required
    assert cli("verify", "--format", "xml").exit_code == 2
    assert cli("resync").exit_code == 2  # -m is required


def test_store_is_found_upwards_from_a_subdirectory(cli: Invoke, project: Path) -> None:
    os.chdir(project / "src")
    result = cli("status", "--json")
    assert result.exit_code == 0
    assert as_json(result)["root"] == str(project)


def test_root_option_overrides_discovery(cli: Invoke, project: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    os.chdir(elsewhere)
    assert cli("status").exit_code == 2
    result = cli("--root", str(project), "status", "--json")
    assert result.exit_code == 0
    assert as_json(result)["root"] == str(project)


def test_not_initialised_is_one_line_exit_2(cli: Invoke, root: Path) -> None:
    os.chdir(root)
    result = cli("log")
    assert result.exit_code == 2
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("snapline: error: ")
    assert "snapline init" in lines[0]
    assert "Traceback" not in result.output


def test_errors_never_show_a_traceback_without_debug(project: Path) -> None:
    quiet = run_script("show", "99", cwd=project)
    assert quiet.returncode == 1
    assert quiet.stderr.startswith("snapline: error: there is no snapshot 99")
    assert "Traceback" not in quiet.stderr
    loud = run_script("--debug", "show", "99", cwd=project)
    assert loud.returncode != 0
    assert "Traceback" in loud.stderr
    assert "SnapshotNotFoundError" in loud.stderr


def test_corrupt_store_exits_3(cli: Invoke, project: Path) -> None:
    # The refs are the history (a damaged local index is only rebuilt).
    damage_line_ref(project)
    result = cli("status")
    assert result.exit_code == 3
    assert result.stderr.startswith("snapline: error: snapline's ref refs/snapline/lines/")
    assert len(result.stderr.splitlines()) == 1
    assert "Traceback" not in result.output


def test_busy_store_exits_4(cli: Invoke, project: Path) -> None:
    (project / "README.md").write_text("# changed\n")
    with filelock.FileLock(str(project / ".snapline" / "lock")):
        result = cli("--timeout", "0.2", "record", "-m", "blocked")
    assert result.exit_code == 4
    assert "busy" in result.stderr
    assert len(result.stderr.splitlines()) == 1
    # The lock released, the same command goes through.
    assert cli("--timeout", "0.2", "record", "-m", "now").exit_code == 0


def test_busy_store_exits_4_across_processes(project: Path) -> None:
    (project / "README.md").write_text("# changed\n")
    with filelock.FileLock(str(project / ".snapline" / "lock")):
        result = run_script("--timeout", "0.3", "record", "-m", "blocked", cwd=project)
    assert result.returncode == 4, result.stderr
    assert result.stderr.startswith("snapline: error: the store at")


@pytest.mark.parametrize(
    ("error", "code", "line"),
    [
        (PermissionError(13, "Permission denied", "/x/y"), 1, "Permission denied: /x/y"),
        (OSError(28, "No space left on device"), 1, "No space left on device"),
        # Never a usage error (exit 2): the OS reported it while the command ran.
        (FileNotFoundError(2, "No such file or directory", "out.txt"), 1, "No such file"),
        (NotADirectoryError(20, "Not a directory", "a/b"), 1, "Not a directory: a/b"),
    ],
)
def test_os_errors_are_one_line(
    cli: Invoke,
    project: Path,
    monkeypatch: pytest.MonkeyPatch,
    error: OSError,
    code: int,
    line: str,
) -> None:
    def failing(self: Workspace, **kwargs: object) -> None:
        raise error

    monkeypatch.setattr(Workspace, "gc", failing)
    result = cli("gc")
    assert result.exit_code == code
    assert result.stderr.startswith("snapline: error: " + line)
    assert len(result.stderr.splitlines()) == 1


def test_unusable_lock_file_is_one_line(cli: Invoke, project: Path) -> None:
    lock = project / ".snapline" / "lock"
    lock.unlink(missing_ok=True)
    lock.mkdir()  # cannot be opened as a file, by root either
    (project / "README.md").write_text("# changed\n")
    result = cli("--timeout", "0.2", "record", "-m", "x")
    assert result.exit_code == 3  # an unusable store, not a usage error
    assert result.stderr.startswith("snapline: error: ")
    assert len(result.stderr.splitlines()) == 1


def test_internal_error_is_one_line_unless_debug(
    cli: Invoke, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(self: Workspace, **kwargs: object) -> None:
        raise ZeroDivisionError("boom")

    monkeypatch.setattr(Workspace, "gc", broken)
    result = cli("gc")
    assert result.exit_code == EXIT_INTERNAL == 70  # never 2 (usage) nor 1 (a check)
    assert result.stderr.startswith(
        "snapline: error: internal error (a bug in snapline): ZeroDivisionError: boom; "
    )
    assert "report it" in result.stderr and "--debug" in result.stderr
    assert len(result.stderr.splitlines()) == 1 and "Traceback" not in result.stderr
    # --debug: the traceback first, then the same line and the same exit code.
    debug = cli("--debug", "gc")
    assert debug.exit_code == EXIT_INTERNAL
    assert debug.stderr.startswith("Traceback (most recent call last):")
    assert 'raise ZeroDivisionError("boom")' in debug.stderr
    assert debug.stderr.splitlines()[-1] == result.stderr.splitlines()[0]
    # --json: its own kind, beside every other error's shape.
    data = json.loads(cli("gc", "--json").stdout)
    assert data == {"error": result.stderr[17:-1], "kind": "InternalError", "exit_code": 70}


def test_version(cli: Invoke) -> None:
    result = cli("--version")
    assert result.exit_code == 0
    assert result.stdout.startswith("snapline 0.")


def test_colour_only_on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    class Tty:
        def isatty(self) -> bool:
            return True

    class Pipe:
        def isatty(self) -> bool:
            return False

    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("TERM", raising=False)
    assert color_enabled(Tty())  # type: ignore[arg-type]
    assert not color_enabled(Pipe())  # type: ignore[arg-type]
    monkeypatch.setenv("NO_COLOR", "1")
    assert not color_enabled(Tty())  # type: ignore[arg-type]


def test_piped_output_has_no_escape_codes(cli: Invoke, project: Path) -> None:
    (project / "README.md").write_text("# changed\n")
    cli("record", "-m", "edit")
    for args in (("log",), ("show", "1"), ("status",), ("diff", "0", "1")):
        result = cli(*args)
        assert result.exit_code == 0, (args, result.output)
        assert "\x1b[" not in result.output, args


def test_coloured_output_on_a_terminal(
    cli: Invoke, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (project / "README.md").write_text("# changed\n")
    cli("record", "-m", "edit")
    monkeypatch.setattr("snapline.cli.output.color_enabled", lambda stream: True)
    result = cli("show", "1")
    assert result.exit_code == 0
    assert "\x1b[" in result.stdout
    # `diff` stays plain even on a terminal: it is meant for `git apply`.
    assert "\x1b[" not in cli("diff", "0", "1").stdout


def test_github_annotation_escapes() -> None:
    from snapline import Problem

    problem = Problem(kind="modified", path="a,b:c.txt", message="50% done\nnext")
    assert github_annotation(problem) == "::error file=a%2Cb%3Ac.txt::modified: 50%25 done%0Anext"
    assert github_annotation(Problem(kind="gap", message="m")) == "::error::gap: m"


def test_store_edited_by_hand_is_reported_not_crashed(cli: Invoke, project: Path) -> None:
    (project / "README.md").write_text("# changed\n")
    cli("record", "-m", "edit")
    with sqlite3.connect(project / ".snapline" / "index.db") as db:
        db.execute("UPDATE snapshots SET description = 'forged' WHERE number = 1")
    result = cli("log")
    assert result.exit_code == 0  # reading still works; `verify` is the judge
    assert "forged" in result.stdout


def _commands(group: click.Group, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    found: list[tuple[str, ...]] = []
    for name in group.list_commands(click.Context(group)):
        command = group.get_command(click.Context(group), name)
        assert command is not None
        if isinstance(command, click.Group):
            found += _commands(command, (*prefix, name))
        else:
            found.append((*prefix, name))
    return found


def test_a_missing_option_or_argument_names_no_environment_variable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every command with a required parameter, run without it: one usage error (exit 2)
    # naming the parameter, never "(env var: 'None')" (snapline reads none).
    monkeypatch.chdir(tmp_path)
    root = typer.main.get_command(app)
    assert isinstance(root, click.Group)
    runner = CliRunner()
    checked = 0
    for words in _commands(root):
        command = root
        for word in words:
            assert isinstance(command, click.Group)
            command = command.get_command(click.Context(command), word)
            assert command is not None
        if not any(param.required for param in command.params):
            continue
        result = runner.invoke(app, list(words))
        assert result.exit_code == 2, (words, result.output)
        assert "Missing" in result.output, (words, result.output)
        assert "env var" not in result.output, (words, result.output)
        checked += 1
    assert checked >= 5


def test_shell_completion_comes_through_typer(tmp_path: Path) -> None:
    help_text = run_script("--help", cwd=tmp_path).stdout
    assert "--install-completion" in help_text
    # Typed in bash, as a user would: typer names the shell from the process tree
    # (shellingham), so without a shell above it there is none to name (`; exit $?`
    # keeps bash from replacing itself with the command).
    snapline = Path(sys.executable).with_name("snapline")
    script = subprocess.run(
        ["bash", "-c", f"{shlex.quote(str(snapline))} --show-completion; exit $?"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert script.returncode == 0, script.stderr
    assert "_SNAPLINE_COMPLETE=complete_bash" in script.stdout

    def complete(words: str) -> list[str]:
        # What the bash function that --show-completion prints asks the command.
        env = {"_SNAPLINE_COMPLETE": "complete_bash", "COMP_WORDS": words}
        env["COMP_CWORD"] = str(len(words.split()) - 1)
        return run_script(cwd=tmp_path, env=env).stdout.split()

    assert "milestone" in complete("snapline mil")
    assert {"--to", "--dry-run"} <= set(complete("snapline rollback --"))
    assert "rollback" in complete("snapline milestone roll")


def test_an_argument_taking_several_values_says_so_in_the_usage_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `rollback --help` showed "[PATH]" for several paths; click's own convention is
    # "PATH..." (an ellipsis after every argument of nargs=-1).
    monkeypatch.chdir(tmp_path)
    root = typer.main.get_command(app)
    assert isinstance(root, click.Group)
    checked = 0
    for words in _commands(root):
        command = root
        for word in words:
            assert isinstance(command, click.Group)
            command = command.get_command(click.Context(command), word)
            assert command is not None
        many = [p for p in command.params if isinstance(p, click.Argument) and p.nargs == -1]
        if not many or words in (("run",), ("guard",)):  # the command's own words
            continue
        usage = CliRunner().invoke(app, [*words, "--help"]).output.splitlines()[0]
        for param in many:
            assert "..." in (shown(param) or ""), (words, usage)
        assert usage.endswith("..."), (words, usage)
        checked += 1
    assert checked >= 4
