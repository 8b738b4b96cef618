"""The store's errors, and the one place that turns an SQLite error into one of them.

Reads, writes and transaction boundaries report failures as :class:`StoreBusyError`
(another process holds the store), :class:`StoreAccessError` (the operating system
refused: permissions, a full disk, a file-size limit, an I/O error),
:class:`StoreUsageError` (the calling code used the store in a way SQLite refuses, such
as after closing it: the file is fine) or :class:`StoreCorruptError` (the data itself
cannot be read); :func:`translate` is the only code that decides which. A history this
snapline reads and no longer writes (the 0.2 in-tree ledger) refuses every write with
:class:`InTreeLedgerError`, and so does a history on git's refs while a git merge
brought such a ledger back into the checkout (:class:`MergedLedgerError`). No message
advises starting a new history: only a check that proves the store damaged may
(``snapline verify``).
"""

from __future__ import annotations

import errno
import sqlite3
from enum import Enum
from pathlib import Path

from snapline.errors import SnaplineError
from snapline.store.index_damage import cache_index, rebuild_advice
from snapline.store.schema import FORMAT_VERSION

__all__ = [
    "AccessProblem",
    "InTreeLedgerError",
    "MergedLedgerError",
    "StoreAccessError",
    "StoreBusyError",
    "StoreCorruptError",
    "StoreUsageError",
    "StoreVersionError",
    "access_problem",
    "store_folder",
    "translate",
]

# SQLite's primary result codes (https://sqlite.org/rescode.html).
_BUSY_CODES = frozenset({5, 6})  # SQLITE_BUSY, SQLITE_LOCKED: someone else holds it
_PERMISSION_CODES = frozenset({3, 8, 23})  # SQLITE_PERM, SQLITE_READONLY, SQLITE_AUTH
_CANTOPEN = 14  # SQLITE_CANTOPEN
_FULL = 13  # SQLITE_FULL
_IOERR = 10  # SQLITE_IOERR: a write or read the OS refused (EFBIG, ENOSPC, EIO...)
_CORRUPT_CODES = frozenset({11, 26})  # SQLITE_CORRUPT, SQLITE_NOTADB: the file itself


class StoreCorruptError(SnaplineError):
    """The store cannot be read: not a database, truncated, or inconsistent.

    Attributes:
        path: The store file.
        detail: What SQLite (or the format check) reported.
        in_verify: The message as ``snapline verify`` says it (not sent to itself).
    """

    exit_code = 3

    def __init__(self, path: Path | str, detail: str, *, index: bool = False) -> None:
        """Describe a store that cannot be read.

        Args:
            path: The store file.
            detail: What went wrong, as SQLite or the format check said it.
            index: SQLite found ``path`` itself damaged, and it is a local index built
                from the history (:func:`~snapline.store.index_damage.cache_index`).
        """
        self.path = str(path)
        self.detail = detail
        if index:
            # SQLite's damage a query met (one found on opening is set aside itself).
            super().__init__(
                f"the local index {path} is damaged: {detail}; nothing was written. It is "
                f"a cache of the history, which is untouched: {rebuild_advice(Path(path))}"
            )
            return
        found = f"the store at {path} is corrupt or unreadable: {detail}; nothing was written."
        repair = _repair(Path(path))
        super().__init__(f"{found} Run `snapline verify` to check the whole store, and {repair}")
        self.in_verify = f"{found} {repair[0].upper()}{repair[1:]}"


def _repair(path: Path) -> str:
    """The way to a sound copy of the damaged store at ``path``, as that store keeps it.

    An in-tree store (``.snapline/``) has copies as files: a backup, or git where it was
    committed. A history on git's refs has no ``.snapline/`` (its index is under the git
    directory, its damage named by a ref): git names what is damaged, and a remote that
    has the history sends its objects again. ``snapline fetch`` (as a plain ``git
    fetch``) would not: it sees the refs up to date and sends nothing, and ``--refetch``
    (git 2.36) takes every object anew; without ``+`` no local ref is forced. Never a new
    history: that would destroy a sound one (module doc).
    """
    folder = store_folder(path)
    if folder is not None:
        if (folder / "repo").is_dir():  # outside git: the private repository is in it
            return "restore .snapline/ from a backup if it is damaged"
        return "restore .snapline/ from a backup or from git if it is damaged"
    return (
        "if it is damaged: the history is on git's refs (refs/snapline/), where `git fsck` "
        "names the damaged objects and `git fetch --refetch REMOTE 'refs/snapline/*:"
        "refs/snapline/*'` brings them again from a remote that has the history"
    )


class StoreVersionError(StoreCorruptError):
    """The store was written by a newer snapline whose format this one does not know.

    Attributes:
        found: The format version the store declares.
    """

    def __init__(self, path: Path | str, found: int, known: int = FORMAT_VERSION) -> None:
        """Describe a store whose format is newer than this snapline reads.

        Args:
            path: The store file.
            found: The format version it declares.
            known: The newest version this snapline reads (the index's, unless given).
        """
        self.found = found
        SnaplineError.__init__(
            self,
            f"the store at {path} has format version {found}, newer than the {known} "
            "this snapline reads; upgrade snapline",
        )
        self.path = str(path)
        self.detail = f"format version {found}"


class AccessProblem(str, Enum):
    """What the operating system refused when the store was used."""

    PERMISSION = "permission"
    OPEN = "open"
    SPACE = "space"
    IO = "io"


_ACCESS_ADVICE = {
    AccessProblem.PERMISSION: (
        "permission denied (a read-only file, directory or file system); give this user "
        "write access to {state} and try again"
    ),
    AccessProblem.OPEN: (
        "the file or its directory cannot be opened (missing, or no permission); check "
        "{state} and its permissions and try again"
    ),
    AccessProblem.SPACE: "the disk is full; free some space and try again",
    AccessProblem.IO: (
        "the operating system refused to read or write it (no space left, a file-size "
        "limit reached, or a failing disk); free space or raise the limit and try again"
    ),
}


class StoreAccessError(SnaplineError):
    """The operating system refused the store: permissions, space, limits or I/O.

    The store itself is not known to be damaged, and nothing was written.

    Attributes:
        path: The store file.
        problem: What was refused.
        detail: What SQLite reported.
    """

    exit_code = 1

    def __init__(self, path: Path | str, problem: AccessProblem, detail: str) -> None:
        """Describe a store the operating system would not let snapline use.

        Args:
            path: The store file.
            problem: What was refused.
            detail: What SQLite (or the OS) reported.
        """
        self.path = str(path)
        self.problem = problem
        self.detail = detail
        advice = _ACCESS_ADVICE[problem].format(state=_state_name(Path(path)))
        super().__init__(
            f"cannot use the store at {path} ({detail}): {advice}; nothing was recorded"
        )


def store_folder(path: Path) -> Path | None:
    """The ``.snapline/`` folder holding the store file ``path``; ``None`` on git's refs.

    A history on git's refs has its index under the git directory and names its damage
    by a ref (``refs/snapline/...``): no ``.snapline/`` to restore there.
    """
    for folder in (path, *path.parents):
        if folder.name == ".snapline":
            return folder
    return None


def _state_name(path: Path) -> str:
    """The directory a store file is in, as a user knows it: ``.snapline/`` or ``.git/snapline/``.

    On git's refs the local state is under the git directory (``.git/snapline/``, or a
    linked work tree's ``.git/worktrees/NAME/snapline/``): the advice names it there.
    """
    for folder in (path, *path.parents):
        if folder.name == ".snapline":
            return ".snapline/"
        if folder.name == "snapline" and (folder.parent / "HEAD").is_file():
            return ".git/snapline/" if folder.parent.name == ".git" else f"{folder}/"
    return ".snapline/"


class InTreeLedgerError(SnaplineError):
    """This checkout's history is the 0.2 in-tree ledger, which this snapline only reads.

    Every command that would write it (record, edits, run, rollback, milestones,
    forget, guard, merge...) refuses before changing anything; reading commands answer
    as before, and ``snapline upgrade`` moves the history onto git's refs.

    Attributes:
        path: The ledger directory.
    """

    exit_code = 1

    def __init__(self, path: Path | str) -> None:
        """Describe the refused write.

        Args:
            path: The ledger directory (``<root>/.snapline/ledger``).
        """
        self.path = str(path)
        super().__init__(
            "this checkout's history is the 0.2 in-tree ledger, .snapline/ledger/, which "
            "this snapline reads but no longer writes: run `snapline upgrade` to move it "
            "onto git's refs, then try again; nothing was changed"
        )


class MergedLedgerError(InTreeLedgerError):
    """A git merge brought an old branch's in-tree ledger into a work tree whose history is on refs.

    That branch's snapshots are not on git's refs yet: its files look untracked, and a
    write (``resync`` above all) would file that branch's recorded work as a person's
    edit. Every write refuses until ``snapline upgrade`` moves them (then ``snapline
    merge`` joins that line); reading commands answer as before.

    Attributes:
        path: The ledger directory the merge brought back.
    """

    def __init__(self, path: Path | str) -> None:
        """Describe the refused write.

        Args:
            path: The ledger directory (``<root>/.snapline/ledger``).
        """
        self.path = str(path)
        SnaplineError.__init__(
            self,
            "a git merge brought .snapline/ledger/ back from a branch whose history is "
            "still in the tree, and its snapshots are not on git's refs yet: run "
            "`snapline upgrade` to move them (then `snapline merge` joins that line), "
            "then try again; nothing was changed",
        )


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
) -> StoreBusyError | StoreAccessError | StoreCorruptError | StoreUsageError:
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
        :class:`StoreAccessError` when the operating system refused (permissions, space,
        limits, I/O), :class:`StoreUsageError` when SQLite refused how it was called (a
        closed connection, a thread mistake: ``sqlite3.ProgrammingError``), else
        :class:`StoreCorruptError`.
    """
    if isinstance(error, sqlite3.ProgrammingError):
        return StoreUsageError(path, str(error))
    code = _primary_code(error)
    if code in _BUSY_CODES:
        return StoreBusyError(path, busy_timeout)
    problem = _ACCESS_CODES.get(code) if code is not None else None
    if problem is not None:
        return StoreAccessError(path, problem, str(error))
    damaged = code in _CORRUPT_CODES and cache_index(Path(path))
    return StoreCorruptError(path, str(error) if detail is None else detail, index=damaged)


_ACCESS_CODES = {
    **dict.fromkeys(_PERMISSION_CODES, AccessProblem.PERMISSION),
    _CANTOPEN: AccessProblem.OPEN,
    _FULL: AccessProblem.SPACE,
    _IOERR: AccessProblem.IO,
}

# Python 3.10 does not expose the result code: SQLite's fixed messages for each
# (sqlite3ErrStr) stand in for it there.
_MESSAGES = (
    ("database is locked", 5),
    ("database table is locked", 6),
    ("attempt to write a readonly database", 8),
    ("unable to open database file", 14),
    ("access permission denied", 3),
    ("database or disk is full", 13),
    ("disk I/O error", 10),
)


def _primary_code(error: sqlite3.Error) -> int | None:
    code = getattr(error, "sqlite_errorcode", None)
    if isinstance(code, int):
        return code & 0xFF
    message = str(error)
    for text, number in _MESSAGES:
        if text in message:
            return number
    return None


def access_problem(error: OSError) -> AccessProblem:
    """What an ``OSError`` met on a store file says the operating system refused.

    Args:
        error: The error.

    Returns:
        The kind of problem, for :class:`StoreAccessError`.
    """
    if error.errno in (errno.ENOSPC, errno.EDQUOT):
        return AccessProblem.SPACE
    if error.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return AccessProblem.PERMISSION
    return AccessProblem.IO
