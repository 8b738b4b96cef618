"""A store whose history lives elsewhere, a local SQLite index beside it answering reads.

The ledger store (:mod:`snapline.store.ledger.store`) and the refs store
(:mod:`snapline.store.refs.store`) run the same transaction: every write goes to the
index, and just before the outermost write commits, the snapshots and milestones it
inserted are published (ledger files, commits on a line's ref), so the index never holds
what the history lacks. :class:`IndexedStore` is that part, with the protocol methods
the index answers alone; each backend adds its ``_publish`` and what it keeps beside.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from snapline.store.pending import Pending, PublishingMilestones, PublishingSnapshots

if TYPE_CHECKING:
    from snapline.store.sqlite import SqliteStore

__all__ = ["IndexedStore"]


class IndexedStore:
    """The index, its tables as the domain sees them, and writes that publish before commit.

    Args:
        index: The open index.

    Attributes:
        index: The local index.
        snapshots: The index's snapshots; inserts are noted to publish.
        milestones: The index's milestones; inserts are noted to publish.
    """

    def __init__(self, index: SqliteStore) -> None:
        self.index = index
        self._pending = Pending()
        self._depth = 0
        self.snapshots = PublishingSnapshots(index, self._pending)
        self.milestones = PublishingMilestones(index, self._pending)
        self.blobs = index.blobs
        self.state = index.state
        self.stat_cache = index.stat_cache
        self.journal = index.journal

    # -- transactions --------------------------------------------------------------

    @contextlib.contextmanager
    def write(self) -> Iterator[None]:
        """A block run as one index transaction whose additions are published first; nests.

        Raises:
            StoreBusyError: If another writer holds the index past the busy timeout.
            SnaplineError: What the backend's publishing raises (see its ``_publish``).
        """
        with self._transaction():
            yield

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[list[str]]:
        """The index transaction of :meth:`write`.

        Yields:
            A list that holds, once the block ran, what the outermost write published
            (empty in a nested one, and when nothing was added).
        """
        published: list[str] = []
        with self.index.write():
            self._depth += 1
            try:
                yield published
                if self._depth == 1 and self._pending:
                    published += self._publish()
            finally:
                self._depth -= 1
                if not self._depth:
                    self._pending.clear()

    def _publish(self) -> list[str]:
        """Publish what the transaction added, before it commits.

        Returns:
            What was published (names of files, commits).
        """
        raise NotImplementedError

    def read(self) -> contextlib.AbstractContextManager[None]:
        """A block that sees one consistent view of the index; inside ``write()`` it joins."""
        return self.index.read()

    # -- what the index answers ----------------------------------------------------

    def config(self) -> dict[str, Any]:
        """The workspace configuration kept in the index."""
        return self.index.config()

    def format_version(self) -> int:
        """The index's format version."""
        return self.index.format_version()

    def generation(self) -> tuple[int, int]:
        """A value that differs whenever the index may have changed in between."""
        return self.index.generation()

    def integrity_problems(self) -> list[str]:
        """SQLite's own check of the index file."""
        return self.index.integrity_problems()

    def vacuum(self) -> None:
        """Give the index's free space back; the history beside it has none to give."""
        self.index.vacuum()

    def close(self) -> None:
        """Close the index."""
        self.index.close()
