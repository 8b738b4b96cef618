"""The ledger store: the 0.2 in-tree ledger as the history, a local SQLite index beside it.

:class:`LedgerStore` implements the :class:`~snapline.store.protocol.Store` protocol for
reading, verifying, merging with and upgrading a checkout whose history is still
``.snapline/ledger/`` (a branch from before ``snapline upgrade``). Every read is answered
by the index (``.snapline/index.db``, the SQLite store of :mod:`snapline.store.sqlite`),
which catches up with the ledger a pull or a merge changed
(:mod:`snapline.store.ledger.sync`). Nothing writes the ledger: every writing command
refuses first (``InTreeLedgerError``, from ``Recorder.writing``), and a transaction that
added a snapshot or a milestone would refuse here too, before its commit.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Collection, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from snapline.store.errors import InTreeLedgerError
from snapline.store.forgotten import ForgottenTable
from snapline.store.indexed import IndexedStore
from snapline.store.ledger.baseline import baseline_content
from snapline.store.ledger.checkpoint import CheckpointTable, stamp_ledger
from snapline.store.ledger.files import (
    FORMAT_NAME,
    Ledger,
)
from snapline.store.ledger.listed import FolderStamps, ListedTable, folder_stamps
from snapline.store.ledger.side_lines import read_side_line
from snapline.store.ledger.tables import (
    ForgetCleanup,
    LedgerNameTable,
    OrphanTable,
    SideSnapshotTable,
)
from snapline.store.rows import (
    ChangeRow,
    Checkpoint,
    FileStamp,
    ForgottenRow,
    LedgerEntry,
    SideRow,
    SnapshotRow,
)
from snapline.store.sqlite import SqliteStore

if TYPE_CHECKING:
    from snapline.store.protocol import Store

__all__ = ["LedgerStore"]


class LedgerStore(IndexedStore):
    """An open workspace history: the ledger and its local index.

    The workspace configuration is the ledger's ``config.json``, copied in the index.

    Args:
        ledger: The ledger directory.
        index: The open index.

    Attributes:
        path: The ledger directory, which names the history in messages.
        ledger: The ledger's files.
        index: The local index.
        names: The ledger files the index holds.
        side: Snapshots of other lines.
        orphans: Snapshot files whose parent is not in this checkout.
        forget_cleanup: Whether the index still holds pages a forget must clean.
        forgotten: Versions whose content was forgotten.
    """

    def __init__(self, ledger: Ledger, index: SqliteStore) -> None:
        super().__init__(index)
        self.ledger = ledger
        self.path: Path = ledger.path
        # Set by a caller that shows progress while the index is rebuilt: (done, total).
        self.progress: Callable[[int, int], None] | None = None
        # The index's version (its connection and data_version) and the ledger's
        # listings when the index was last found to hold every ledger file (kept by
        # sync._in_step; None: look again).
        self.agreed: tuple[object, frozenset[str]] | None = None
        # The folders' stamp when a listing last agreed with the index, if safely old
        # (listed.py); kept in the index by keep_listing().
        self.settled: FolderStamps | None = None
        self.listed = ListedTable(index.connection)
        connection = index.connection
        self.names = LedgerNameTable(connection)
        self.side = SideSnapshotTable(connection)
        self.orphans = OrphanTable(connection)
        self.forget_cleanup = ForgetCleanup(connection)
        self.forgotten = ForgottenTable(connection)
        self._checkpoints = CheckpointTable(connection)
        self.changes = index.changes

    # -- transactions --------------------------------------------------------------

    @contextlib.contextmanager
    def write(self) -> Iterator[None]:
        """A block run as one index transaction (the local cache only); nests.

        Raises:
            StoreBusyError: If another writer holds the index past the busy timeout.
            InTreeLedgerError: If the block added a snapshot or a milestone.
        """
        self.ledger.parsed.clear()
        with self._transaction():
            yield

    # -- the rest of the protocol ------------------------------------------------------

    def close(self) -> None:
        """Close the index."""
        self.ledger.parsed.clear()
        super().close()

    def refresh(self) -> bool:
        """Bring the index up to the ledger; call holding the writer lock.

        Returns:
            Whether the index changed.

        Raises:
            StoreCorruptError: If a ledger file is damaged or missing; it is named.
        """
        from snapline.store.ledger.sync import catch_up

        if not self.ledger.file("", FORMAT_NAME).is_file():
            # Deleted (or moved) while open: nothing to catch up with, and the writers'
            # presence check says what happened instead of reading an empty ledger.
            return False
        return catch_up(self, self.ledger.path.parent.parent, self.progress)

    def stale(self) -> bool:
        """Whether :meth:`refresh` has anything to do (a look at the ledger's listings)."""
        from snapline.store.ledger.sync import needs_catch_up

        return needs_catch_up(self)

    def ledger_entries(self, names: Collection[str] | None = None) -> Iterator[LedgerEntry]:
        """Ledger files read back: records parsed, objects checked against their names.

        Args:
            names: Only these (paths under the ledger); every file when ``None``.
        """
        from snapline.store.ledger.check import read_back

        yield from read_back(self.ledger, names)
        self.ledger.parsed.clear()  # verify has had what the catch-up parsed

    def ledger_stamps(self) -> dict[str, FileStamp]:
        """An ``lstat`` stamp of every ledger file, by path under the ledger."""
        return stamp_ledger(self.ledger)

    def keep_listing(self) -> None:
        """Keep the stamp of the ledger's folders seen to match the index, for later processes.

        Only a stamp taken when this process's listing agreed with the index and the
        folders were safely old (``listed.py``); nothing when there is none, or when it
        is already kept.
        """
        settled = self.settled
        if settled is None or self.listed.get() == settled:
            return
        with self.index.write():
            # Under the index's write lock no publisher is between its ledger file and
            # its commit: folders that still have this stamp still hold what matched.
            if folder_stamps(self.ledger) == settled:
                self.listed.put(settled)

    def checkpoint(self) -> Checkpoint | None:
        """What the last full ``verify`` found sound, or ``None``."""
        return self._checkpoints.get()

    def save_checkpoint(self, checkpoint: Checkpoint) -> None:
        """Keep ``checkpoint`` in the index (local: it is never committed)."""
        with self.index.write():
            self._checkpoints.put(checkpoint)

    def forgotten_hashes(self) -> set[str]:
        """The content hashes of forgotten versions."""
        return self.forgotten.hashes()

    def baseline_in_workspace(self) -> bool:
        """Yes: the ledger copies a baseline version only once a snapshot changes it."""
        return True

    def baseline_content(self, path: str, hash_: str, size: int) -> bytes | None:
        """A baseline version from the workspace file or git's ``HEAD``, hash-checked.

        An index rebuilt from the ledger (a fresh clone) holds no copy of the baseline
        versions the workspace holds (:mod:`snapline.store.ledger.baseline`). A version
        forgotten on purpose is never brought back from either place.
        """
        if hash_ in self.forgotten.hashes():
            return None
        return baseline_content(self.path.parent.parent, path, hash_, size)

    def forgotten_version(self, path: str, hash_: str) -> ForgottenRow | None:
        """The version ``hash_`` of ``path`` if its content was forgotten, else ``None``."""
        return self.forgotten.get(path, hash_)

    def merging(self, root: Path) -> contextlib.AbstractContextManager[None]:
        """Nothing to add: the ledger lists every line git merged."""
        return contextlib.nullcontext()

    def side_snapshots(self) -> list[SideRow]:
        """Snapshots on lines other than the main one, by number."""
        return self.side.all()

    def snapshots_elsewhere(self, prefix: str) -> list[SideRow]:
        """No lines of other writers: returns ``[]``."""
        return []

    def side_line(self, id_: str) -> list[tuple[SnapshotRow, list[ChangeRow]]]:
        """The snapshots of another line up to ``id_``, oldest first, from their files."""
        return read_side_line(self, id_)

    def orphan_snapshots(self) -> list[tuple[int, str]]:
        """``(number, id)`` of snapshot files whose parent is not in this checkout."""
        return self.orphans.all()

    def other_milestones(self) -> list[LedgerEntry]:
        """Milestone files the index does not hold: another line's, another branch's.

        Milestones are few, so their files are read on each call (a listing and a parse
        of the ones whose number and chain hash the index does not hold).
        """
        from snapline.store.ledger.milestone_import import other_milestone_entries

        return other_milestone_entries(self)

    def unmerged_heads(self) -> list[str]:
        """The ids of the heads of lines not joined to the main one (empty: one line)."""
        side = [row for row in self.side.all() if row.merged_into is None]
        parents = {row.parent_id for row in side}
        return [row.id for row in side if row.id not in parents]

    def _publish(self) -> list[str]:
        """Never reached: every writer refused first (``Recorder.writing``).

        Raises:
            InTreeLedgerError: Always; nothing is written into the ledger.
        """
        raise InTreeLedgerError(self.path)


if TYPE_CHECKING:

    def _is_a_store(store: LedgerStore) -> Store:
        return store
