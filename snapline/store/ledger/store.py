"""The ledger store: the committed ledger as the history, a local SQLite index beside it.

:class:`LedgerStore` implements the :class:`~snapline.store.protocol.Store` protocol.
Every read is answered by the index (``.snapline/index.db``, the SQLite store of
:mod:`snapline.store.sqlite`); every write goes to the index inside one transaction and,
just before that transaction commits, the snapshots and milestones it added are written
to the ledger as new files (:meth:`LedgerStore.write`). The ledger file is the commit
point: once it is on disk the snapshot exists, and an index that lost its transaction
(a crash in between) catches up from the ledger on the next open
(:mod:`snapline.store.ledger.sync`). The index never holds a snapshot the ledger lacks.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from snapline.content import unpack
from snapline.crashpoints import crash_point
from snapline.store.errors import StoreAccessError, StoreCorruptError, access_problem
from snapline.store.forgotten import ForgottenTable
from snapline.store.indexed import IndexedStore
from snapline.store.ledger.baseline import baseline_content
from snapline.store.ledger.checkpoint import CheckpointTable, stamp_ledger
from snapline.store.ledger.files import (
    FORMAT_NAME,
    MILESTONES,
    SNAPSHOTS,
    Ledger,
    LedgerFileError,
)
from snapline.store.ledger.format import milestone_name as milestone_file_name
from snapline.store.ledger.format import (
    render_milestone,
    render_snapshot_parts,
    snapshot_name,
)
from snapline.store.ledger.listed import FolderStamps, ListedTable, folder_stamps
from snapline.store.ledger.side_lines import line_ids, read_side_line
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
    from snapline.store.ledger.watch import LedgerWatch
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
        # The inotify watch of a long-lived process (watch.py), started by sync.
        self.watch: LedgerWatch | None = None
        # How often this process asked whether the index holds the ledger's files.
        self.checks = 0
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
        """A block run as one index transaction whose additions reach the ledger first; nests.

        Raises:
            StoreBusyError: If another writer holds the index past the busy timeout.
            StoreAccessError: If the disk refuses a ledger file.
        """
        self.ledger.parsed.clear()
        with self._transaction() as published:
            yield
        if published and self.agreed is not None:
            # Committed: the index holds the names of the files just written, and the
            # listings hold the files (see sync._in_step).
            version, listing = self.agreed
            self.agreed = (version, listing | frozenset(published))

    # -- the rest of the protocol ------------------------------------------------------

    def close(self) -> None:
        """Close the index and stop watching the ledger."""
        self.ledger.parsed.clear()
        if self.watch is not None:
            self.watch.close()
            self.watch = None
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

    # -- publishing ----------------------------------------------------------------

    def _publish(self) -> list[str]:
        try:
            names = [self._publish_snapshot(number) for number in self._pending.snapshots]
            names += [self._publish_milestone(number) for number in self._pending.milestones]
        except LedgerFileError as error:
            raise StoreCorruptError(error.path, error.what) from None
        except OSError as error:
            # Full, read-only, a file-size limit: the OS refused; the transaction rolls
            # back and the ledger holds no file for it (write_new takes its name back).
            location = Path(error.filename) if error.filename else self.path
            raise StoreAccessError(location, access_problem(error), str(error)) from None
        crash_point("ledger-published")
        return names

    def _publish_snapshot(self, number: int) -> str:
        row = self.index.snapshots.get(number)
        assert row is not None, f"snapshot {number} was inserted in this transaction"
        # Streamed from the index into the file: a baseline's rows and its text held
        # at once were three quarters of init's 224 MiB peak at 100,000 files.
        with contextlib.closing(self.index.changes.stream_of(number)) as stream:
            changes: Iterable[ChangeRow] = stream
            if number > 0:
                changes = list(stream)
                self._write_objects(number, changes)
            merges = json.loads(row.merges)
            if merges:
                self.side.mark_merged(line_ids(self.side, merges), number)
            name = snapshot_name(number, row.id)
            self.ledger.write_new(SNAPSHOTS, name, render_snapshot_parts(row, changes))
        self.names.add([name])
        return name

    def _publish_milestone(self, number: int) -> str:
        row = self.index.milestones.get(number)
        assert row is not None, f"milestone {number} was inserted in this transaction"
        last = self.index.snapshots.get(row.last)
        if last is None:
            raise StoreCorruptError(self.path, f"milestone {number} ends at a missing snapshot")
        data = render_milestone(row, last.id)
        name = milestone_file_name(number, data)
        self.ledger.write_new(MILESTONES, name, data)
        self.names.add([name])
        return name

    def _write_objects(self, number: int, changes: Sequence[ChangeRow]) -> None:
        """Give the ledger the content the snapshot's diffs cannot carry.

        A version stored in full becomes an object. The baseline's content is not in
        the ledger (the workspace holds it); when a snapshot changes a file still at
        its baseline version, that version becomes an object then, so it stays
        rebuildable after the workspace moves on.
        """
        for change in changes:
            if change.content is not None and change.size is not None:
                self._copy_blob(change.content, change.size)
            if change.base_hash is None:
                continue
            lineage = change.old_path or change.path
            base = self.index.changes.version_at(lineage, number - 1)
            if (
                base is not None
                and base.snapshot == 0
                and base.path == lineage
                and base.content == change.base_hash
                and base.size is not None
            ):
                self._copy_blob(base.content, base.size, lineage)

    def _copy_blob(self, hash_: str, size: int, path: str | None = None) -> None:
        if self.ledger.has_object(hash_):
            return
        packed = self.index.blobs.get(hash_)
        if packed is not None:
            self.ledger.write_object(hash_, unpack(packed, limit=size))
            return
        # A baseline version an index rebuilt from the ledger never copied: the
        # recorder keeps it as a blob before a write replaces it (Recorder.prepare);
        # one changed outside snapline may still be in git's HEAD.
        content = None if path is None else self.baseline_content(path, hash_, size)
        if content is not None:
            self.ledger.write_object(hash_, content)


if TYPE_CHECKING:

    def _is_a_store(store: LedgerStore) -> Store:
        return store
