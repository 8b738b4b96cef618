"""The typer application: parse arguments, call the library, render, map errors to exit codes.

The root group is lazy (click's "Lazily Loading Subcommands"): it lists the commands of
the table in ``cli/commands.py`` and imports only the module of the command it runs, so
``snapline --help`` imports no command module. Every command module imports only typer
and the standard library at the top; the library (pydantic, sqlite3, the diff engine)
and rich load inside the command that needs them (STYLE habit 12).
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from typer.core import TyperCommand

from snapline.cli import click_api as click
from snapline.cli import usage
from snapline.cli.commands import COMMANDS, ROOT_HELP, Command, named, root_option
from snapline.cli.completion import name_shells, shell_words
from snapline.cli.context import DEFAULT_TIMEOUT, JSON_REQUESTED, State, state
from snapline.cli.errors import error_json, exit_code_for
from snapline.cli.lean import typed, words
from snapline.cli.output import echo_json

__all__ = ["app", "prepare", "run"]


class _Group(click.Group):
    """The root command group: lazy, and turns any error a command raises into its exit code."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return [command.name for command in COMMANDS]

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands:
            row = named(cmd_name)
            if row is None:
                return None
            self.add_command(_built(row), cmd_name)
        return self.commands.get(cmd_name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        # Click's listing, from the table's summaries: no command is imported to list it.
        limit = formatter.width - 6 - max(len(row.name) for row in COMMANDS)
        rows = [(row.name, _listed(row).get_short_help_str(limit)) for row in COMMANDS]
        with formatter.section("Commands"):
            formatter.write_dl(rows)

    def shell_complete(self, ctx: click.Context, incomplete: str) -> list[click.CompletionItem]:
        # The names that may follow, from the table; then the root's own options.
        found = [
            click.CompletionItem(row.name, help=_listed(row).get_short_help_str())
            for row in COMMANDS
            if row.name.startswith(incomplete)
        ]
        options: list[click.CompletionItem] = click.Command.shell_complete(self, ctx, incomplete)
        return found + options

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        try:
            return super().resolve_command(ctx, args)
        except click.UsageError as error:
            # typer suggests from the commands built; a lazy group has built none.
            import difflib

            close = difflib.get_close_matches(args[0], self.list_commands(ctx)) if args else []
            if close and "Did you mean" not in error.message:
                said = ", ".join(repr(name) for name in close)
                error.message = f"{error.message.rstrip('.')}. Did you mean {said}?"
            raise

    def parse_args(self, ctx: typer.Context, args: list[str]) -> list[str]:  # type: ignore[override]
        ctx.meta[_ARGS] = list(args)
        _hide_unset_envvars(self)
        name_shells(self)
        return super().parse_args(ctx, shell_words(args))

    def invoke(self, ctx: typer.Context) -> Any:  # type: ignore[override]
        try:
            return super().invoke(ctx)
        except Exception as error:
            # Exit and Abort are the parser's own way out (exit 0 or 2).
            if isinstance(error, (typer.Exit, typer.Abort)):
                raise
            if isinstance(error, click.ClickException):
                # A usage error: the parser prints it on stderr; --json users get the
                # object too. The option may not have been reached (`show abc --json`
                # fails on N first), so the words typed are looked at instead.
                if ctx.meta.get(JSON_REQUESTED) or typed(ctx.meta.get(_ARGS, []), "--json"):
                    echo_json(error_json(error.format_message(), "UsageError", error.exit_code))
                raise
            code = exit_code_for(
                error, debug=state(ctx).debug, as_json=bool(ctx.meta.get(JSON_REQUESTED))
            )
            raise typer.Exit(code) from None


_ARGS = "snapline.args"


def _hide_unset_envvars(command: click.Command) -> None:
    # typer asks click to name an option's environment variable in its errors, and
    # click 8.2 does so even when there is none: "Missing option '--to' (env var: 'None')".
    # snapline reads no option from the environment, so no error names one.
    for param in command.params:
        if isinstance(param, click.Option) and param.envvar is None:
            param.show_envvar = False
    if isinstance(command, click.Group):
        for sub in command.commands.values():
            _hide_unset_envvars(sub)


def _keep_argument_help(command: click.Command) -> None:
    # typer before 0.26 gives an argument its help before click's Parameter.__init__
    # runs, which from click 8.5 sets it again, to None: `--help` would list the
    # arguments bare. The help is read back from the function typer declared it on.
    if click.VENDORED:
        return  # typer's own copy of click keeps it
    bare = [p for p in command.params if isinstance(p, click.Argument) and p.help is None]
    if bare and command.callback is not None:
        import inspect

        from typer.models import ArgumentInfo
        from typer.utils import get_params_from_function

        declared = get_params_from_function(inspect.unwrap(command.callback))
        for param in bare:
            info = declared[param.name].default if param.name in declared else None
            if isinstance(info, ArgumentInfo):
                param.help = info.help
    if isinstance(command, click.Group):
        for sub in command.commands.values():
            _keep_argument_help(sub)


app = typer.Typer(
    name="snapline",
    cls=_Group,
    no_args_is_help=True,
    # --install-completion / --show-completion: typer's, for bash, zsh, fish and PowerShell,
    # each taking the shell's name (cli/completion.py).
    add_completion=True,
    # Plain help: rich's help panels would import rich tables for every --help.
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
    # "--help" first: a usage error's "Try 'snapline --help' for help." names the first
    # name up to click 8.3 (and in typer's copy of click), the longest from click 8.4.
    context_settings={"help_option_names": ["--help", "-h"]},
)


def _version(value: bool) -> None:
    if value:
        from snapline import __version__

        typer.echo(f"snapline {__version__}")
        raise typer.Exit()


@app.callback(help=ROOT_HELP)
def _root(
    ctx: typer.Context,
    root: Annotated[
        Path | None,
        typer.Option(
            "--root",
            metavar="PATH",
            help=root_option("--root").help,
            file_okay=False,
        ),
    ] = None,
    timeout: Annotated[
        float,
        typer.Option(
            "--timeout",
            metavar="SECONDS",
            min=0.0,
            help=root_option("--timeout").help,
        ),
    ] = DEFAULT_TIMEOUT,
    debug: Annotated[
        bool,
        typer.Option("--debug", help=root_option("--debug").help),
    ] = False,
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_version, is_eager=True, help=root_option("--version").help
        ),
    ] = False,
) -> None:
    """Read the root's options (its help is the table's, ``ROOT_HELP``)."""
    ctx.obj = State(root=root, timeout=timeout, debug=debug)


def _built(row: Command) -> click.Command:
    """The click command of one row of the table, from its module alone (typer's public API)."""
    found = getattr(importlib.import_module(f"snapline.cli.{row.module}"), row.attribute)
    if isinstance(found, typer.Typer):
        command: click.Command = typer.main.get_group(found)
    else:
        one = typer.Typer(add_completion=False, rich_markup_mode=None)
        settings = {} if row.interspersed else {"allow_interspersed_args": False}
        one.command(row.name, cls=usage.Command, context_settings=settings)(found)
        command = typer.main.get_command(one)
    _hide_unset_envvars(command)
    _keep_argument_help(command)
    return command


def _listed(row: Command) -> click.Command:
    # A command holding only the row's summary: click shortens it as it would the help.
    return TyperCommand(row.name, help=row.summary)


def run() -> None:
    """Run this process's command line (``cli/lean.py``'s :func:`words`)."""
    command = _root_group()
    # What typer.Typer.__call__ does, with the click command built once per process.
    if sys.excepthook is not typer.main.except_hook:
        sys.excepthook = typer.main.except_hook
    command(args=words(), prog_name="snapline")


def prepare() -> None:
    """Build the click command of the root and of every command, once, for the warm server.

    Its workers are forked with them built (``cli/warm/daemon.py``): turning a typer
    command into a click command reads signatures and annotations, a tenth of a ``log``.
    """
    root = _root_group()
    with click.Context(root, info_name="snapline") as ctx:
        for name in root.list_commands(ctx):
            root.get_command(ctx, name)


_ROOT: list[click.Group] = []


def _root_group() -> click.Group:
    if not _ROOT:
        root = typer.main.get_command(app)
        assert isinstance(root, click.Group)  # a typer app with a callback is a group
        _ROOT.append(root)
    return _ROOT[0]
