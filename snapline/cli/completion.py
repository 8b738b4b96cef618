"""``--install-completion [SHELL]`` and ``--show-completion [SHELL]``: typer's, a shell named.

typer's own options are flags when shellingham is installed: the shell is always guessed
from the process tree, and a word after the option is never read, so
``snapline --show-completion bash`` from a script, a Makefile or CI (no shell above it)
printed "Shell  not supported" and exited 1. Here the shell named on the command line is
the answer whatever the parent process; only a bare option guesses, and says what to do
when it cannot tell.

The two options take a value, declared with typer's public ``typer.Option`` (so they are
options of whichever click typer runs on, ``cli/click_api.py``); a bare one is given the
empty value before the root parses its words (:func:`shell_words`), as click's optional
values did: typer's own copy of click has none.
"""

from __future__ import annotations

import contextlib
from typing import Annotated, Any

import typer

from snapline.cli import click_api as click
from snapline.cli.commands import ROOT, root_option

__all__ = ["SHELLS", "name_shells", "shell_words"]

SHELLS = ("bash", "zsh", "fish", "powershell", "pwsh")
"""The shells typer writes a completion script for."""

_OPTIONS = {"install_completion": "--install-completion", "show_completion": "--show-completion"}

_BUILT: list[click.Parameter] = []


def name_shells(command: click.Command) -> None:
    """Replace typer's two completion options of ``command`` with ones taking a shell's name.

    Idempotent: an option already replaced is left as it is.

    Args:
        command: The root click command typer built (with ``add_completion=True``, so
            typer has set up its completion classes).
    """
    ours = _options()
    for index, param in enumerate(command.params):
        if param.name in _OPTIONS and param not in ours:
            command.params[index] = next(one for one in ours if one.name == param.name)


def shell_words(args: list[str]) -> list[str]:
    """The root's words, with the empty value given to a bare completion option.

    A completion option is bare when it is the last word or the next one is an option,
    as click read an optional value.

    Args:
        args: The words after ``snapline``.

    Returns:
        The same words; a bare ``--show-completion`` reads ``--show-completion=``.
    """
    takes_value = {name for option in ROOT.options if option.value for name in option.names}
    found = list(args)
    index = 0
    while index < len(found):
        word = found[index]
        if word in _OPTIONS.values():
            if index + 1 == len(found) or found[index + 1].startswith("-"):
                found[index] = f"{word}="
            return found
        if word == "--" or not word.startswith("-"):
            return found  # the command's words follow: not the root's
        index += 2 if word in takes_value else 1
    return found


def _options() -> list[click.Parameter]:
    # Built by typer from a function's signature, once a process: the options are then
    # of the classes typer's parser reads, under every typer.
    if not _BUILT:
        one = typer.Typer(add_completion=False, rich_markup_mode=None)
        one.command()(_declared)
        _BUILT.extend(typer.main.get_command(one).params)
    return _BUILT


def _shell_option(flag: str) -> Any:
    """The option ``flag`` (one of ``_OPTIONS``), its value the name of a shell."""

    def callback(ctx: typer.Context, param: typer.CallbackParam, value: str | None) -> Any:
        if value is None or ctx.resilient_parsing:
            return value
        from typer.completion import install_callback, show_callback

        # typer's callback installs or writes the script for the shell it is given, and exits.
        typer_callback = install_callback if flag == "--install-completion" else show_callback
        return typer_callback(ctx, param, _shell(value, flag))

    return typer.Option(
        flag,
        metavar="[SHELL]",
        expose_value=False,
        is_eager=True,
        callback=callback,
        show_default=False,
        help=root_option(flag).help,
    )


def _declared(
    install_completion: Annotated[str | None, _shell_option("--install-completion")] = None,
    show_completion: Annotated[str | None, _shell_option("--show-completion")] = None,
) -> None:
    """Declare the two options (never called: their values are not passed on)."""


def _shell(named: str, flag: str) -> str:
    if named:
        if named.lower() not in SHELLS:
            raise click.BadParameter(
                f"{named!r} is not a shell snapline completes; name one of {', '.join(SHELLS)}.",
                param_hint=f"'{flag}'",
            )
        return named.lower()
    detected = ""
    try:
        import shellingham  # type: ignore[import-untyped]  # typer's way of naming the shell
    except ImportError:
        pass
    else:
        with contextlib.suppress(shellingham.ShellDetectionFailure):
            detected, _ = shellingham.detect_shell()
    if detected.lower() not in SHELLS:
        raise click.UsageError(
            "could not tell which shell runs snapline (no shell above this process); "
            f"name it: snapline {flag} bash (or {', '.join(SHELLS[1:])})."
        )
    return str(detected).lower()
