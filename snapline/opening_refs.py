"""Creating and opening a workspace whose history is on refs (the default, in git or not).

When the root is the top of a git work tree (main or linked), ``init`` writes the
baseline as the first commit of a line, ``refs/snapline/lines/<baseline id>``, and
keeps the local state (index, lock, ...) under that work tree's git directory
(:func:`snapline.state_dir.state_dir`): nothing is written into the work tree. Outside
git (or below a work tree's top) the same refs are in a private bare repository,
``.snapline/repo``, made by ``init`` (:mod:`snapline.store.refs.private`), and the
local state is ``.snapline/``. The ref is the baseline's commit point; the index takes
its real name only after it, so an init killed before the ref moved leaves nothing
(but a private repository without a line), and one killed after leaves a history that
the next command builds its index from (``init`` again says it is there).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from snapline.crashpoints import crash_point
from snapline.paths import STORE_DIR
from snapline.snapshots.record.writer_lock import LOCK_NAME
from snapline.state_dir import private_repo
from snapline.store.holding import holding
from snapline.store.refs.opening import (
    INDEX_NAME,
    has_lines,
    open_refs_store,
    publish_index,
    start_refs_store,
)

if TYPE_CHECKING:
    from snapline.snapshots.record.build import Limits
    from snapline.store.refs.store import RefsStore

__all__ = ["create_refs", "has_refs_history", "open_refs"]


def has_refs_history(work_tree: Path, state: Path) -> bool:
    """Whether the work tree has a refs workspace: its local index, or a line on the refs.

    The local state answers without opening the repository; only a work tree without
    it (a fresh clone after a fetch, a new linked work tree, or no history) asks git.
    Where no private repository is made yet, no repository is asked: one around the
    workspace holds no history of it.

    Args:
        work_tree: The workspace root.
        state: Its local state (``<git dir>/snapline``, or ``.snapline`` for a private
            repository: :func:`snapline.state_dir.refs_state`).
    """
    if (state / INDEX_NAME).is_file():
        return True
    if state == work_tree / STORE_DIR and private_repo(work_tree) is None:
        return False
    return has_lines(work_tree)


def create_refs(
    path: Path,
    state: Path,
    *,
    config: dict[str, Any],
    limits: Limits,
    description: str,
    timeout: float,
    progress: Callable[[int, int], None] | None,
    already: Callable[[], Exception],
) -> None:
    """Capture the work tree at ``path`` as the first snapshot of a new line on the refs.

    Args:
        path: The top of the git work tree, or a root outside git.
        state: Its local state: ``<git dir>/snapline``, or ``<path>/.snapline``, where
            the private repository is made (``.snapline/repo``) if it is not there.
        config: The content settings to keep in the index and on the refs
            (``refs/snapline/settings/<line>``, :mod:`snapline.store.refs.settings`).
        limits: The same settings, for the capture.
        description: The baseline's description.
        timeout: Seconds to wait for another process holding the lock.
        progress: Called as ``progress(done, total)`` while files are captured.
        already: Makes the error for a work tree that has a history already.

    Raises:
        Exception: ``already()``, when the work tree has an index or a line already.
        StoreBusyError: If another init held the lock past ``timeout``.
    """
    from snapline.snapshots.record.baseline import capture_baseline

    if has_refs_history(path, state):
        raise already()
    private = state == path / STORE_DIR
    made = private and not os.path.lexists(state)
    state.mkdir(exist_ok=True)
    with holding(state / LOCK_NAME, state / INDEX_NAME, timeout):
        # Again under the lock: another init may have finished while this one waited.
        if has_refs_history(path, state):
            raise already()
        try:
            if private:
                from snapline.store.ledger.stray import set_stray_aside
                from snapline.store.refs.private import make_private_repo

                set_stray_aside(state)  # a ledger/ without history, as in-tree init does
                make_private_repo(state)
            store = start_refs_store(path, state, config)
            try:
                # The baseline's commit and ref are written as its transaction commits.
                capture_baseline(path, store, limits, description, progress)
                # After the baseline's ref (which names the line): a kill in between
                # leaves a history with the default settings, as one written before
                # they travelled.
                from snapline.store.refs.settings import keep_settings

                keep_settings(store, config)
            finally:
                store.close()
            crash_point("baseline-built")
            publish_index(state)
        except BaseException:
            if made:
                # Still under the lock, in a .snapline/ this init made: nothing in it
                # is acknowledged, and a failed init leaves no store behind.
                import shutil  # here: shutil imports lzma and bz2, for every command

                shutil.rmtree(state, ignore_errors=True)
            raise


def open_refs(path: Path, state: Path, config: dict[str, Any], timeout: float) -> RefsStore | None:
    """The refs store of the work tree at ``path``, or ``None`` when it has no history.

    Args:
        path: The top of the git work tree, or the root of a private repository.
        state: Its local state (:func:`snapline.state_dir.refs_state`).
        config: The settings of an index built from refs that keep none (older ones).
        timeout: Seconds to wait for another process.
    """
    if not os.path.isdir(state) and not has_lines(path):
        return None
    return open_refs_store(path, state, config, timeout, LOCK_NAME)
