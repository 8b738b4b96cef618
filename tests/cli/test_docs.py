"""docs/cli.md against the command line itself: every command, option and argument.

The oracle is the application's own parameters (what ``--help`` prints), so a command or
option added without its documentation fails here, and so does a documented one removed.
"""

from __future__ import annotations

import re
from pathlib import Path

import click
import typer

from snapline.cli.app import app

DOCS = Path(__file__).resolve().parents[2] / "docs" / "cli.md"
_HEADING = re.compile(r"^### `snapline ([^`]*)`", re.MULTILINE)


def _sections() -> dict[str, str]:
    # "milestone create" -> its heading and body, up to the next heading.
    text = DOCS.read_text(encoding="utf-8")
    found: dict[str, str] = {}
    starts = list(_HEADING.finditer(text))
    for index, match in enumerate(starts):
        end = starts[index + 1].start() if index + 1 < len(starts) else len(text)
        body = text[match.start() : end].split("\n## ", 1)[0]
        words = [w for w in match.group(1).split() if re.fullmatch(r"[a-z][a-z-]*", w)]
        command = (
            " ".join(words[:2])
            if words[:1] in (["milestone"], ["hook"], ["integrate"], ["server"])
            else words[0]
        )
        found[command] = body
    return found


def _commands(group: click.Group, prefix: tuple[str, ...] = ()) -> dict[str, click.Command]:
    found: dict[str, click.Command] = {}
    for name in group.list_commands(click.Context(group)):
        command = group.get_command(click.Context(group), name)
        assert command is not None
        if isinstance(command, click.Group):
            found |= _commands(command, (*prefix, name))
        else:
            found[" ".join((*prefix, name))] = command
    return found


def _root() -> click.Group:
    root = typer.main.get_command(app)
    assert isinstance(root, click.Group)
    return root


def test_every_command_has_its_section_and_no_section_names_a_command_that_is_gone() -> None:
    commands = _commands(_root())
    sections = _sections()
    assert sorted(commands) == sorted(sections)


def test_every_option_and_argument_of_a_command_is_in_its_section() -> None:
    sections = _sections()
    missing = []
    for name, command in _commands(_root()).items():
        section = sections.get(name, "")
        heading = section.splitlines()[0] if section else ""
        for param in command.params:
            if isinstance(param, click.Argument):
                if param.metavar and param.metavar.strip("[].") not in heading:
                    missing.append(f"{name}: argument {param.metavar}")
                continue
            for opt in (*param.opts, *param.secondary_opts):
                if opt in ("-h", "--help"):
                    continue
                if not re.search(rf"(?<![\w-]){re.escape(opt)}(?![\w-])", section):
                    missing.append(f"{name}: {opt}")
    assert missing == []


def test_every_global_option_is_in_the_global_options_table() -> None:
    text = DOCS.read_text(encoding="utf-8")
    table = text.split("## Global options", 1)[1].split("\n## ", 1)[0]
    rows = [line.split("|")[1] for line in table.splitlines() if line.startswith("| `")]
    documented = {opt for row in rows for opt in re.findall(r"`(-{1,2}[a-z][a-z-]*)", row)}
    options = {"-h", "--help"} | {
        opt for param in _root().params for opt in (*param.opts, *param.secondary_opts)
    }
    assert options == documented
