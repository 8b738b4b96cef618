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
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from snapline import atomic, state_dir
from snapline.crashpoints import crash_point
from snapline.opening_errors import (
    AlreadyInitializedError,
    NotInitializedError,
    RootNotADirectoryError,
    UnsafeRootError,
)
from snapline.paths import STORE_DIR
from snapline.snapshots.read.reconstruct import Reconstructor
from snapline.snapshots.record.build import Limits
from snapline.snapshots.record.recorder import LOCK_NAME, Recorder
from snapline.state_dir import GIT_STATE, PRIVATE_REPO, git_dir
from snapline.store import (
    DB_NAME,
    InTreeLedgerError,
    SqliteStore,
    StoreCorruptError,
)
from snapline.store.holding import holding
from snapline.store.ledger.files import (
    FORMAT_NAME,
    GITIGNORE,
    INDEX_NAME,
    LEDGER_DIR,
    Ledger,
)
from snapline.store.ledger.opening import INIT_SUFFIX, check_format, open_index, start_ledger
from snapline.store.ledger.stray import set_stray_aside, stray_ledger

if TYPE_CHECKING:
    from snapline.store import Store

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


class Opened(NamedTuple):
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
    in_tree: bool = False,
) -> None:
    """Create the workspace's history holding the workspace as it is, as snapshot 0.

    At the top of a git work tree the history goes onto the repository's refs
    (``refs/snapline/lines/<baseline id>``) and the local state under the work tree's
    git directory (:mod:`snapline.opening_refs`); elsewhere onto the same refs of a
    private bare repository, ``<path>/.snapline/repo``, the local state in
    ``<path>/.snapline/``; with ``in_tree``, into the in-tree ledger,
    ``<path>/.snapline/ledger/`` (read forever; ``snapline upgrade`` moves it).

    Args:
        path: The absolute root, an existing directory.
        force: Allow the filesystem root or the home directory.
        limits: The content settings to keep in the store.
        description: The baseline's description.
        timeout: Seconds to wait for another process holding the lock.
        progress: Called as ``progress(done, total)`` while files are captured.
        in_tree: Make the in-tree ledger, ``<path>/.snapline/ledger/``, in git or not
            (the 0.2 layout, for tests of the stores it wrote and the upgrade period).

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
    found_git = git_dir(path)
    store_dir = path / STORE_DIR
    private = state_dir.private_repo(path)
    if found_git is not None and private is None and not os.path.lexists(store_dir):
        state = found_git / GIT_STATE  # a git work tree's top: the refs of its repository
    elif private is not None or (found_git is None and not _has_store(store_dir)):
        state = store_dir  # elsewhere: the same refs, in a private repository
    else:
        state = None
    if not in_tree and state is not None:
        from snapline.opening_refs import create_refs

        create_refs(
            path,
            state,
            config=_config(limits),
            limits=limits,
            description=description,
            timeout=timeout,
            progress=progress,
            already=lambda: AlreadyInitializedError(path, _refs_where(state)),
        )
        return
    if _has_store(store_dir):
        raise AlreadyInitializedError(path)
    try:
        store_dir.mkdir()
        created_dir = True
    except FileExistsError:
        created_dir = False
    staging_ledger = store_dir / (LEDGER_DIR + INIT_SUFFIX)
    staging_index = store_dir / (INDEX_NAME + INIT_SUFFIX)
    # Taken before the try: while another init still captures its baseline (busy), its
    # staging files are not ours to remove.
    with holding(store_dir / LOCK_NAME, store_dir / LEDGER_DIR, timeout):
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
    if not state_dir.in_tree(path):
        return _open_refs(path, timeout)
    # Only here: the in-tree ledger's store is not loaded for a history on git's refs.
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
    from snapline.moving_notes import note_in_tree_beside_refs

    note_in_tree_beside_refs(path)
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
    return _assemble(path, store, timeout, refusal=InTreeLedgerError(ledger.path))


def _open_refs(path: Path, timeout: float) -> Opened:
    """Open the refs workspace at ``path`` (a git work tree's top, or a private repository)."""
    from snapline.opening_refs import open_refs

    located = state_dir.refs_state(path)
    assert located is not None, "a root that is not in the tree has a history on refs"
    _, state = located
    if state != path / STORE_DIR and os.path.lexists(path / STORE_DIR):
        from snapline.moving_notes import settle_leftovers

        settle_leftovers(path)
    store = open_refs(path, state, _config(Limits()), timeout)
    if store is None:
        raise NotInitializedError(path)
    return _assemble(path, store, timeout)


def _assemble(
    path: Path, store: Store, timeout: float, refusal: InTreeLedgerError | None = None
) -> Opened:
    """The recorder and reconstructor over an open store, caught up and recovered."""
    reconstructor = Reconstructor(store)
    limits = _limits(store.config(), store.path)
    recorder = Recorder(path, store, reconstructor, limits, timeout, refusal)
    recorder.catch_up()
    recorder.recover_if_idle()
    return Opened(root=path, store=store, recorder=recorder, reconstructor=reconstructor)


def _refs_where(state: Path) -> str:
    """Where a history on refs is, as ``init`` names it when there is one already."""
    if state.name == STORE_DIR:
        return f"the refs (refs/snapline/) of {STORE_DIR}/{PRIVATE_REPO}/"
    return "git's refs (refs/snapline/)"


def _has_store(store_dir: Path) -> bool:
    if (store_dir / DB_NAME).is_file() or state_dir.private_repo(store_dir.parent):
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
        if state_dir.private_repo(candidate) is not None:
            return candidate  # a history on refs outside git (or one made, without a line)
        # A store half there stops the search, as a store does (in git: unless it is
        # no store, state_dir.in_tree says: a moved work tree's leftovers).
        kept_in_tree = state_dir.in_tree(candidate)
        if kept_in_tree:
            stray_ledger(store_dir)
        found_git = None if kept_in_tree and os.path.lexists(store_dir) else git_dir(candidate)
        if found_git is not None:
            from snapline.opening_refs import has_refs_history

            if has_refs_history(candidate, found_git / GIT_STATE):
                return candidate
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
