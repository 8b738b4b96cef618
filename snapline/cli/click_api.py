"""The click that typer runs on: its classes, exceptions and context, chosen once here.

From 0.26 typer carries its own copy of click (``typer._click``) and no longer uses the
click package: a command typer builds is a ``typer._click`` command, and only that
copy's exceptions, context and completion items are the ones its parser knows. Before
0.26 it builds on the click package. Every module of ``cli/`` takes click's names from
here (``from snapline.cli import click_api as click``), as dulwich chooses its fast
``_objects`` in one place, so no other module knows which it got.

Typer's own classes stand for those its copy has no twin of: a group is a
``typer.core.TyperGroup``, an option a ``TyperOption`` and an argument a ``TyperArgument``
under every version (before 0.26 they subclass click's ``Group``, ``Option``, ``Argument``).
"""

from __future__ import annotations

from typer.core import TyperArgument as Argument
from typer.core import TyperGroup as Group
from typer.core import TyperOption as Option

try:  # typer >= 0.26: its own copy
    from typer._click import (  # type: ignore[import-not-found, unused-ignore]
        Command,
        Context,
        HelpFormatter,
        Parameter,
    )
    from typer._click.exceptions import (  # type: ignore[import-not-found, unused-ignore]
        BadParameter,
        ClickException,
        MissingParameter,
        UsageError,
    )
    from typer._click.globals import (  # type: ignore[import-not-found, unused-ignore]
        get_current_context,
    )
    from typer._click.shell_completion import (  # type: ignore[import-not-found, unused-ignore]
        CompletionItem,
    )

    VENDORED = True
except ImportError:  # typer < 0.26: the click package
    from click import (  # type: ignore[assignment, no-redef, unused-ignore]
        Command,
        Context,
        HelpFormatter,
        Parameter,
        get_current_context,
    )
    from click.exceptions import (  # type: ignore[assignment, no-redef, unused-ignore]
        BadParameter,
        ClickException,
        MissingParameter,
        UsageError,
    )
    from click.shell_completion import (  # type: ignore[assignment, no-redef, unused-ignore]
        CompletionItem,
    )

    VENDORED = False

__all__ = [
    "VENDORED",
    "Argument",
    "BadParameter",
    "ClickException",
    "Command",
    "CompletionItem",
    "Context",
    "Group",
    "HelpFormatter",
    "MissingParameter",
    "Option",
    "Parameter",
    "UsageError",
    "get_current_context",
]
