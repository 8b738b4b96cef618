"""What the command line advises is what the command line has, and it works when run.

Each case runs the installed console script as a user would, reads the advice from the
message, and, where the advice is a command, runs that command exactly as written.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
import typer

from snapline import Workspace
from snapline.cli import click_api as click
from snapline.cli.app import app
from tests.cli.conftest import run_script

_LIBRARY_WORDS = re.compile(r"\b[a-z_]+=(True|False|true|false)\b")
_COMMANDS = re.compile(r"`(snapline [^`]+)`")


def _workspace(root: Path) -> Path:
    (root / "src").mkdir()
    (root / "src" / "app.py").write_text("a\nb\nc\n")
    Workspace.init(root).close()
    (root / "src" / "app.py").write_text("A\nb\nc\n")
    assert run_script("record", "-m", "edit", cwd=root).returncode == 0  # snapshot 1
    return root


def _options(*command: str) -> set[str]:
    group = typer.main.get_command(app)
    ctx = click.Context(group)
    for name in command:
        assert isinstance(group, click.Group)
        found = group.get_command(ctx, name)
        assert found is not None
        group = found
    return {opt for param in group.params for opt in getattr(param, "opts", [])}


@pytest.mark.parametrize(
    ("kind", "choice", "name"),
    [
        *[
            (k, c, "notes.txt")
            for k in ("untracked", "modified", "deleted")
            for c in ("keep", "drop")
        ],
        ("untracked", "drop", "a b/c d.txt"),  # quoted for the shell
        ("modified", "keep", "-dash.txt"),  # not taken for an option
    ],
)
def test_verify_s_advice_for_an_outside_change_works_as_written(
    root: Path, kind: str, choice: str, name: str
) -> None:
    project = _workspace(root)
    target = project / name
    target.parent.mkdir(parents=True, exist_ok=True)
    if kind != "untracked":
        target.write_text("recorded\n")
        assert run_script("record", "-m", "add", "--", name, cwd=project).returncode == 0
    if kind == "deleted":
        target.unlink()
    else:
        target.write_text("the person's\n")

    found = run_script("verify", cwd=project)
    assert found.returncode == 1, found
    line = next(line for line in found.stdout.splitlines() if f" {kind} " in line)
    keep, drop = _COMMANDS.findall(line)
    assert keep.startswith("snapline resync") and drop.startswith("snapline rollback")
    advice = shlex.split(keep if choice == "keep" else drop)

    done = run_script(*advice[1:], cwd=project)

    assert done.returncode == 0, (advice, done.stderr)
    clean = run_script("verify", cwd=project)
    assert clean.returncode == 0, clean.stdout
    if choice == "keep":
        assert target.exists() == (kind != "deleted")
    else:
        assert target.exists() == (kind != "untracked")
        # Dropped, not lost: the outside change was recorded first.
        with Workspace.open(project) as ws:
            assert ws.snapshot(ws.latest - 1).tool == "external"


@pytest.mark.parametrize(
    "args",
    [
        ["rollback", "--to", "0"],
        ["rollback", "--to", "0", "--dry-run"],
        ["undo"],
        ["undo", "--dry-run"],
        ["revert", "1"],
        ["revert", "1", "--dry-run"],
        ["rollback", "--to", "0", "--json"],
        ["revert", "1", "--json"],
    ],
)
def test_a_refused_restore_names_only_options_of_its_own_command(
    root: Path, args: list[str]
) -> None:
    project = _workspace(root)
    (project / "src" / "app.py").write_text("A\nb\nc\nthe person's line\n")

    done = run_script(*args, cwd=project)

    assert done.returncode == 1, done
    said = done.stdout + done.stderr
    assert not _LIBRARY_WORDS.search(said), said  # force=True is the library's, not ours
    assert "resync -m TEXT" in said
    mentioned = set(re.findall(r"(?<![\w`-])--[a-z][a-z-]*", said))
    assert mentioned <= _options(args[0]), (mentioned, said)
    assert ("--force" in mentioned) == (args[0] != "revert")


def test_revert_s_summary_and_its_refusal_give_one_advice_and_it_works(root: Path) -> None:
    project = _workspace(root)
    (project / "src" / "app.py").write_text("A\nb\nc\nthe person's line\n")

    dry = run_script("revert", "1", "--dry-run", cwd=project)
    real = run_script("revert", "1", cwd=project)

    assert (dry.returncode, real.returncode) == (1, 1)
    advice = dry.stderr.strip().rsplit("; ", 1)[1]
    assert real.stderr.strip().rsplit("; ", 1)[1] == advice
    assert "--force" not in dry.stdout + dry.stderr + real.stderr
    # Done as it says: record the outside change, then the revert goes through.
    resync = shlex.split(_COMMANDS.findall(advice)[0])
    assert run_script(*resync[1:], cwd=project).returncode == 0
    again = run_script("revert", "1", cwd=project)
    assert again.returncode == 0, again.stderr
    assert (project / "src" / "app.py").read_text() == "a\nb\nc\nthe person's line\n"


@pytest.mark.parametrize("choice", ["keep", "drop"])
def test_status_s_advice_works_as_written(root: Path, choice: str) -> None:
    project = _workspace(root)
    (project / "src" / "app.py").write_text("the person's\n")
    (project / "new.txt").write_text("untracked\n")

    shown = run_script("status", cwd=project)
    advice_line = shown.stdout.strip().splitlines()[-1]
    keep, drop = _COMMANDS.findall(advice_line)
    advice = shlex.split(keep if choice == "keep" else drop)
    if advice[-1] == "PATH...":
        advice[-1:] = ["src/app.py", "new.txt"]

    done = run_script(*advice[1:], cwd=project)

    assert done.returncode == 0, (advice, done.stderr)
    assert run_script("verify", cwd=project).returncode == 0
    assert (project / "new.txt").exists() == (choice == "keep")


def test_guard_s_rollback_refusal_names_no_option_guard_lacks(root: Path) -> None:
    project = _workspace(root)
    # The same check passes on snapshot 1, then fails and leaves a file of its own:
    # the rollback to that pass meets it.
    script = "if grep -q broken src/app.py; then echo junk > out.log; exit 1; fi"
    check = ["sh", "-c", script]
    assert run_script("guard", "--", *check, cwd=project).returncode == 0  # 1 passed
    (project / "src" / "app.py").write_text("broken\n")
    assert run_script("record", "-m", "break", cwd=project).returncode == 0

    done = run_script("guard", "--rollback", "--", *check, cwd=project)

    assert done.returncode == 1, done
    assert "out.log" in done.stderr and "resync -m TEXT" in done.stderr
    mentioned = set(re.findall(r"(?<![\w`-])--[a-z][a-z-]*", done.stderr))
    assert mentioned <= _options("guard"), (mentioned, done.stderr)
