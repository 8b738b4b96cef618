"""The public API: a :class:`Workspace` is a directory tree with its history in ``.snapline/``.

Every mutating call takes the workspace's writer lock, undoes any write a dead process
left half done, and commits through one store transaction (see
``snapshots/record/recorder.py``). Reading calls take no lock. The class is assembled
from one part per concern: ``recording``, ``restoring`` and ``reading``; opening lives
in ``snapline/opening.py``.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from snapline.lazy import lazy_exports
from snapline.opening import (
    AlreadyInitializedError,
    NotInitializedError,
    UnsafeRootError,
    create_store,
    find_root,
    open_store,
)
from snapline.snapshots.record.build import Limits
from snapline.workspace.base import DEFAULT_TIMEOUT, PathArg
from snapline.workspace.blaming import Blaming
from snapline.workspace.branching import Branching
from snapline.workspace.diffs import Diffing
from snapline.workspace.forgetting import Forgetting
from snapline.workspace.guarding import Guarding
from snapline.workspace.reading import Reading
from snapline.workspace.recording import Recording, Tracking, UnknownPathError
from snapline.workspace.restoring import Restoring

if TYPE_CHECKING:
    from snapline.snapshots.read.history import SnapshotNotFoundError

# Only what recording needs is imported here: the CLI runs one operation per process,
# and edits, commands, rollback, revert, validation and milestones are imported where
# they are used.

__all__ = [
    "AlreadyInitializedError",
    "NotInitializedError",
    "SnapshotNotFoundError",
    "Tracking",
    "UnknownPathError",
    "UnsafeRootError",
    "Workspace",
]

_DEFAULT_TIMEOUT = DEFAULT_TIMEOUT

# Loaded on first use (snapline/lazy.py): the history's queries are no part of a record.
__getattr__, __dir__ = lazy_exports(
    __name__, {"SnapshotNotFoundError": "snapline.snapshots.read.history"}
)


class Workspace(Recording, Guarding, Restoring, Reading, Diffing, Forgetting, Branching, Blaming):
    """A workspace and its history. Create with :meth:`init`, or :meth:`open` an existing one.

    Use as a context manager, or call :meth:`close`.
    """

    @classmethod
    def init(
        cls,
        root: PathArg,
        *,
        force: bool = False,
        large_file_limit: int | None = None,
        description: str = "baseline",
        timeout: float = _DEFAULT_TIMEOUT,
        progress: Callable[[int, int], None] | None = None,
    ) -> Workspace:
        """Start the history: capture every non-ignored file as snapshot 0.

        At the top of a git work tree the history goes onto the repository's refs
        (``refs/snapline/lines/<id>``) and the local state (index, lock) under the work
        tree's git directory (``.git/snapline/``): nothing is written into the work
        tree. Elsewhere the same refs are in a private bare repository,
        ``<root>/.snapline/repo``, and the local state in ``<root>/.snapline/``.

        Args:
            root: An existing directory.
            force: Allow the filesystem root or the home directory.
            large_file_limit: Bytes above which files are tracked by hash only.
            description: The baseline's description.
            timeout: Seconds to wait for another process holding the store.
            progress: Called as ``progress(done, total)`` while files are captured.

        Returns:
            The open workspace.

        Raises:
            AlreadyInitializedError: If the root already has a store.
            UnsafeRootError: If the root is ``/`` or the home directory and not forced.
            NotADirectoryError: If the root is not a directory.
        """
        path = Path(os.path.abspath(root))
        limits = Limits() if large_file_limit is None else Limits(large_file_limit=large_file_limit)
        create_store(
            path,
            force=force,
            limits=limits,
            description=description,
            timeout=timeout,
            progress=progress,
        )
        return cls.open(path, timeout=timeout)

    @classmethod
    def open(
        cls,
        root: PathArg,
        *,
        timeout: float = _DEFAULT_TIMEOUT,
        progress: Callable[[int, int], None] | None = None,
    ) -> Workspace:
        """Open the workspace at ``root``: its store in ``<root>/.snapline/``, or on git's refs.

        A git work tree whose refs hold a line but which has no local index yet (a
        fresh clone after ``snapline fetch``, a new linked work tree) gets its index
        built from the refs.

        A write that a crashed process left half done is undone first, when no other
        process is writing.

        Args:
            root: The workspace root.
            timeout: Seconds to wait for another process holding the store.
            progress: Called as ``progress(done, total)`` while the local index is
                built from the ledger (a fresh clone, a merge of branches).

        Returns:
            The open workspace.

        Raises:
            NotInitializedError: If there is no store.
            StoreCorruptError: If the store cannot be read.
            StoreVersionError: If the store is newer than this snapline.
        """
        return cls(open_store(Path(os.path.abspath(root)), timeout, progress))

    @classmethod
    def find(
        cls,
        start: PathArg = ".",
        *,
        timeout: float = _DEFAULT_TIMEOUT,
        progress: Callable[[int, int], None] | None = None,
    ) -> Workspace:
        """Open the workspace containing ``start``, looking upwards as git looks for ``.git``.

        Args:
            start: A directory inside the workspace.
            timeout: Seconds to wait for another process holding the store.
            progress: As for :meth:`open`.

        Returns:
            The open workspace.

        Raises:
            NotInitializedError: If no directory from ``start`` upwards has a store.
        """
        return cls.open(find_root(Path(os.path.abspath(start))), timeout=timeout, progress=progress)
