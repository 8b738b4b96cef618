"""Creating, finding and opening a workspace's store: what ``Workspace.init/open/find`` do.

``init`` makes a history on git's refs (:mod:`snapline.opening_refs`: the ref is its
commit point, so an interrupted init never leaves a store that looks usable); it refuses
the filesystem root and the home directory unless forced. An in-tree store (the 0.2
ledger, a 0.1 ``store.db``) is opened to be read and upgraded, never made. Opening assembles the
parts a :class:`~snapline.workspace.Workspace` holds: the store, the recorder and the
reconstructor.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from snapline import state_dir
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
from snapline.state_dir import FORMAT_NAME, GIT_STATE, LEDGER_DIR, PRIVATE_REPO, git_dir
from snapline.store import (
    DB_NAME,
    InTreeLedgerError,
    MergedLedgerError,
    SqliteStore,
    StoreCorruptError,
)

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
) -> None:
    """Create the workspace's history holding the workspace as it is, as snapshot 0.

    At the top of a git work tree the history goes onto the repository's refs
    (``refs/snapline/lines/<baseline id>``) and the local state under the work tree's
    git directory (:mod:`snapline.opening_refs`); elsewhere onto the same refs of a
    private bare repository, ``<path>/.snapline/repo``, the local state in
    ``<path>/.snapline/``. No in-tree ledger is made any more: one that is there (a
    branch from before ``snapline upgrade``) is a store already.

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
        StoreCorruptError: If ``.snapline/ledger/`` is a store half there.
    """
    from snapline.opening_refs import create_refs

    if not path.is_dir():
        raise RootNotADirectoryError(path)
    _refuse_dangerous_root(path, force)
    found_git = git_dir(path)
    store_dir = path / STORE_DIR
    private = state_dir.private_repo(path)
    if private is None and _has_store(store_dir):
        raise AlreadyInitializedError(path)  # an in-tree store: a ledger, or a 0.1 store.db
    # A git work tree's top: the refs of its repository; elsewhere the same refs, in a
    # private repository.
    state = found_git / GIT_STATE if found_git is not None and private is None else store_dir
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
    from snapline.store.ledger.files import Ledger
    from snapline.store.ledger.opening import check_format, open_index
    from snapline.store.ledger.store import LedgerStore
    from snapline.store.ledger.stray import stray_ledger

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
    refusal = None
    if state != path / STORE_DIR and os.path.lexists(path / STORE_DIR):
        from snapline.moving_notes import settle_leftovers

        if settle_leftovers(path):
            # A merged branch's snapshots are still in its ledger: written now, its
            # recorded work would be filed as an outside edit (resync) or left behind.
            refusal = MergedLedgerError(path / STORE_DIR / LEDGER_DIR)
    store = open_refs(path, state, _config(Limits()), timeout)
    if store is None:
        raise NotInitializedError(path)
    return _assemble(path, store, timeout, refusal)


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
    from snapline.store.ledger.stray import stray_ledger

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
            from snapline.store.ledger.stray import stray_ledger

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
