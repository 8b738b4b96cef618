"""How a command's usage line and ``--help`` name its arguments, the same under every typer.

typer and click have changed how an argument reads: typer 0.26 writes a required one as
``{N}``, wraps a metavar that already says ``[PATH]...`` again (``[[PATH]...]...``) and
adds its type and range (``M <int range>``, ``[x>=1; required]``); click 8.5 lists the
arguments a second time, under "Positional arguments". docs/cli.md writes them as typer
0.24 on click 8.2 did: the metavar declared, in brackets when the argument is optional,
then its help and whether it is required. :class:`Command` (typer's command class, given
as ``cls=`` to every command with arguments) keeps that reading; the options' rows and
everything else are typer's.
"""

from __future__ import annotations

from typer.core import TyperCommand

from snapline.cli import click_api as click

__all__ = ["Command", "shown"]


class Command(TyperCommand):
    """A typer command whose arguments read as their declared metavar."""

    def collect_usage_pieces(self, ctx: click.Context) -> list[str]:
        """The words after the command's name in its usage line."""
        pieces = [self.options_metavar] if self.options_metavar else []
        for param in self.get_params(ctx):
            own = shown(param)
            pieces.extend([own] if own is not None else param.get_usage_pieces(ctx))
        return pieces

    def format_arguments(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """Nothing: click 8.5's own section of the arguments (:meth:`format_options` lists them)."""

    def format_options(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The arguments' section, then the options', as typer writes them."""
        arguments, options = [], []
        for param in self.get_params(ctx):
            own = shown(param)
            if own is not None and isinstance(param, click.Argument):
                # Its help, and whether it is required: typer 0.26 adds a range (x>=1).
                said = [param.help or ""] + (["[required]"] if param.required else [])
                arguments.append((own, "  ".join(word for word in said if word)))
                continue
            record = param.get_help_record(ctx)
            if record is not None and param.param_type_name == "option":
                options.append(record)  # click's own --help is an option, not a TyperOption
        for title, rows in (("Arguments", arguments), ("Options", options)):
            if rows:
                with formatter.section(title):
                    formatter.write_dl(rows)


def shown(param: click.Parameter) -> str | None:
    """How an argument reads in its command's usage line and help.

    Args:
        param: One parameter of a command.

    Returns:
        The argument's declared metavar, bracketed when it is optional (``[NAME]``; one
        that already starts with a bracket, ``[PATH]...``, as it is); None for an option
        or an argument declared without a metavar (typer's own reading then).
    """
    if not isinstance(param, click.Argument) or param.metavar is None:
        return None
    if param.required or param.metavar.startswith("["):
        return param.metavar
    return f"[{param.metavar}]"
