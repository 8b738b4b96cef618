"""The lean parser: the one reader of the command line's words beside typer.

Every process reads its command line here before it builds the typer application (which
costs a hot command about a tenth of its time): which command the words name (the
table's :func:`~snapline.cli.commands.command_of`, which the Claude Code hook reads a
Bash call by too), and for the hot commands (``record``, ``verify``, ``hook``) their
plain forms, read by the specs of the table (``cli/commands.py``). What this parser is
not sure of (help, ``--opt=value``, ``--``, a value repeated or like an option, a value
outside its choices, an option only the typer command handles) it leaves to typer, which
reads the same words and says what is wrong; so both read a plain form alike, and only
typer ever reports a usage error.

It also ends a lean path as the typer command line ends a command (:func:`finish`).
Imports: ``errno``, ``os``, ``sys`` and the table only; every process loads it on its
way in (``cli/warm/client.py``).
"""

from __future__ import annotations

import errno
import os
import sys

from snapline.cli.commands import SPECS, Spec, options_of

TYPE_CHECKING = False  # not `typing`'s: one more import on every command's way in
if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = [
    "HELP",
    "Parsed",
    "finish",
    "parse",
    "program",
    "read",
    "reader_gone",
    "serve",
    "spec",
    "typed",
    "wants_help",
    "words",
]

HELP = ("--help", "-h")
"""The help options of every command (the root's ``help_option_names``)."""


class Parsed:
    """The plain form of a command line, as the lean parser read it.

    Attributes:
        arguments: The positional arguments, in order.
        values: The options given a value, by their key (``message``: ``"fix"``).
        flags: The keys of the flags given (``as_json``).
    """

    __slots__ = ("arguments", "flags", "values")

    def __init__(self, arguments: list[str], values: dict[str, str], flags: set[str]) -> None:
        self.arguments = arguments
        self.values = values
        self.flags = flags

    def __repr__(self) -> str:
        return f"Parsed({self.arguments!r}, {self.values!r}, {self.flags!r})"


def words() -> list[str]:
    """The words of this process's command line after the program's name (``sys.argv[1:]``)."""
    return sys.argv[1:]


def program() -> str:
    """The program this process was started as (``sys.argv[0]``), or ``""`` when unknown."""
    return sys.argv[0] if sys.argv else ""


def spec(name: str) -> Spec | None:
    """The spec of a hot command.

    Args:
        name: The words that name it (``record``, ``hook claude-code``).

    Returns:
        Its spec, or None when the command has no lean path.
    """
    return SPECS.get(name)


def parse(command: Spec, args: list[str]) -> Parsed | None:
    """Read the plain form of one command's words by its spec.

    Args:
        command: The command's spec.
        args: The words after the command's name.

    Returns:
        What they say, or None when they are not a plain form: the typer command reads
        them then (and reports any usage error).
    """
    options = options_of(command)
    arguments: list[str] = []
    values: dict[str, str] = {}
    flags: set[str] = set()
    position = iter(args)
    for word in position:
        option = options.get(word)
        if option is None:
            if not word or word.startswith("-"):
                return None  # help, `--opt=value`, `--`, `-`, an unknown option, ""
            arguments.append(word)
        elif not option.lean:
            return None
        elif not option.value:
            flags.add(option.key)  # as click, a flag typed twice is a flag
        else:
            value = next(position, None)
            if (
                value is None
                or value.startswith("-")
                or option.key in values
                or (option.choices and value not in option.choices)
            ):
                return None
            values[option.key] = value
    if command.arguments >= 0 and len(arguments) != command.arguments:
        return None
    return Parsed(arguments, values, flags)


def read(name: str, args: list[str]) -> Parsed | None:
    """Read the plain form of a hot command's words by its spec in the table.

    Args:
        name: The words that name the command (``record``, ``hook claude-code``).
        args: The words after them.

    Returns:
        What they say, or None when the command has no spec or the words are not a
        plain form (see :func:`parse`).
    """
    command = SPECS.get(name)
    return None if command is None else parse(command, args)


def wants_help(args: list[str]) -> bool:
    """Whether the words ask for help (``-h`` or ``--help`` anywhere)."""
    return any(word in HELP for word in args)


def typed(args: list[str], option: str) -> bool:
    """Whether ``option`` is among the words before ``--``.

    Args:
        args: The words after ``snapline``.
        option: An option's spelling (``--json``).

    Returns:
        True when it was typed; what follows ``--`` belongs to the command ``snapline run``
        starts.
    """
    before = args[: args.index("--")] if "--" in args else args
    return option in before


def serve(name: str, args: list[str], command: Callable[[Parsed], int]) -> int | None:
    """Run a hot command's plain form without typer, or say it is not one.

    Args:
        name: The command (``record``).
        args: The words after it.
        command: Runs the plain form it is given; returns the exit code.

    Returns:
        The exit code (:func:`finish` ends the command), or None when the words are not
        the plain form this parser reads: the typer command reads them then.
    """
    parsed = read(name, args)
    if parsed is None:
        return None
    return finish(lambda: command(parsed), as_json="as_json" in parsed.flags)


def finish(command: Callable[[], int], *, as_json: bool) -> int:
    """Run a lean path's command, and end it as the typer command line ends one.

    Args:
        command: The command's work; returns its exit code.
        as_json: ``--json`` was given: an error is JSON on stdout too.

    Returns:
        The exit code: the command's, 1 for an interrupt (click's ``Aborted!``), or the
        error's (``cli/errors.py``, imported only then).
    """
    try:
        return command()
    except (KeyboardInterrupt, EOFError):
        sys.stderr.write("\nAborted!\n")
        return 1
    except Exception as error:
        from snapline.cli.errors import exit_code_for

        try:
            return exit_code_for(error, as_json=as_json)
        except OSError as broken:
            if broken.errno != errno.EPIPE:
                raise
            return reader_gone()


def reader_gone() -> int:
    """The exit code when the reader of the output went away (`snapline log | head -0`).

    Quietly, as the typer command line does: no traceback and no second error while
    Python flushes the output at exit (it goes to ``/dev/null`` from here).
    """
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return 1
