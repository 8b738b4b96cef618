"""A refs store's index for a user who cannot write the local state: kept in memory.

As git reads a repository this user cannot write, the readers read a history on the refs
whose local state (``.git/snapline/``) they cannot write: an index that lags the refs is
caught up on a private copy in memory, and a missing one (or a missing local state: a
fresh clone after a fetch) is built in memory from the refs. Nothing is saved; the
writers still take the writer lock in the local state, which fails with "permission
denied" and nothing written (the in-tree twin: ``store/ledger/opening.py``).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from snapline.store.connection import Connection
from snapline.store.refs.git import GitRepository
from snapline.store.refs.store import RefsStore
from snapline.store.sqlite import SqliteStore

__all__ = ["built_in_memory", "can_write", "caught_up_in_memory"]


def can_write(state: Path) -> bool:
    """Whether this user may write the local state ``state`` (or make it, when missing)."""
    return os.access(state if os.path.isdir(state) else state.parent, os.W_OK)


def caught_up_in_memory(store: RefsStore) -> RefsStore:
    """``store``, or a private copy of its index in memory caught up with the refs.

    The copy is made when this user cannot write the index and it lags the refs; the
    file is closed, untouched.

    Raises:
        DamagedLineError: If the line read to catch up is damaged or crafted.
    """
    connection = store.index.connection
    if not connection.read_only or not store.stale():
        return store
    copy = RefsStore(store.repo, SqliteStore(connection.copy_in_memory()))
    store.close()
    copy.refresh()
    return copy


def built_in_memory(
    repo: GitRepository, location: Path, config: dict[str, Any], timeout: float
) -> RefsStore:
    """A new index in memory, filled from the refs; it names ``location`` in messages.

    Args:
        repo: The repository.
        location: Where the index would be (its directory is the local state's, which
            the store reads: the work tree's own line, whether it ever wrote).
        config: The content settings of the index.
        timeout: Seconds SQLite waits for a lock.

    Raises:
        DamagedLineError: If the main line is damaged or crafted.
    """
    created = Connection.create(Path(":memory:"), config, timeout)
    named = Connection(location, (created.db, False), timeout)
    named.in_memory = True
    store = RefsStore(repo, SqliteStore(named))
    store.refresh()
    # Lazy: only an index built in memory reads the settings' ref (a cold record, issue 39).
    from snapline.store.refs.settings import adopt_settings

    adopt_settings(store)
    return store
