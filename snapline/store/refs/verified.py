"""``verify``'s checkpoint on git's refs: how far the index's history was checked whole.

The local index is a cache of the line, filled by the catch-up (:mod:`.catchup`), which
reads and checks each commit and record as it arrives. ``verify`` then checks the
index's history (sequence, links, chain hashes, paths, per-file continuity, content
present). A ``verify`` that found nothing wrong keeps here, in the index's ``meta`` as
the in-tree ledger's checkpoint does (:mod:`snapline.store.ledger.checkpoint`), the
latest snapshot it reached: number, id and chain hash. The next ``verify`` checks only
the snapshots after it, from that chain hash, as long as the index's snapshot of that
number still has that id and chain hash (``snapline.validation``).

There are no ledger files to stamp: a commit of the line is named by its own hash and
never changes, and what the index holds of the commits before the checkpoint is what
the check found sound. The checkpoint lives in the index only, so it goes wherever the
index goes: a fresh clone, a new linked work tree or a deleted cache has none (the
index is built anew), and a forget taken in empties it with the history it rebuilds
(:func:`~snapline.store.ledger.tables.clear_history`). What the default ``verify``
then trusts is the index's copy of the history up to the checkpoint, and the presence
of git's blobs that snapshots up to it keep whole: ``verify --full`` checks both again
(docs/guarantees.md, "A fresh clone's first verify, and git's index").
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from snapline.store.rows import Checkpoint
    from snapline.store.sqlite import SqliteStore

__all__ = ["Verified"]


class Verified:
    """The protocol's checkpoint methods of the refs store, over its index.

    Attributes:
        index: The store's local index (the class it is mixed into sets it).
    """

    index: SqliteStore

    def checkpoint(self) -> Checkpoint | None:
        """What the last ``verify`` found sound, or ``None`` (never verified in this index).

        Its ``stamps`` are empty: the refs have no ledger files.
        """
        # Imported here: only verify asks (every command on refs imports the store).
        from snapline.store.ledger.checkpoint import CheckpointTable

        return CheckpointTable(self.index.connection).get()

    def save_checkpoint(self, checkpoint: Checkpoint) -> None:
        """Keep ``checkpoint`` (its stamps left out) in the index; local, never published.

        Raises:
            StoreAccessError: If this user cannot write the index.
            StoreBusyError: If another process holds it past the timeout.
        """
        from snapline.store.ledger.checkpoint import CheckpointTable

        with self.index.write():
            CheckpointTable(self.index.connection).put(checkpoint._replace(stamps={}))
