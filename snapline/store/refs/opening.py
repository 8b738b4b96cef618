"""The refs store's local files: its index under git's directory, made, found and rebuilt.

A workspace whose history is on git's refs keeps its index in the work tree's own git
directory (``.git/snapline/index.db``, ``.git/worktrees/NAME/snapline/index.db``; the
directory is :func:`snapline.state_dir.state_dir`'s). The index is a cache of the refs:
a missing one (a fresh clone after a fetch, a new linked work tree, a deleted cache) is
built from the main line under the writer lock, under a staging name renamed into place
once full; one SQLite finds damaged, or that a newer snapline wrote, is set aside
(``index.db.damaged``) and built anew.

An index built from the refs is not synced transaction by transaction
(``synchronous=OFF``): no reader opens the staging name, and a crash or power cut
before the rename leaves a staging file the next build removes and starts again, the
refs (the history) untouched. Its file is synced once, full, before it gets its name
(:func:`publish_index`); from then on every transaction is synced as any index's.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Any

from snapline.atomic import sync_directory
from snapline.crashpoints import crash_point
from snapline.store.errors import StoreCorruptError, StoreVersionError
from snapline.store.lockfile import FileLock, LockTimeout
from snapline.store.refs.git import GitRepository, open_repository
from snapline.store.refs.read_only import built_in_memory, can_write, caught_up_in_memory
from snapline.store.refs.reading import list_lines
from snapline.store.refs.store import RefsStore
from snapline.store.refs.switching import follow_switch, head_seen, switched
from snapline.store.sqlite import SqliteStore

__all__ = [
    "INDEX_NAME",
    "STAGING_NAME",
    "has_lines",
    "open_refs_store",
    "publish_index",
    "start_refs_store",
]

INDEX_NAME = "index.db"
"""The index's file name in the local state directory."""
STAGING_NAME = INDEX_NAME + ".init"
"""The name an index has while it is built (by ``init``, or from the refs)."""
_DAMAGED = INDEX_NAME + ".damaged"


def has_lines(work_tree: Path) -> bool:
    """Whether the repository holding ``work_tree`` has a line of history on its refs.

    Raises:
        NotAGitRepositoryError: If no repository holds it.
    """
    return bool(list_lines(open_repository(work_tree)))


def start_refs_store(work_tree: Path, state: Path, config: dict[str, Any]) -> RefsStore:
    """A new store with an empty index under its staging name, for ``init``'s baseline.

    Call holding the writer lock. Leftovers of an earlier start are removed first.

    Args:
        work_tree: The top of the git work tree.
        state: The local state directory (it exists).
        config: The content settings to keep in the index.

    Raises:
        NotAGitRepositoryError: If no repository holds ``work_tree``.
    """
    repo = open_repository(work_tree)
    _remove_staging(state)
    return RefsStore(repo, SqliteStore.create(state / STAGING_NAME, config))


def publish_index(state: Path) -> None:
    """Give the staged index its real name (after the baseline went onto its line).

    Its bytes reach the disk before its name does: an index built unsynced (from the
    refs) is synced here once, and the folder after the rename.
    """
    staged = state / STAGING_NAME
    fd = os.open(staged, os.O_RDONLY)
    try:
        os.fsync(fd)  # a file: any failure fails the build, as SQLite's would
    finally:
        os.close(fd)
    os.replace(staged, state / INDEX_NAME)
    sync_directory(state)


def open_refs_store(
    work_tree: Path, state: Path, config: dict[str, Any], timeout: float, lock_name: str
) -> RefsStore | None:
    """Open the refs store of ``work_tree``; its index built from the refs when missing.

    Args:
        work_tree: The top of the git work tree.
        state: The local state directory (created when missing and there are lines).
        config: The settings of an index built here when the refs keep none (a history
            from before they were kept on the refs: :mod:`.settings`).
        timeout: Seconds to wait for another process holding the index or the lock.
        lock_name: The writer lock's file name in ``state``.

    Returns:
        The open store, or ``None`` when there is neither an index nor a line.

    Raises:
        NotAGitRepositoryError: If no repository holds ``work_tree``.
        DamagedLineError: If the main line read to build the index is damaged.
        StoreBusyError: If another process holds the index past the timeout.
    """
    repo = open_repository(work_tree)
    location = state / INDEX_NAME
    if location.is_file() and switched(repo, state) and can_write(state):
        _follow_switch(repo, state, config, work_tree, lock_name)
    if location.is_file():
        try:
            opened = RefsStore(repo, SqliteStore.open(location, busy_timeout=timeout))
        except (StoreCorruptError, StoreVersionError):
            pass  # a cache: set aside below and built again from the refs
        else:
            return caught_up_in_memory(opened)
    elif not list_lines(repo):
        return None
    if not can_write(state):
        # Read as git reads a repository this user cannot write: never saved.
        return built_in_memory(repo, location, config, timeout)
    state.mkdir(exist_ok=True)
    lock = FileLock(str(state / lock_name), timeout=timeout)
    with lock.acquire():
        # Checked again under the lock: another process may have built it meanwhile.
        if location.is_file():
            try:
                return RefsStore(repo, SqliteStore.open(location, busy_timeout=timeout))
            except (StoreCorruptError, StoreVersionError) as error:
                _set_aside(location, error.detail)
        _build(repo, state, config, work_tree)
    return RefsStore(repo, SqliteStore.open(location, busy_timeout=timeout))


def _set_aside(location: Path, why: str) -> None:
    """Keep an index SQLite cannot use, untouched, as ``index.db.damaged``, and say so.

    An earlier one kept for a look is kept too: this one is then ``.damaged-2``, and so on.

    Args:
        location: The index file.
        why: What SQLite (or the format check) reported.
    """
    kept = location.with_name(_DAMAGED)
    count = 1
    while os.path.lexists(kept):
        count += 1
        kept = location.with_name(f"{_DAMAGED}-{count}")
    os.replace(location, kept)
    import logging  # here: only an index set aside has something to say

    # The channel and words of the in-tree ledger's index (store/ledger/opening.py).
    logging.getLogger("snapline").warning(
        "the local index %s could not be used (%s); it was set aside as %s and is "
        "rebuilt from the refs",
        location,
        why,
        kept.name,
    )


def _follow_switch(
    repo: GitRepository, state: Path, config: dict[str, Any], work_tree: Path, lock_name: str
) -> None:
    """After a branch switch, the index built again at the new HEAD's snapshot (.switching)."""
    try:
        # Not waited for: a writer holding the lock (`snapline run -- git switch`, whose
        # record follows the switch itself) leaves it to the next command.
        with FileLock(str(state / lock_name), timeout=0).acquire():
            # Asked again under the lock: another process may have followed it meanwhile.
            # Not while a write left half done is journaled in the index: the next write
            # settles it first.
            if switched(repo, state) and not _journaled(state / INDEX_NAME):
                rebuild = lambda: _rebuild(repo, state, config, work_tree)  # noqa: E731
                follow_switch(repo, state, work_tree, rebuild)
    except LockTimeout:
        pass


def _journaled(location: Path) -> bool:
    try:
        index = SqliteStore.open(location, busy_timeout=0)
    except (StoreCorruptError, StoreVersionError):
        return True  # left to the open below, which sets it aside and builds it again
    try:
        return bool(index.journal.entries())
    finally:
        index.close()


def _rebuild(repo: GitRepository, state: Path, config: dict[str, Any], work_tree: Path) -> None:
    """Build the index afresh from the refs in place of the one there (a cache)."""
    # Killed after the unlink: the next open finds no index and builds it, as here.
    (state / INDEX_NAME).unlink()
    _build(repo, state, config, work_tree)


def _build(repo: GitRepository, state: Path, config: dict[str, Any], work_tree: Path) -> None:
    """Fill a new index from the refs (the line followed, up to the checkout's snapshot)."""
    from snapline.store.dbfile import remove_stale_logs
    from snapline.store.refs.catchup import catch_up
    from snapline.store.refs.gitstat import seed_stat_cache
    from snapline.store.refs.settings import adopt_settings

    _remove_staging(state)
    # A cache under a name no reader opens: synced once, full, by publish_index.
    store = RefsStore(repo, SqliteStore.create(state / STAGING_NAME, config, synced=False))
    try:
        catch_up(store, checkout=work_tree)
        with store.index.write():
            # The files git's checkout wrote from the state's blobs need no reading.
            seed_stat_cache(store)
        adopt_settings(store)
    finally:
        store.close()
    crash_point("refs-index-built")
    # The log of a deleted index would be applied to the new one: gone first.
    remove_stale_logs(state / INDEX_NAME)
    publish_index(state)
    head_seen(repo, state)  # the checkout it was built for (.switching)


def _remove_staging(state: Path) -> None:
    for leftover in state.glob(STAGING_NAME + "*"):
        with contextlib.suppress(FileNotFoundError):
            leftover.unlink()
