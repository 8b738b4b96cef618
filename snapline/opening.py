"""Creating, finding and opening a workspace's store: what ``Workspace.init/open/find`` do.

``init`` builds the store under a staging name and renames it into place only once the
baseline is in it, so an interrupted init never leaves a store that looks usable. It
refuses the filesystem root and the home directory unless forced. Opening assembles the
parts a :class:`~snapline.workspace.Workspace` holds: the store, the recorder and the
reconstructor.
"""

from __future__ import annotations

import contextlib
import errno
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from snapline import atomic
from snapline.crashpoints import crash_point
from snapline.errors import SnaplineError
from snapline.paths import STORE_DIR
from snapline.snapshots.read.reconstruct import Reconstructor
from snapline.snapshots.record.build import Limits
from snapline.snapshots.record.recorder import LOCK_NAME, Recorder
from snapline.store import (
    DB_NAME,
    SqliteStore,
    Store,
    StoreBusyError,
    StoreCorruptError,
)
from snapline.store.ledger.files import (
    FORMAT_NAME,
    GITIGNORE,
    INDEX_NAME,
    LEDGER_DIR,
    Ledger,
)
from snapline.store.ledger.opening import INIT_SUFFIX, check_format, open_index, start_ledger
from snapline.store.ledger.stray import set_stray_aside, stray_ledger
from snapline.store.lockfile import FileLock, LockTimeout

__all__ = [
    "AlreadyInitializedError",
    "NotInitializedError",
    "Opened",
    "RootNotADirectoryError",
    "UnsafeRootError",
    "create_store",
    "find_root",
    "open_store",
]


class NotInitializedError(SnaplineError):
    """There is no snapline store at (or above) the given root."""

    exit_code = 2

    def __init__(self, root: Path) -> None:
        self.path = str(root)
        super().__init__(f"{root} has no snapline store; run `snapline init` there first")


class AlreadyInitializedError(SnaplineError):
    """``init`` was called on a root that already has a store."""

    exit_code = 2

    def __init__(self, root: Path) -> None:
        self.path = str(root)
        super().__init__(
            f"{root} already has a snapline store in {STORE_DIR}/; use it (`snapline "
            "status`, `snapline log`), or run init in another directory for a new history"
        )


class RootNotADirectoryError(SnaplineError, NotADirectoryError):
    """``init`` was pointed at a path that is not a directory (or does not exist).

    A usage error (exit 2); it is also a ``NotADirectoryError``, as it always was.

    Attributes:
        path: The root.
    """

    exit_code = 2

    def __init__(self, root: Path) -> None:
        self.path = str(root)
        super().__init__(f"{root} is not a directory; create it first")

    def __str__(self) -> str:
        # OSError's own str() would show the arguments as a tuple.
        return str(self.args[0])


class UnsafeRootError(SnaplineError):
    """``init`` was pointed at the filesystem root or a home directory.

    Attributes:
        path: The root.
        problem: The message without its advice, which names ``force=True`` (the
            command line names ``--force``).
    """

    exit_code = 2

    def __init__(self, root: Path, what: str) -> None:
        self.path = str(root)
        self.problem = f"refusing to snapshot {root}: it is {what}; choose a project directory"
        super().__init__(f"{self.problem}, or pass force=True if you really mean it")


@dataclass(frozen=True)
class Opened:
    """The parts of an open workspace.

    Attributes:
        root: The absolute workspace root.
        store: The open store.
        recorder: Lock, recovery, detection and recording.
        reconstructor: Rebuilds recorded versions (shares the recorder's cache).
    """

    root: Path
    store: Store
    recorder: Recorder
    reconstructor: Reconstructor

    def close(self) -> None:
        """Close the store."""
        self.store.close()


def create_store(
    path: Path,
    *,
    force: bool,
    limits: Limits,
    description: str,
    timeout: float,
    progress: Callable[[int, int], None] | None,
) -> None:
    """Create ``<path>/.snapline/`` holding the workspace as it is, as snapshot 0.

    Args:
        path: The absolute root, an existing directory.
        force: Allow the filesystem root or the home directory.
        limits: The content settings to keep in the store.
        description: The baseline's description.
        timeout: Seconds to wait for another process holding the lock.
        progress: Called as ``progress(done, total)`` while files are captured.

    Raises:
        AlreadyInitializedError: If the root already has a store, also when another
            init created it meanwhile: creating a store is exclusive, and the store
            that exists is never replaced.
        StoreBusyError: If another init held the store past ``timeout``.
        UnsafeRootError: If the root is ``/`` or the home directory and not forced.
        RootNotADirectoryError: If the root is not a directory (a ``NotADirectoryError``).
    """
    from snapline.store.ledger.store import LedgerStore

    if not path.is_dir():
        raise RootNotADirectoryError(path)
    _refuse_dangerous_root(path, force)
    store_dir = path / STORE_DIR
    if _has_store(store_dir):
        raise AlreadyInitializedError(path)
    try:
        store_dir.mkdir()
        created_dir = True
    except FileExistsError:
        created_dir = False
    staging_ledger = store_dir / (LEDGER_DIR + INIT_SUFFIX)
    staging_index = store_dir / (INDEX_NAME + INIT_SUFFIX)
    lock = FileLock(str(store_dir / LOCK_NAME), timeout=timeout)
    try:
        lock.acquire()
    except LockTimeout:
        # Another init is still capturing its baseline: its staging files are not ours
        # to remove.
        raise StoreBusyError(store_dir / LEDGER_DIR, timeout) from None
    try:
        # Checked again under the lock: another init may have finished while this
        # one waited, and its store (with snapshots already acknowledged) must win.
        if _has_store(store_dir):
            raise AlreadyInitializedError(path)
        set_stray_aside(store_dir)
        _remove_staging(store_dir)
        config = _config(limits)
        ledger = Ledger(staging_ledger)
        start_ledger(ledger, config)
        store = LedgerStore(ledger, SqliteStore.create(staging_index, config))
        try:
            from snapline.snapshots.record.baseline import capture_baseline

            capture_baseline(path, store, limits, description, progress)
        finally:
            store.close()
        crash_point("baseline-built")
        gitignore = store_dir / ".gitignore"
        if not gitignore.exists():
            atomic.write_file(gitignore, GITIGNORE.encode(), 0o100644)
        # The index first: without a ledger it is a leftover the next init removes.
        # The ledger appears under its real name only once the baseline is in it, so
        # an interrupted init never leaves a history that looks usable; and init only
        # returns once that name is on disk.
        os.replace(staging_index, store_dir / INDEX_NAME)
        _publish(staging_ledger, store_dir / LEDGER_DIR, path)
        atomic.sync_directory(store_dir)
    except AlreadyInitializedError:
        raise
    except BaseException:
        # Still under the lock, and no store was there when it was taken: whatever
        # is there now is this init's own, not durable, so it goes.
        with contextlib.suppress(OSError):
            _remove_staging(store_dir)
            if created_dir:
                import shutil  # here: shutil imports lzma and bz2, for every command

                shutil.rmtree(store_dir)
        raise
    finally:
        lock.release()


def _publish(staging: Path, target: Path, root: Path) -> None:
    """Give the staged ledger its real name, only if no ledger has that name yet.

    Renaming a directory onto an empty one would replace it silently; the name is
    checked under the lock first, and a rename onto a directory with files fails.

    Raises:
        AlreadyInitializedError: If ``target`` exists.
    """
    if os.path.lexists(target):
        raise AlreadyInitializedError(root)
    try:
        os.rename(staging, target)
    except OSError as error:
        if error.errno in (errno.EEXIST, errno.ENOTEMPTY):
            raise AlreadyInitializedError(root) from None
        raise


def open_store(
    path: Path, timeout: float, progress: Callable[[int, int], None] | None = None
) -> Opened:
    """Open the store at ``<path>/.snapline/`` and assemble the workspace's parts.

    A write that a crashed process left half done is undone first, when no other
    process is writing. A store written by snapline 0.1 (``store.db``) is upgraded to
    the ledger first (:func:`snapline.upgrade.upgrade_store`).

    Args:
        path: The absolute root.
        timeout: Seconds to wait for another process holding the store.
        progress: Called as ``progress(done, total)`` while the index is rebuilt.

    Returns:
        The open parts.

    Raises:
        NotInitializedError: If there is no store.
        StoreCorruptError: If the store cannot be read.
        StoreVersionError: If the store is newer than this snapline.
        OldStoreDamagedError: If a 0.1 store does not verify (it is left as it was).
        UnsettledOldStoreError: If a 0.1 store has a write left half done.
    """
    from snapline.store.ledger.files import Ledger
    from snapline.store.ledger.store import LedgerStore

    store_dir = path / STORE_DIR
    if (store_dir / DB_NAME).is_file():
        from snapline.upgrade import upgrade_store

        # A 0.1 store, upgraded on this first open; beside a ledger, an upgrade that
        # stopped after its commit point, which now only sets the old store aside.
        # Checked before the ledger: an upgrade moves the old store aside only once
        # the ledger is in place, so one of the two is always seen.
        upgrade_store(path, timeout)
    if not (store_dir / LEDGER_DIR / FORMAT_NAME).is_file():
        stray_ledger(store_dir)  # a store half there is damaged, not missing
        raise NotInitializedError(path)
    ledger = Ledger(store_dir / LEDGER_DIR)
    check_format(ledger)
    store = LedgerStore(ledger, open_index(store_dir, ledger, timeout, LOCK_NAME))
    store.progress = progress
    connection = store.index.connection
    if (connection.read_only or connection.in_memory) and store.stale():
        # This user cannot write the index (a read-only store, another user's): the
        # catch-up with the ledger runs on a copy in memory, used by this process only
        # (no writer lock: nothing it writes is shared).
        if connection.read_only:
            index = store.index
            store = LedgerStore(ledger, SqliteStore(connection.copy_in_memory()))
            store.progress = progress
            index.close()
        store.refresh()
    reconstructor = Reconstructor(store)
    recorder = Recorder(path, store, reconstructor, _limits(store.config(), store.path), timeout)
    recorder.catch_up()
    recorder.recover_if_idle()
    return Opened(root=path, store=store, recorder=recorder, reconstructor=reconstructor)


def _has_store(store_dir: Path) -> bool:
    if (store_dir / DB_NAME).is_file():
        return True
    return not stray_ledger(store_dir) and (store_dir / LEDGER_DIR).exists()


def find_root(start: Path) -> Path:
    """The nearest directory from ``start`` upwards that has a store (as git finds ``.git``).

    Raises:
        NotInitializedError: If there is none.
    """
    for candidate in (start, *start.parents):
        store_dir = candidate / STORE_DIR
        if (store_dir / LEDGER_DIR / FORMAT_NAME).is_file() or (store_dir / DB_NAME).is_file():
            return candidate
        stray_ledger(store_dir)  # a store half there stops the search, as a store does
    raise NotInitializedError(start)


def _limits(config: dict[str, Any], store_path: Path) -> Limits:
    defaults = Limits()
    values: dict[str, Any] = {}
    for name, kind in (
        ("large_file_limit", int),
        ("diff_limit", int),
        ("max_chain", int),
        ("diff_deadline", float),
    ):
        value = config.get(name, getattr(defaults, name))
        # JSON gives int, float, str, bool...: only a plain number is a setting.
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
            raise StoreCorruptError(
                store_path, f"the configuration's {name} is {value!r}, not a number"
            )
        values[name] = kind(value)
    return Limits(**values)


def _config(limits: Limits) -> dict[str, Any]:
    return {
        "large_file_limit": limits.large_file_limit,
        "diff_limit": limits.diff_limit,
        "max_chain": limits.max_chain,
        "diff_deadline": limits.diff_deadline,
    }


def _remove_staging(store_dir: Path) -> None:
    for leftover in store_dir.glob(INDEX_NAME + "*"):
        leftover.unlink()
    import shutil  # here: shutil imports lzma and bz2, for every command

    shutil.rmtree(store_dir / (LEDGER_DIR + INIT_SUFFIX), ignore_errors=True)


def _refuse_dangerous_root(path: Path, force: bool) -> None:
    if force:
        return
    real = Path(os.path.realpath(path))
    if real == Path(real.anchor):
        raise UnsafeRootError(path, "the filesystem root")
    homes = set()
    if os.environ.get("HOME"):
        homes.add(Path(os.path.realpath(os.environ["HOME"])))
    with contextlib.suppress(RuntimeError, KeyError):
        homes.add(Path(os.path.realpath(Path.home())))
    if real in homes:
        raise UnsafeRootError(path, "your home directory")
