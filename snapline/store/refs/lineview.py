"""Another line's history as an index of its own, for reading it as its own work tree would.

A work tree's index follows its own line (:mod:`snapline.store.refs.followed`). To read
another line as the work tree that wrote it reads it (``blame`` in a checkout of main,
of lines that two agents recorded in their clones), :func:`open_line_index` builds an
index that follows that line, in a folder the caller owns (a temporary one): the
same catch-up that builds a fresh clone's index (:mod:`snapline.store.refs.catchup`),
so the snapshots, their numbers and the milestones are those the line's own work tree
sees. Nothing is written to the repository.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from snapline.store.refs.catchup import catch_up
from snapline.store.refs.followed import write_own_line
from snapline.store.refs.git import GitRepository
from snapline.store.refs.opening import INDEX_NAME
from snapline.store.refs.store import RefsStore
from snapline.store.sqlite import SqliteStore

__all__ = ["open_line_index"]


def open_line_index(
    repo: GitRepository, line: str, folder: Path, config: dict[str, Any]
) -> RefsStore:
    """A store whose index, in ``folder``, follows ``line`` from the baseline to its tip.

    Args:
        repo: The repository holding the lines.
        line: The line's id.
        folder: An empty directory for the index (the caller removes it after closing).
        config: The content settings to keep in the index (the workspace's).

    Returns:
        The open store, caught up; the caller closes it. Read it only: it writes to
        no ref (it has no writer's mark and is never recorded in).

    Raises:
        DamagedLineError: If a line read is damaged or crafted.
    """
    write_own_line(folder, line)
    store = RefsStore(repo, SqliteStore.create(folder / INDEX_NAME, config))
    try:
        catch_up(store)
    except BaseException:
        store.close()
        raise
    return store
