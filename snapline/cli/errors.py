"""The one place that turns an exception into an exit code and one line on stderr.

Exit codes (docs/cli.md): 0 success; 1 a validation or sync failure (also whatever the
operating system refuses: an ``OSError``); 2 a usage error, only; 3 a corrupt or
unreadable store; 4 the store is busy; 5 git could not push or fetch the history at
all (``snapline push``/``fetch``); 70 an internal error, a bug in snapline
(``EX_SOFTWARE`` of BSD's sysexits.h). A :class:`~snapline.SnaplineError` says its own
code in ``exit_code``; usage errors found by the argument parser exit 2 before any of
this runs.

With ``--json`` an error is also one JSON object on stdout, so a tool reading stdout
never meets an empty one: ``{"error": message, "kind": class name, "exit_code": n}``;
an internal error's kind is ``InternalError``. ``--debug`` (or ``SNAPLINE_DEBUG=1``, for
the paths that start without the typer application) prints the traceback first.
Messages name the command line's options, never the library's arguments.
"""

from __future__ import annotations

import errno
import json
import os
import sys
import traceback
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from snapline.snapshots.results import Conflict

__all__ = [
    "EXIT_BUSY",
    "EXIT_CORRUPT",
    "EXIT_FAILURE",
    "EXIT_INTERNAL",
    "EXIT_OK",
    "EXIT_USAGE",
    "FORCE_ADVICE",
    "FORCE_OFFERED",
    "INTERNAL_KIND",
    "RESYNC_ADVICE",
    "describe",
    "error_json",
    "exit_code_for",
    "kind_of",
    "restore_advice",
]

EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_USAGE = 2
EXIT_CORRUPT = 3
EXIT_BUSY = 4
EXIT_INTERNAL = 70
"""A bug in snapline: sysexits.h's ``EX_SOFTWARE``, far from the codes given meanings
above (so a CI script never takes a crash for a typo, 2, or a failed check, 1), below
126-255, which shells use for "cannot run" and signals, and unused by ``run`` itself
(which passes its command's code through only when the command ran)."""

FORCE_ADVICE = (
    "record the outside changes with `snapline resync -m TEXT` first, or pass --force, "
    "which records them first so they are not lost"
)
"""The way out of a rollback (undo, redo) refused over outside changes, on the command line."""

FORCE_OFFERED = "snapline.force_offered"
"""The key a command with ``--force`` sets in click's context ``meta`` (shared by every
nested context), so that a refusal's advice names ``--force`` only where it exists."""

RESYNC_ADVICE = "record the outside changes with `snapline resync -m TEXT` first, then try again"
"""The way out of a revert refused over outside changes: a revert cannot be forced."""

INTERNAL_KIND = "InternalError"
"""The ``kind`` of an internal error under ``--json`` (the exception's own class is in
the message): a tool can tell a crash from every error snapline raises on purpose."""


def exit_code_for(error: Exception, *, debug: bool = False, as_json: bool = False) -> int:
    """Print ``snapline: error: <message>`` for ``error`` and return its exit code.

    Args:
        error: What a command raised.
        debug: Print the traceback on stderr first (``--debug``; also when the
            environment sets ``SNAPLINE_DEBUG=1``).
        as_json: Also print the error as one JSON object on stdout (``--json``).

    Returns:
        The exit code (docs/cli.md).

    Raises:
        OSError: ``error`` itself for a broken pipe (the caller exits quietly on one).
    """
    if isinstance(error, OSError) and error.errno == errno.EPIPE:
        raise error
    if debug or os.environ.get("SNAPLINE_DEBUG") == "1":
        # The traceback first, then the same one line and the same exit code as
        # without --debug: a script sees the same code either way.
        traceback.print_exception(error, file=sys.stderr)
    message, code = describe(error)
    _say(message)
    if as_json:
        _print_json(error_json(message, kind_of(error), code))
    return code


def describe(error: Exception) -> tuple[str, int]:
    """The one-line message the command line shows for ``error``, and its exit code."""
    from snapline.errors import SnaplineError

    if isinstance(error, SnaplineError):
        return _cli_wording(error), int(error.exit_code)
    if isinstance(error, OSError):
        # What the operating system refused or reported (permission denied, a full
        # disk, a file that vanished or changed kind meanwhile) is a failure, never a
        # usage error: a path the user typed wrong is refused before anything runs,
        # by the errors that say so (UnknownPathError, UnsafePathError...).
        return _os_message(error), EXIT_FAILURE
    # A bug in snapline: still one line (tracebacks are for --debug), but say so.
    return (
        f"internal error (a bug in snapline): {type(error).__name__}: {error}; please "
        "report it to the snapline maintainers with `snapline --version` and the traceback "
        "that the same command prints with --debug (or SNAPLINE_DEBUG=1)",
        EXIT_INTERNAL,
    )


def kind_of(error: Exception) -> str:
    """The ``kind`` of ``error`` under ``--json``: its class name, or ``InternalError``."""
    from snapline.errors import SnaplineError

    if isinstance(error, (SnaplineError, OSError)):
        return type(error).__name__
    return INTERNAL_KIND


def error_json(message: str, kind: str, code: int) -> dict[str, Any]:
    """The JSON object of an error under ``--json``.

    Args:
        message: The line also printed on stderr.
        kind: The exception's class name (``"MilestoneNotFoundError"``; ``"UsageError"``
            for one found by the argument parser).
        code: The exit code.

    Returns:
        ``{"error": message, "kind": kind, "exit_code": code}``.
    """
    return {"error": _line(message), "kind": kind, "exit_code": code}


def _print_json(data: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    sys.stdout.flush()


def _cli_wording(error: Exception) -> str:
    # The library's advice names its own arguments (start=5); said on the command line
    # it must name the options instead. The errors carry the data to say it.
    from snapline.milestones import MilestoneContinuityError, MilestoneRangeError
    from snapline.opening import UnsafeRootError
    from snapline.snapshots.record.plan import ConflictsError
    from snapline.snapshots.restore.rollback import RollbackConflictError

    if isinstance(error, MilestoneContinuityError):
        return f"{error.problem}; pass --from {error.expected} or leave --from out"
    if isinstance(error, MilestoneRangeError) and error.end is not None:
        if error.end > error.latest:
            return f"{error.problem}; pass --to {error.latest} or --to latest"
        if error.end < error.start:
            return f"{error.problem}; pass a --to from {error.start} to {error.latest}"
    if isinstance(error, UnsafeRootError):
        return f"{error.problem}, or pass --force if you really mean it"
    if isinstance(error, ConflictsError):
        can_force = isinstance(error, RollbackConflictError) and _force_offered()
        advice = restore_advice(error.conflicts, can_force=can_force)
        return f"{error.problem}; {advice}" if advice else error.problem
    return str(error)


def restore_advice(conflicts: Iterable[Conflict], *, can_force: bool) -> str | None:
    """The way out of a restore refused over ``conflicts``, naming the command's options.

    Args:
        conflicts: What stands in the way.
        can_force: Whether the command has ``--force`` (rollback, undo, redo; not revert);
            not offered over ``unmerged`` paths, which no forced restore settles.

    Returns:
        The advice for outside changes; ``None`` when there are none, since every other
        conflict's own message says what to do (``snapline merge`` for ``unmerged``).
    """
    from snapline.snapshots.check.merged import UNMERGED
    from snapline.snapshots.results import FORCEABLE

    kinds = {c.kind for c in conflicts}
    if not kinds & FORCEABLE:
        return None
    # Another line's merged work stands in the way too: --force records the outside
    # changes, never that (the conflict's message says `snapline merge`).
    return FORCE_ADVICE if can_force and UNMERGED not in kinds else RESYNC_ADVICE


def _force_offered() -> bool:
    # `guard --rollback` rolls back too, but has no --force: only a command that offers
    # it says so (typer is loaded by then: only the typer commands restore).
    from snapline.cli import click_api as click

    ctx = click.get_current_context(silent=True)
    return bool(ctx is not None and ctx.meta.get(FORCE_OFFERED))


def _os_message(error: OSError) -> str:
    if error.strerror and error.filename is not None:
        return f"{error.strerror}: {error.filename}"
    return error.strerror or str(error)


def _line(message: str) -> str:
    from snapline.cli.quoting import quote_text

    # One line, whatever the library put in the message: a file name in it may hold a
    # newline (a fake second line), a carriage return or a terminal escape. Escaped,
    # not collapsed, so the name still reads exactly.
    return quote_text(message.strip())


def _say(message: str) -> None:
    sys.stderr.write(f"snapline: error: {_line(message)}\n")
