"""The index takes in the forgets on the refs: rebuilt without the forgotten content.

A forget rewrites the lines (:mod:`snapline.store.refs.forgetting`); the index, a cache
of them, still holds the forgotten deltas and content. It knows which forgets it has
taken in by their marks (one per ``refs/snapline/forgets/<id>`` ref). A forget it has
not (made here a moment ago, fetched from a remote, or left by a process killed before
its index caught up) is applied to the lines again (a no-op when they are rewritten)
and the index is rebuilt from them in the catch-up's transaction: history tables
emptied, the forgotten versions listed, their content deleted; then its file is
vacuumed with ``secure_delete`` on and its write-ahead log truncated, so that no page
keeps the bytes, and in a private repository (``.snapline/repo``, where no ``git gc``
runs) the objects no ref reaches any more are deleted (:mod:`.prune`); a flag in the
index, ``forget_cleanup`` as the ledger's, makes the next command do it when a process
was killed before.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from snapline.crashpoints import crash_point
from snapline.store.content import BlobTable
from snapline.store.forgotten import ForgottenTable
from snapline.store.ledger.forget_format import ForgetRecord
from snapline.store.ledger.tables import ForgetCleanup, clear_history
from snapline.store.refs.based import still_published
from snapline.store.refs.forgetting import (
    Forget,
    apply_forgets,
    forgotten_versions,
    plan_rewrite,
    read_forgets,
    record_forget,
)
from snapline.store.refs.git_errors import GitWriteRefusedError
from snapline.store.refs.prune import is_private, prune
from snapline.store.rows import ForgottenRow

if TYPE_CHECKING:
    from snapline.store.refs.store import RefsStore

__all__ = ["forget_on_refs", "forgets_to_take_in", "secure", "take_in"]


def forget_on_refs(store: RefsStore, record: ForgetRecord, forget_id: str) -> str:
    """Carry out a forget on the refs and the index; call holding the writer lock.

    The rewritten commits are written, then the forget's ref and the lines' refs move
    in one transaction, then the index takes the forget in.

    Args:
        store: The open store.
        record: What is forgotten, when and why.
        forget_id: A fresh id (32 lowercase hex), the forget ref's name.

    Returns:
        The forget's ref (``refs/snapline/forgets/<forget_id>``).

    Raises:
        DamagedLineError: If a line or an earlier forget is damaged or crafted.
        RefConflictError: If a line moved meanwhile; then no ref moved.
    """
    forgot = forgotten_versions(read_forgets(store.repo))
    forgot |= {(v.path, v.hash) for v in record.forgot}
    git_dir = store.repo.git_dir
    published = None if is_private(store.repo) else partial(still_published, git_dir)
    rewrites = plan_rewrite(store.repo, forgot, published)
    crash_point("forget-planned")
    ref = record_forget(store.repo, record, forget_id, rewrites)
    crash_point("forget-refs-moved")
    store.refresh()
    return ref


def forgets_to_take_in(store: RefsStore, *, every: bool = False) -> list[Forget] | None:
    """Every forget, when one is new to the index (the lines then finished); else ``None``.

    Args:
        store: The open store.
        every: Every forget (none is a list too), new or not: the index is to be
            rebuilt (a line was rewritten under it).

    Raises:
        DamagedLineError: If a forget or a line is damaged or crafted.
        RefConflictError: If a line moved while it was being finished.
        GitWriteRefusedError: If the lines cannot be rewritten here, but for an index
            in memory (a reader who cannot write).
    """
    forgets = read_forgets(store.repo)
    if not every and all(store.marks.get(f.ref) == f.commit for f in forgets):
        return None
    try:
        apply_forgets(store.repo, forgets)
    except GitWriteRefusedError:
        if not store.index.connection.in_memory:
            raise
        # A reader who cannot write the repository (its index in memory): the forgets
        # are taken in over the lines as they are; a writer who can rewrites them.
    return forgets


def take_in(store: RefsStore, forgets: list[Forget]) -> None:
    """Empty the index's history and list the forgotten versions; inside ``write()``.

    The catch-up that follows in the same transaction reads every line whole. With no
    forget new (``forgets_to_take_in(every=True)``), the index rebuilt from lines
    rewritten under it.
    """
    connection = store.index.connection
    clear_history(connection)
    ForgottenTable(connection).add(
        ForgottenRow(v.path, v.hash, v.number, f.record.time, f.record.reason)
        for f in forgets
        for v in f.record.forgot
    )
    store.index.blobs.delete(sorted({v.hash for f in forgets for v in f.record.forgot}))
    # The whole versions kept as references name the old states' blobs (a tombstone's
    # now, or a crafted rewrite's other bytes): the catch-up takes them from the new.
    store.index.blobs.delete([hash_ for hash_, _, _ in BlobTable.references(store.index.blobs)])
    for forget in forgets:
        store.marks.put(forget.ref, forget.commit)
    # Cleared by ``secure``: a process killed before it leaves the flag for the next one.
    ForgetCleanup(connection).set(True)


def secure(store: RefsStore) -> None:
    """Leave no page of the index or its log holding forgotten bytes; outside ``write()``."""
    crash_point("forget-indexed")
    connection = store.index.connection
    # Deleted rows otherwise linger in free space inside the file's pages.
    connection.run("PRAGMA secure_delete = ON")
    store.index.vacuum()
    # VACUUM writes through the write-ahead log; the old pages stay there until truncated.
    connection.run("PRAGMA wal_checkpoint(TRUNCATE)")
    if is_private(store.repo) and not (connection.in_memory or connection.read_only):
        # No git gc ever runs in .snapline/repo: the old commits and the forgotten
        # blobs would stay there as unreachable objects for good.
        references = BlobTable.references(store.index.blobs)  # as stored: unresolved
        prune(store.repo, (packed for _, _, packed in references))
    with store.index.write():
        ForgetCleanup(connection).set(False)
