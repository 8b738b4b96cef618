"""``--help`` names each argument as docs/cli.md does, under every typer and click (issue 39).

typer 0.26 writes a required argument as ``{N}``, a ``[PATH]...`` as ``[[PATH]...]...``
and adds types (``N <str>``); typer 0.25 on click 8.5 loses every argument's help and
lists the arguments twice. These hold the reading of typer 0.24 on click 8.2, which the
docs' headings use, whichever typer and click are installed.
"""

from __future__ import annotations

import re

import pytest

from snapline.cli import click_api as click
from snapline.cli.app import app
from tests.cli.test_docs import _commands, _root
from tests.cli_runner import CliRunner

_WITH_ARGUMENTS = sorted(
    name
    for name, command in _commands(_root()).items()
    if any(isinstance(param, click.Argument) for param in command.params)
)


def _help(words: list[str]) -> str:
    done = CliRunner().invoke(app, [*words, "--help"], env={"COLUMNS": "80"})
    assert done.exit_code == 0, done.output
    return done.output


@pytest.mark.parametrize("name", _WITH_ARGUMENTS)
def test_each_argument_reads_as_its_metavar(name: str) -> None:
    text = _help(name.split())
    usage = text.splitlines()[0]
    assert usage.startswith(f"Usage: snapline {name} [OPTIONS] "), usage
    for word in usage.split("[OPTIONS]", 1)[1].split():
        assert re.fullmatch(r"\[?[A-Z]+\]?(\.\.\.)?", word), usage
    arguments = text.split("Arguments:", 1)[1].split("Options:", 1)[0]
    assert "<" not in arguments and "x>=" not in arguments, arguments
    assert "Positional arguments" not in text


_READ_AS_DOCUMENTED = [
    (
        ["rollback"],
        "Usage: snapline rollback [OPTIONS] [PATH]...",
        "  [PATH]...  Only these files or directories (default: all).",
    ),
    (
        ["show"],
        "Usage: snapline show [OPTIONS] N",
        "  N  The snapshot: a number, latest, latest~N or id:PREFIX (any line).",
    ),
    (
        ["init"],
        "Usage: snapline init [OPTIONS] [DIRECTORY]",
        "  [DIRECTORY]  Directory to snapshot (default: --root, else the current",
    ),
    (
        ["run"],
        "Usage: snapline run [OPTIONS] CMD",
        "  CMD  The command and its arguments (after --).  [required]",
    ),
    (
        ["milestone", "show"],
        "Usage: snapline milestone show [OPTIONS] M",
        "  M  The milestone number.  [required]",
    ),
    (
        ["verify"],
        "Usage: snapline verify [OPTIONS]",
        "  --format [text|github]  text, or github for ::error annotations in GitHub",
    ),
]


@pytest.mark.parametrize(("words", "usage", "line"), _READ_AS_DOCUMENTED)
def test_the_help_of_a_command_reads_as_the_docs_write_it(
    words: list[str], usage: str, line: str
) -> None:
    shown = _help(words).splitlines()
    assert shown[0] == usage
    assert line in shown, "\n".join(shown)
