"""The one place that turns an exception into an exit code and one line on stderr.

Exit codes (docs/cli.md): 0 success; 1 a validation or sync failure; 2 a usage error;
3 a corrupt or unreadable store; 4 the store is busy. A :class:`~snapline.SnaplineError`
says its own code in ``exit_code``; usage errors found by the argument parser exit 2
before any of this runs.
"""

from __future__ import annotations

import errno
import sys

__all__ = ["EXIT_BUSY", "EXIT_CORRUPT", "EXIT_FAILURE", "EXIT_OK", "EXIT_USAGE", "exit_code_for"]

EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_USAGE = 2
EXIT_CORRUPT = 3
EXIT_BUSY = 4

# A path the user named that is not there or not the right kind of thing is a usage
# error; anything else the OS refuses (permissions, a full disk) is a failure.
_USAGE_OS_ERRORS = (FileNotFoundError, NotADirectoryError, IsADirectoryError, FileExistsError)


def exit_code_for(error: Exception, *, debug: bool = False) -> int:
    """Print ``snapline: error: <message>`` for ``error`` and return its exit code.

    Args:
        error: What a command raised.
        debug: Re-raise instead, so the traceback is shown (``--debug``).

    Raises:
        Exception: ``error`` itself, with ``debug``, or for a broken pipe (the argument
            parser's caller exits quietly on one).
    """
    from snapline.errors import SnaplineError

    if debug or (isinstance(error, OSError) and error.errno == errno.EPIPE):
        raise error
    if isinstance(error, SnaplineError):
        _say(str(error))
        return int(error.exit_code)
    if isinstance(error, OSError):
        _say(_os_message(error))
        return EXIT_USAGE if isinstance(error, _USAGE_OS_ERRORS) else EXIT_FAILURE
    # A bug in snapline: still one line (tracebacks are for --debug), but say so.
    _say(
        f"internal error: {type(error).__name__}: {error}; "
        "rerun with --debug for the traceback and report it"
    )
    return EXIT_FAILURE


def _os_message(error: OSError) -> str:
    if error.strerror and error.filename is not None:
        return f"{error.strerror}: {error.filename}"
    return error.strerror or str(error)


def _say(message: str) -> None:
    # One line, whatever the library put in the message.
    line = " ".join(message.split())
    sys.stderr.write(f"snapline: error: {line}\n")
