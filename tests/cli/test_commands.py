"""The table of commands (``cli/commands.py``) against the commands that exist (issue 39).

The oracle is the code itself: every module of ``snapline.cli`` is imported and searched
for what typer would turn into a command (a public function whose every parameter is a
typer parameter or the context, returning None) or a group (a ``typer.Typer``). Each
must have its row, under typer's own name for it, with its summary as click shortens its
help; and no row may name anything else.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import typing
from types import ModuleType
from typing import Any

import typer
from typer.models import ParameterInfo

import snapline.cli
from snapline.cli import click_api as click
from snapline.cli.commands import COMMANDS, named

# The command line itself, not commands: the root group and the table.
_NOT_COMMANDS = {"app", "commands"}


def _modules() -> list[ModuleType]:
    found = []
    for info in pkgutil.iter_modules(snapline.cli.__path__):
        if not info.ispkg and info.name not in _NOT_COMMANDS:
            found.append(importlib.import_module(f"snapline.cli.{info.name}"))
    return found


def _is_command(function: Any) -> bool:
    # What typer can run: parameters (a command without any is no command line's), each a
    # typer Option/Argument or the context.
    try:
        hints = typing.get_type_hints(function, include_extras=True)
    except NameError:  # an annotation only imported for type checking: typer could not read it
        return False
    if hints.pop("return", None) is not type(None):
        return False
    parameters = inspect.signature(function).parameters
    return 0 < len(hints) == len(parameters) and all(
        hint is typer.Context
        or any(isinstance(extra, ParameterInfo) for extra in getattr(hint, "__metadata__", ()))
        for hint in hints.values()
    )


def _summary(command: click.Command) -> str:
    return command.get_short_help_str(limit=10_000)


def _existing() -> dict[str, tuple[str, str, str]]:
    """Every command and group defined in ``snapline.cli``: name -> (module, attribute, summary)."""
    found: dict[str, tuple[str, str, str]] = {}
    in_groups: set[object] = set()
    functions: list[tuple[str, str, Any]] = []
    for module in _modules():
        short = module.__name__.rpartition(".")[2]
        for attribute, value in vars(module).items():
            if isinstance(value, typer.Typer):
                group = typer.main.get_group(value)
                assert group.name is not None
                found[group.name] = (short, attribute, _summary(group))
                for name in group.list_commands(click.Context(group)):
                    sub = group.get_command(click.Context(group), name)
                    assert sub is not None and sub.callback is not None
                    in_groups.add(inspect.unwrap(sub.callback))
            elif (
                inspect.isfunction(value)
                and value.__module__ == module.__name__
                and not attribute.startswith("_")
                and _is_command(value)
            ):
                functions.append((short, attribute, value))
    for short, attribute, function in functions:
        if function in in_groups:
            continue
        one = typer.Typer()
        one.command()(function)
        command = typer.main.get_command(one)  # typer's own name and help for it
        assert command.name is not None
        found[command.name] = (short, attribute, _summary(command))
    return found


def test_the_table_holds_every_command_that_exists_and_no_other() -> None:
    existing = _existing()
    table = {row.name: (row.module, row.attribute, row.summary) for row in COMMANDS}

    assert table == existing
    assert len(COMMANDS) == len(table) > 20  # no name twice


def test_a_name_finds_its_row() -> None:
    row = named("log")
    assert row is not None and (row.module, row.attribute) == ("history", "log")
    assert named("nosuch") is None
    assert [row.name for row in COMMANDS if not row.interspersed] == ["run", "guard"]
