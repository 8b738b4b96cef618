"""The store's errors, and the one place that turns an SQLite error into one of them.

Reads and transaction boundaries report failures as :class:`StoreBusyError` (another
process holds the store), :class:`StoreUsageError` (the calling code used the store in
a way SQLite refuses, such as after closing it: the file is fine) or
:class:`StoreCorruptError` (anything else SQLite refuses); :func:`translate` is the only
code that decides which.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from snapline.errors import SnaplineError
from snapline.store.schema import FORMAT_VERSION

__all__ = [
    "StoreBusyError",
    "StoreCorruptError",
    "StoreUsageError",
    "StoreVersionError",
    "translate",
]

# SQLITE_BUSY and SQLITE_LOCKED: the primary result codes of "someone else holds it".
_BUSY_CODES = frozenset({5, 6})


class StoreCorruptError(SnaplineError):
    """The store cannot be read: not a database, truncated, or inconsistent.

    Attributes:
        path: The store file.
        detail: What SQLite (or the format check) reported.
    """

    exit_code = 3

    def __init__(self, path: Path | str, detail: str) -> None:
        """Describe a store that cannot be read.

        Args:
            path: The store file.
            detail: What went wrong, as SQLite or the format check said it.
        """
        self.path = str(path)
        self.detail = detail
        super().__init__(
            f"the store at {path} is corrupt or unreadable: {detail}; nothing was written. "
            "Restore .snapline/ from a backup, or move it aside and run `snapline init` "
            "to start a new history"
        )


class StoreVersionError(StoreCorruptError):
    """The store was written by a newer snapline whose format this one does not know.

    Attributes:
        found: The format version the store declares.
    """

    def __init__(self, path: Path | str, found: int) -> None:
        """Describe a store whose format is newer than this snapline reads.

        Args:
            path: The store file.
            found: The format version it declares.
        """
        self.found = found
        SnaplineError.__init__(
            self,
            f"the store at {path} has format version {found}, newer than the {FORMAT_VERSION} "
            "this snapline reads; upgrade snapline",
        )
        self.path = str(path)
        self.detail = f"format version {found}"


class StoreBusyError(SnaplineError):
    """Another process held the store for longer than the busy timeout.

    Attributes:
        path: The store file.
        timeout: How long this process waited, in seconds.
    """

    exit_code = 4

    def __init__(self, path: Path | str, timeout: float) -> None:
        """Describe a store another process held past the timeout.

        Args:
            path: The store file.
            timeout: How long this process waited, in seconds.
        """
        self.path = str(path)
        self.timeout = timeout
        super().__init__(
            f"the store at {path} is busy: another snapline process held it for "
            f"{timeout:g}s; try again when it has finished"
        )


class StoreUsageError(SnaplineError):
    """The store was used in a way SQLite refuses (closed, misused); the file is fine.

    Never a sign of damage: the advice of :class:`StoreCorruptError` (start a new
    history) would destroy a sound one, so misuse is reported apart.

    Attributes:
        path: The store file.
        detail: What SQLite reported.
    """

    exit_code = 2

    def __init__(self, path: Path | str, detail: str) -> None:
        """Describe a use of the store that SQLite refused.

        Args:
            path: The store file.
            detail: What SQLite reported.
        """
        self.path = str(path)
        self.detail = detail
        super().__init__(
            f"the store at {path} cannot be used this way: {detail}; the store is sound "
            "and unchanged. If the workspace was closed, open it again (Workspace.open)"
        )


def translate(
    error: sqlite3.Error, path: Path | str, busy_timeout: float, detail: str | None = None
) -> StoreBusyError | StoreCorruptError | StoreUsageError:
    """The snapline error to raise for an SQLite error met while using the store.

    Callers raise what this returns (``raise translate(...) from None``), so that the
    success path costs nothing beyond a ``try``.

    Args:
        error: What SQLite raised.
        path: The store file.
        busy_timeout: How long the connection waited for a lock, in seconds.
        detail: The corruption detail to report instead of SQLite's message.

    Returns:
        :class:`StoreBusyError` when another connection held a lock past the timeout,
        :class:`StoreUsageError` when SQLite refused how it was called (a closed
        connection, a thread mistake: ``sqlite3.ProgrammingError``), else
        :class:`StoreCorruptError`.
    """
    if isinstance(error, sqlite3.ProgrammingError):
        return StoreUsageError(path, str(error))
    if isinstance(error, sqlite3.OperationalError) and _is_busy(error):
        return StoreBusyError(path, busy_timeout)
    return StoreCorruptError(path, str(error) if detail is None else detail)


def _is_busy(error: sqlite3.OperationalError) -> bool:
    code = getattr(error, "sqlite_errorcode", None)
    if code is not None:
        return code & 0xFF in _BUSY_CODES
    # Python 3.10 does not expose the result code; its messages for these two codes
    # are "database is locked" and "database table is locked".
    message = str(error)
    return "locked" in message or "busy" in message
