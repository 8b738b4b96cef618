"""typer's ``CliRunner``, with each application's click command built once per process.

typer's own runner turns the application into a click command on every ``invoke``:
for snapline's, a tenth of a second each time, which was a third of the tree machine's
run and of every command-line test's. A click command holds no state between
invocations (every parse starts from its parameters), so building it once runs exactly
what a fresh one runs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache
from typing import IO, Any

import click
import typer
from click.testing import CliRunner as ClickCliRunner
from click.testing import Result

__all__ = ["CliRunner", "Result"]


class CliRunner(ClickCliRunner):
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
