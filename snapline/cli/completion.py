"""``--install-completion [SHELL]`` and ``--show-completion [SHELL]``: typer's, a shell named.

typer's own options are flags when shellingham is installed: the shell is always guessed
from the process tree, and a word after the option is never read, so
``snapline --show-completion bash`` from a script, a Makefile or CI (no shell above it)
printed "Shell  not supported" and exited 1. Here the shell named on the command line is
the answer whatever the parent process; only a bare option guesses, and says what to do
when it cannot tell.
"""

from __future__ import annotations

import contextlib
from typing import Any

import click

__all__ = ["SHELLS", "name_shells"]

SHELLS = ("bash", "zsh", "fish", "powershell", "pwsh")
"""The shells typer writes a completion script for."""

_OPTIONS = {"install_completion": "--install-completion", "show_completion": "--show-completion"}


def name_shells(command: click.Command) -> None:
    """Replace typer's two completion options of ``command`` with ones taking a shell's name.

    Idempotent: an option already replaced is left as it is.

    Args:
        command: The root click command typer built (with ``add_completion=True``, so
            typer has set up its completion classes).
    """
    for index, param in enumerate(command.params):
        if param.name in _OPTIONS and not isinstance(param, _ShellOption):
            command.params[index] = _ShellOption(param)


class _ShellOption(click.Option):
    """One of typer's completion options, with an optional value: the shell."""

    def __init__(self, typer_option: click.Parameter) -> None:
        flag = _OPTIONS[typer_option.name or ""]
        installs = flag == "--install-completion"
        super().__init__(
            [flag],
            is_flag=False,
            flag_value="",
            default=None,
            metavar="[SHELL]",
            expose_value=False,
            is_eager=True,
            callback=self._run,
            help=(
                "Install completion for SHELL (bash, zsh, fish, powershell, pwsh; "
                "default: the shell running snapline)."
                if installs
                else "Show the completion script for SHELL (default: the shell running "
                "snapline), to install it by hand."
            ),
        )
        self._typer_callback = typer_option.callback

    def _run(self, ctx: click.Context, param: click.Parameter, value: str | None) -> Any:
        if value is None or ctx.resilient_parsing:
            return value
        shell = _shell(value, self.opts[0])
        assert self._typer_callback is not None
        # typer's callback writes the script (or installs it) for the shell it is given
        # as a string, and exits.
        return self._typer_callback(ctx, param, shell)


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
