"""typer's ``CliRunner``; before typer 0.26, with each application's click command built once.

typer's own runner turns the application into a click command on every ``invoke``.
Before 0.26 (typer on the click package), for snapline's, a tenth of a second each time,
which was a third of the tree machine's run and of every command-line test's: there the
runner is click's, handed a click command built once per process. A click command holds
no state between invocations (every parse starts from its parameters), so building it
once runs exactly what a fresh one runs. From 0.26 typer's copy of click has no runner
of its own to hand a command to (``snapline/cli/click_api.py``), and typer builds the
root in a few milliseconds: its runner is used as it is.
"""

from __future__ import annotations

from snapline.cli.click_api import VENDORED

if VENDORED:
    from typer.testing import CliRunner, Result
else:
    from collections.abc import Mapping, Sequence
    from functools import cache
    from typing import IO, Any

    import typer
    from click.testing import CliRunner as ClickCliRunner
    from click.testing import Result

    from snapline.cli import click_api as click

    class CliRunner(ClickCliRunner):  # type: ignore[no-redef]
        """``typer.testing.CliRunner``, invoking a cached click command of the application."""

        def invoke(  # type: ignore[override]
            self,
            app: typer.Typer,
            args: str | Sequence[str] | None = None,
            input: bytes | str | IO[Any] | None = None,
            env: Mapping[str, str | None] | None = None,
            catch_exceptions: bool = True,
            color: bool = False,
            **extra: Any,
        ) -> Result:
            return super().invoke(
                _command(app),
                args=args,
                input=input,
                env=env,
                catch_exceptions=catch_exceptions,
                color=color,
                **extra,
            )

    @cache
    def _command(app: typer.Typer) -> click.Command:
        return typer.main.get_command(app)


__all__ = ["CliRunner", "Result"]
