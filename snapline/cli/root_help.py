"""``snapline --help`` without typer: the root's help, written from the table of commands.

pip's way (its ``commands_dict``): the first thing a newcomer types imports no command
and no command-line framework. Building the typer application costs ``--help`` most of
its time; this writes the same page from ``cli/commands.py`` (the root's help and options,
every command's summary) as click's ``HelpFormatter`` lays it out in plain mode: the
widths, the wrapping and the shortened summaries. ``tests/cli/test_root_help.py`` holds
the page equal to typer's, byte for byte, at every width a terminal can give it.

Imports: ``os``, ``sys``, ``textwrap`` and the table.
"""

from __future__ import annotations

import os
import sys
import textwrap

from snapline.cli.commands import COMMANDS, ROOT, ROOT_HELP

__all__ = ["page"]

_USAGE = "Usage: snapline [OPTIONS] COMMAND [ARGS]...\n"
_HELP_ROW = ("-h, --help", "Show this message and exit.")
_INDENT = 2
_COLUMN_MAX, _COLUMN_SPACING = 30, 2


def page() -> str:
    """The root's help page, as ``snapline --help`` prints it on this terminal."""
    width = _width()
    options = [
        (option.shown, f"{option.help}  {option.hint}" if option.hint else option.help)
        for option in ROOT.options
    ]
    options.append(_HELP_ROW)
    limit = width - 6 - max(len(row.name) for row in COMMANDS)
    commands = [(row.name, _short(row.summary, limit)) for row in COMMANDS]
    return "".join(
        (
            _USAGE,
            "\n",
            _paragraphs(ROOT_HELP, width, " " * _INDENT),
            _section("Options", options, width),
            _section("Commands", commands, width),
        )
    )


def _width() -> int:
    # click's HelpFormatter: the terminal's columns (shutil's rule: COLUMNS first, then
    # the terminal of stdout, else 80), at most 80, less 2, and never under 50.
    try:
        columns = int(os.environ.get("COLUMNS", "0"))
    except ValueError:
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
        columns = columns or 80
    return max(min(columns, 80) - 2, 50)


def _paragraphs(text: str, width: int, indent: str) -> str:
    # click's wrap_text(preserve_paragraphs=True): each paragraph's lines joined, then filled.
    wrapper = textwrap.TextWrapper(
        width, initial_indent=indent, subsequent_indent=indent, replace_whitespace=False
    )
    paragraphs = [" ".join(part.splitlines()) for part in text.split("\n\n")]
    return "\n\n".join(wrapper.fill(paragraph) for paragraph in paragraphs) + "\n"


def _section(heading: str, rows: list[tuple[str, str]], width: int) -> str:
    # click's HelpFormatter.section and write_dl, one level of indentation in.
    first = min(max(len(term) for term, _ in rows), _COLUMN_MAX) + _COLUMN_SPACING
    wrapper = textwrap.TextWrapper(max(width - first - 2, 10), replace_whitespace=False)
    out = ["\n", f"{heading}:\n"]
    for term, text in rows:
        out.append(" " * _INDENT + term)
        if len(term) <= first - _COLUMN_SPACING:
            out.append(" " * (first - len(term)))
        else:
            out.append("\n" + " " * (first + _INDENT))
        lines = wrapper.wrap(text)
        out.append(lines[0] + "\n")
        out.extend(" " * (first + _INDENT) + line + "\n" for line in lines[1:])
    return "".join(out)


def _short(summary: str, limit: int) -> str:
    # click's make_default_short_help: whole words up to the limit, a sentence's end kept
    # whole, else "..." in place of the words it drops.
    words = summary.split()
    total = 0
    for index, word in enumerate(words):
        total += len(word) + (index > 0)
        if total > limit:
            break
        if word.endswith("."):
            return " ".join(words[: index + 1])
        if total == limit and index != len(words) - 1:
            break
    else:
        return " ".join(words)
    total += 3
    while index > 0:
        total -= len(words[index]) + (index > 0)
        if total <= limit:
            break
        index -= 1
    return " ".join(words[:index]) + "..."
