"""The one place that turns an exception into an exit code and one line on stderr.

Exit codes (docs/cli.md): 0 success; 1 a validation or sync failure; 2 a usage error;
3 a corrupt or unreadable store; 4 the store is busy. A :class:`~snapline.SnaplineError`
says its own code in ``exit_code``; usage errors found by the argument parser exit 2
before any of this runs.

With ``--json`` an error is also one JSON object on stdout, so a tool reading stdout
never meets an empty one: ``{"error": message, "kind": class name, "exit_code": n}``.
Messages name the command line's options, never the library's arguments.
"""

from __future__ import annotations

import errno
import json
import sys
from typing import Any

__all__ = [
    "EXIT_BUSY",
    "EXIT_CORRUPT",
    "EXIT_FAILURE",
    "EXIT_OK",
    "EXIT_USAGE",
    "describe",
    "error_json",
    "exit_code_for",
]

EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_USAGE = 2
EXIT_CORRUPT = 3
EXIT_BUSY = 4

# A path the user named that is not there or not the right kind of thing is a usage
# error; anything else the OS refuses (permissions, a full disk) is a failure.
_USAGE_OS_ERRORS = (FileNotFoundError, NotADirectoryError, IsADirectoryError, FileExistsError)


def exit_code_for(error: Exception, *, debug: bool = False, as_json: bool = False) -> int:
    """Print ``snapline: error: <message>`` for ``error`` and return its exit code.

    Args:
        error: What a command raised.
        debug: Re-raise instead, so the traceback is shown (``--debug``).
        as_json: Also print the error as one JSON object on stdout (``--json``).

    Returns:
        The exit code (docs/cli.md).

    Raises:
        Exception: ``error`` itself, with ``debug``, or for a broken pipe (the argument
            parser's caller exits quietly on one).
    """
    if debug or (isinstance(error, OSError) and error.errno == errno.EPIPE):
        raise error
    message, code = describe(error)
    _say(message)
    if as_json:
        _print_json(error_json(message, type(error).__name__, code))
    return code


def describe(error: Exception) -> tuple[str, int]:
    """The one-line message the command line shows for ``error``, and its exit code."""
    from snapline.errors import SnaplineError

    if isinstance(error, SnaplineError):
        return _cli_wording(error), int(error.exit_code)
    if isinstance(error, OSError):
        code = EXIT_USAGE if isinstance(error, _USAGE_OS_ERRORS) else EXIT_FAILURE
        return _os_message(error), code
    # A bug in snapline: still one line (tracebacks are for --debug), but say so.
    return (
        f"internal error: {type(error).__name__}: {error}; "
        "rerun with --debug for the traceback and report it",
        EXIT_FAILURE,
    )


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

    if isinstance(error, MilestoneContinuityError):
        return f"{error.problem}; pass --from {error.expected} or leave --from out"
    if isinstance(error, MilestoneRangeError) and error.end is not None:
        if error.end > error.latest:
            return f"{error.problem}; pass --to {error.latest} or --to latest"
        if error.end < error.start:
            return f"{error.problem}; pass a --to from {error.start} to {error.latest}"
    if isinstance(error, UnsafeRootError):
        return f"{error.problem}, or pass --force if you really mean it"
    return str(error)


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
