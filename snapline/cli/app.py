"""The typer application: parse arguments, call the library, render, map errors to exit codes.

Every command module imports only typer and the standard library at the top; the
library (pydantic, sqlite3, the diff engine) and rich load inside the command that
needs them, so ``snapline --help`` stays fast (STYLE habit 12).
"""

from __future__ import annotations

import copy
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import click
import typer
from click.exceptions import ClickException
from typer.core import TyperGroup

from snapline.cli import (
    branching,
    forget,
    guard,
    history,
    integrate,
    mcp,
    milestones,
    recording,
    report,
    restore,
    server,
    verify,
    watch,
)
from snapline.cli.completion import name_shells
from snapline.cli.context import DEFAULT_TIMEOUT, JSON_REQUESTED, State, state
from snapline.cli.errors import error_json, exit_code_for
from snapline.cli.output import echo_json

__all__ = ["app", "app_for", "prepare", "run"]


class _Group(TyperGroup):
    """The root command group: turns any error a command raises into its exit code."""

    def parse_args(self, ctx: typer.Context, args: list[str]) -> list[str]:  # type: ignore[override]
        ctx.meta[_ARGS] = list(args)
        _hide_unset_envvars(self)
        name_shells(self)
        return super().parse_args(ctx, args)

    def invoke(self, ctx: typer.Context) -> Any:  # type: ignore[override]
        try:
            return super().invoke(ctx)
        except Exception as error:
            # Exit and Abort are the parser's own way out (exit 0 or 2).
            if isinstance(error, (typer.Exit, typer.Abort)):
                raise
            if isinstance(error, ClickException):
                # A usage error: the parser prints it on stderr; --json users get the
                # object too. The option may not have been reached (`show abc --json`
                # fails on N first), so the words typed are looked at instead.
                if ctx.meta.get(JSON_REQUESTED) or _json_typed(ctx.meta.get(_ARGS, [])):
                    echo_json(error_json(error.format_message(), "UsageError", error.exit_code))
                raise
            code = exit_code_for(
                error, debug=state(ctx).debug, as_json=bool(ctx.meta.get(JSON_REQUESTED))
            )
            raise typer.Exit(code) from None


_ARGS = "snapline.args"
_COMPLETING = "_SNAPLINE_COMPLETE"  # click's variable for a completion request


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


def _json_typed(args: list[str]) -> bool:
    # Everything after `--` belongs to the command `snapline run` starts.
    words = args[: args.index("--")] if "--" in args else args
    return "--json" in words


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
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version(value: bool) -> None:
    if value:
        from snapline import __version__

        typer.echo(f"snapline {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    ctx: typer.Context,
    root: Annotated[
        Path | None,
        typer.Option(
            "--root",
            metavar="PATH",
            help="Workspace root (default: found from the current directory upwards).",
            file_okay=False,
        ),
    ] = None,
    timeout: Annotated[
        float,
        typer.Option(
            "--timeout",
            metavar="SECONDS",
            min=0.0,
            help="Seconds to wait for another snapline process holding the store.",
        ),
    ] = DEFAULT_TIMEOUT,
    debug: Annotated[
        bool,
        typer.Option("--debug", help="Show the traceback of an error (also: SNAPLINE_DEBUG=1)."),
    ] = False,
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_version, is_eager=True, help="Show the version and exit."
        ),
    ] = False,
) -> None:
    """Snapshot manager for coding agents: every change numbered, verifiable, reversible.

    The store is found like git finds .git: from the current directory upwards.
    Exit codes: 0 ok, 1 validation or sync failure, 2 usage error, 3 corrupt or
    unreadable store, 4 store busy, 70 internal error (a bug). See docs/cli.md.
    """
    ctx.obj = State(root=root, timeout=timeout, debug=debug)


recording.register(app)
history.register(app)
restore.register(app)
milestones.register(app)
verify.register(app)
report.register(app)
integrate.register(app)
watch.register(app)
mcp.register(app)
forget.register(app)
branching.register(app)
guard.register(app)
server.register(app)


def run() -> None:
    """Run the command line with ``sys.argv``."""
    args = sys.argv[1:]
    key = _key(args)
    command = _BUILT.get(key)
    if command is None:
        command = _BUILT[key] = typer.main.get_command(app_for(args))
    # What typer.Typer.__call__ does, with the click command built once per process.
    if sys.excepthook is not typer.main.except_hook:
        sys.excepthook = typer.main.except_hook
    command(prog_name="snapline")


def prepare() -> None:
    """Build the click command of every command and of the listing, once, for the warm server.

    Its workers are forked with them built (``cli/warm/daemon.py``): turning a typer
    command into a click command reads signatures and annotations, a tenth of a ``log``.
    """
    names = [c.name for c in app.registered_commands] + [g.name for g in app.registered_groups]
    for args in ([], *([name] for name in names if name)):
        key = _key(args)
        if key not in _BUILT:
            _BUILT[key] = typer.main.get_command(app_for(args))


# The click command for each way app_for answers: a command's name, the listing (None),
# the whole application (a name that is no command, or shell completion).
_BUILT: dict[str | None, click.Command] = {}
_WHOLE = "\0whole"


def _key(args: list[str]) -> str | None:
    if _COMPLETING in os.environ:
        return _WHOLE
    name = _command_named(args)
    if name is None:
        return None
    known = any(c.name == name for c in app.registered_commands) or any(
        g.name == name for g in app.registered_groups
    )
    return name if known else _WHOLE


def app_for(args: list[str]) -> typer.Typer:
    """The application to run ``snapline ARGS`` with: the one command they name, or all.

    Turning the application into click commands costs about as much again as importing
    typer, for every command there is; a process runs one. So when the arguments name a
    command (after any of the root options), only that command or group is turned into
    one. Anything else (no command, ``--help``, ``--version``, a name that is not a
    command) gets the whole application, and so the same help and usage errors.

    Args:
        args: The arguments after ``snapline``.

    Returns:
        :data:`app`, or a copy of it holding only the command named.
    """
    if _COMPLETING in os.environ:
        # The shell asks what may follow the words typed so far: every parameter of
        # every command may be the answer, so completion gets the whole application.
        return app
    name = _command_named(args)
    if name is None:
        return _listing(app)
    commands = [c for c in app.registered_commands if c.name == name]
    groups = [g for g in app.registered_groups if g.name == name]
    if not commands and not groups:
        return app
    lean = copy.copy(app)  # the callback and settings shared; the lists are its own
    lean.registered_commands = commands
    lean.registered_groups = groups
    return lean


def _listing(full: typer.Typer) -> typer.Typer:
    """A copy of ``full`` whose commands have their names and help, and no parameters.

    What runs when no command is named: the help lists each command by its name and
    help, and ``--version`` or a usage error never reaches one. Building a command's
    parameters (typer reads its signature and evaluates its annotations) was most of
    ``snapline --help``, for parameters nothing shows.
    """
    listing = copy.copy(full)
    listing.registered_commands = [
        copy.copy(info) for info in full.registered_commands if info.callback is not None
    ]
    for info in listing.registered_commands:
        assert info.callback is not None
        info.callback = _without_parameters(info.callback)
    listing.registered_groups = []
    for group in full.registered_groups:
        group = copy.copy(group)
        if group.typer_instance is not None:
            group.typer_instance = _listing(group.typer_instance)
        listing.registered_groups.append(group)
    return listing


def _without_parameters(callback: Callable[..., Any]) -> Callable[..., Any]:
    # Named and documented as the command, so typer gives it the same name and help.
    # Not functools.wraps: typer would follow __wrapped__ back to the parameters.
    def command() -> None:
        raise AssertionError("a command listed for help was run")  # pragma: no cover

    command.__name__ = callback.__name__
    command.__qualname__ = callback.__qualname__
    command.__doc__ = callback.__doc__
    return command


def _command_named(args: list[str]) -> str | None:
    # The first word that is not a root option or its value; None when an option comes
    # first that only the whole application reads (help, version, a mistake).
    words = iter(args)
    for word in words:
        if word in _ROOT_VALUED:
            next(words, None)
        elif word.partition("=")[0] in _ROOT_VALUED or word in _ROOT_FLAGS:
            continue
        elif word.startswith("-"):
            return None
        else:
            return word
    return None


_ROOT_VALUED = ("--root", "--timeout")
_ROOT_FLAGS = ("--debug",)
