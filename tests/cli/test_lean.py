"""The lean parser (``cli/lean.py``) and the specs it reads, against typer (issue 39).

The oracle for every spec is the click command typer builds for the same command: each
of its options, under the same names, a flag where click has a flag, a value where click
takes one, and the same positional arity; so an option added to a typer command without
its spec fails here. And no module of ``snapline/`` reads ``sys.argv`` but the lean parser
and the warm client, which sends the whole command line to the server.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from snapline.cli import click_api as click
from snapline.cli.app import _root_group
from snapline.cli.commands import ROOT, SPECS, Spec, command_of
from snapline.cli.completion import name_shells
from snapline.cli.lean import HELP, parse, read, typed

PACKAGE = Path(__file__).resolve().parents[2] / "snapline"

# The only readers of the command line: the lean parser, and the client that hands it
# (argv[0] too) to the warm server.
READERS = {"snapline/cli/lean.py", "snapline/cli/warm/client.py"}


def _command(name: str) -> click.Command:
    command: click.Command = _root_group()
    for word in name.split():
        assert isinstance(command, click.Group)
        found = command.get_command(click.Context(command), word)
        assert found is not None, word
        command = found
    return command


def _shape(command: click.Command) -> tuple[dict[tuple[str, ...], tuple[str, bool]], int | None]:
    options = {}
    arity: int | None = 0
    for param in command.params:
        if isinstance(param, click.Option):
            assert param.name is not None
            names = tuple(sorted(param.opts + param.secondary_opts))
            options[names] = (param.name, not param.is_flag)
        elif isinstance(param, click.Argument):
            arity = param.nargs
    if isinstance(command, click.Group):
        arity = None  # a group's words name its commands: its spec says nothing of them
    return options, arity


def _choices(param: click.Parameter) -> set[str]:
    # typer >= 0.26 keeps an enum's members in its own description of the type; before,
    # a click.Choice of their values.
    described = getattr(param, "type_descriptor", None)
    found = described.choices if described is not None else getattr(param.type, "choices", None)
    assert found, f"{param.name} takes any value"
    return {str(getattr(choice, "value", choice)) for choice in found}


def _spec_shape(spec: Spec) -> dict[tuple[str, ...], tuple[str, bool]]:
    return {tuple(sorted(option.names)): (option.key, option.value) for option in spec.options}


@pytest.mark.parametrize("name", sorted(SPECS))
def test_each_spec_is_its_typer_command(name: str) -> None:
    spec = SPECS[name]
    command = _command(name)
    options, arity = _shape(command)

    assert _spec_shape(spec) == options
    if arity is not None:
        assert spec.arguments == arity
    for option in spec.options:
        param = next(p for p in command.params if option.names[0] in p.opts)
        if option.choices:
            # The lean path reads these spellings; typer takes the others (any case) too.
            assert set(option.choices) == _choices(param)
    if spec.lean:
        module, _, function = spec.lean.rpartition(".")
        assert callable(getattr(__import__(f"snapline.cli.{module}", fromlist=["_"]), function))


def test_the_root_spec_is_the_root_group() -> None:
    root = _root_group()
    name_shells(root)  # as every run does before it parses
    options, _ = _shape(root)

    assert _spec_shape(ROOT) == options
    assert tuple(root.context_settings["help_option_names"]) == HELP


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["record", "a"], ("record", ["a"])),
        (["--root", "x", "--timeout", "3", "--debug", "run", "--", "ls"], ("run", ["--", "ls"])),
        (["--root=x", "server", "stop"], ("server", ["stop"])),
        (["--timeout", "server"], (None, [])),  # `server` is --timeout's value
        (["--show-completion", "bash"], (None, [])),  # an optional value: typer reads it
        (["--debug"], (None, [])),
        ([], (None, [])),
    ],
)
def test_the_command_is_named_after_the_root_options(
    args: list[str], named: tuple[str | None, list[str]]
) -> None:
    assert command_of(args) == named


def test_a_hot_command_reads_its_plain_forms_and_leaves_the_rest_to_typer() -> None:
    hook = read("hook claude-code", ["--prompt-digest", "--milestone-per-prompt"])
    assert hook is not None and hook.flags == {"prompt_digest", "milestone_per_prompt"}
    assert read("hook claude-code", ["extra"]) is None  # arity 0
    assert read("hook claude-code", ["--help"]) is None
    assert read("log", []) is None  # no spec: typer's alone
    exact = parse(Spec((), arguments=1), [])
    assert exact is None  # a required argument missing: typer says so


def test_json_counts_only_before_the_double_dash() -> None:
    assert typed(["log", "--json"], "--json")
    assert not typed(["run", "--", "tool", "--json"], "--json")


def _reads_argv(tree: ast.AST) -> list[int]:
    lines = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and node.attr == "argv"
            and isinstance(node.value, ast.Name)
            and node.value.id == "sys"
            and isinstance(node.ctx, ast.Load)
        ):
            lines.append(node.lineno)
        elif isinstance(node, ast.ImportFrom) and node.module == "sys":
            lines += [node.lineno for alias in node.names if alias.name == "argv"]
    return lines


def test_no_module_reads_the_command_line_but_the_lean_parser_and_the_client() -> None:
    readers = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        name = path.relative_to(PACKAGE.parent).as_posix()
        found = _reads_argv(ast.parse(path.read_text(), name))
        if found:
            readers[name] = found
    assert set(readers) == READERS, readers
