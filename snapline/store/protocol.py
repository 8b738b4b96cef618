"""What the domain needs from a store, as protocols: the seam, typed against by all above.

Each table has a reader and a writer (the reader plus its changes), gathered in
:class:`StoreReader` and :class:`Store`, held by ``tests/store/``. Writes happen only in
:meth:`Store.write`; reads raise ``StoreBusyError`` or ``StoreCorruptError`` (errors.py).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any, Protocol, Unpack

from snapline.store.protocol_changes import ChangeReader, ChangeWriter
from snapline.store.rows import (
    ChangeRow,
    Checkpoint,
    Contents,
    FileStamp,
    Fingerprint,
    ForgottenRow,
    JournalRow,
    LedgerEntry,
    MilestoneRow,
    SideRow,
    SnapshotQuery,
    SnapshotRow,
    StateRow,
    StatRow,
)

__all__ = [
    "BlobReader",
    "BlobWriter",
    "ChangeReader",
    "ChangeWriter",
    "JournalReader",
    "JournalWriter",
    "KnownStateReader",
    "KnownStateWriter",
    "MilestoneReader",
    "MilestoneWriter",
    "SnapshotReader",
    "SnapshotWriter",
    "StatCacheReader",
    "StatCacheWriter",
    "Store",
    "StoreReader",
]


class SnapshotReader(Protocol):
    """Snapshot headers, read."""

    def latest_number(self) -> int | None:
        """The highest snapshot number, or ``None`` when nothing is recorded."""

    def get(self, number: int) -> SnapshotRow | None:
        """The header of snapshot ``number``, or ``None``."""

    def with_id_prefix(self, prefix: str, limit: int) -> list[SnapshotRow]:
        """Up to ``limit`` headers whose id starts with ``prefix``, by number."""

    def with_ids(self, ids: Collection[str]) -> list[SnapshotRow]:
        """The headers whose id is one of ``ids``, in number order."""

    def select(self, **query: Unpack[SnapshotQuery]) -> list[SnapshotRow]:
        """Headers matching every filter of ``query``, by number."""


class SnapshotWriter(SnapshotReader, Protocol):
    """Snapshot headers, read and inserted."""

    def insert(
        self, row: SnapshotRow, changes: Sequence[ChangeRow], contents: Contents = None
    ) -> None:
        """Insert one snapshot with its changes (``contents``: the new versions at hand)."""

    def seal(self, number: int, skipped: str, chain_hash: str) -> None:
        """Set the skipped paths and chain hash of a snapshot inserted in this transaction."""


class BlobReader(Protocol):
    """Content-addressed blobs, read.

    ``has``, ``present`` and ``get`` answer for what this process can read: on git's
    refs that includes other lines' versions read into memory (``SideBlobs.extra``),
    which the index never keeps. Whether a new change may name content without storing
    it is :meth:`kept`'s question alone.
    """

    def has(self, hash_: str) -> bool:
        """Whether this hash's content can be read here (a writer asks :meth:`kept`)."""

    def kept(self, hash_: str) -> bool:
        """Whether the store itself keeps this content: a new change may name it unstored."""

    def present(self, hashes: Iterable[str]) -> set[str]:
        """Which of ``hashes`` can be read here (in a few queries, not one each)."""

    def get(self, hash_: str) -> bytes | None:
        """The packed content of ``hash_`` that can be read here, or ``None``."""

    def hashes(self) -> list[str]:
        """The hash of every stored blob."""

    def iter(self) -> Iterator[tuple[str, int, bytes]]:
        """Every blob as ``(hash, size, packed)``, streamed."""

    def references(self) -> Iterator[tuple[str, int, bytes]]:
        """The blobs kept by reference (git's, on git's refs), read, as ``iter`` gives them."""

    def referenced(self) -> set[str]:
        """The hash of every blob a recorded change refers to."""


class BlobWriter(BlobReader, Protocol):
    """Content-addressed blobs, read, stored and deleted."""

    def put(self, hash_: str, size: int, packed: bytes) -> bool:
        """Store a blob unless present; returns whether it was new."""

    def put_many(self, blobs: Sequence[tuple[str, int, bytes]]) -> None:
        """Store many ``(hash, size, packed)`` blobs, skipping those present."""

    def delete(self, hashes: Iterable[str]) -> int:
        """Delete blobs (absent ones are ignored); returns the packed bytes freed."""


class KnownStateReader(Protocol):
    """The known state of tracked paths, read."""

    def get(self, paths: Iterable[str] | None = None) -> dict[str, StateRow]:
        """The state of the given tracked paths (all when ``None``), by path."""

    def under(self, prefix: str) -> dict[str, StateRow]:
        """The state of every tracked path inside directory ``prefix``, by path."""

    def iter(self) -> Iterator[StateRow]:
        """The state of every tracked path, streamed, in no particular order."""


class KnownStateWriter(KnownStateReader, Protocol):
    """The known state of tracked paths, read and changed."""

    def set(self, upserts: Iterable[StateRow], deletes: Iterable[str]) -> None:
        """Insert or replace ``upserts``; stop tracking ``deletes``."""


class StatCacheReader(Protocol):
    """The stat cache, read."""

    def fingerprints(
        self, racy_window_ns: int, paths: Iterable[str] | None = None
    ) -> list[tuple[str, int, Fingerprint | None]]:
        """``(path, known mode, fingerprint to trust or None)`` (``StatCacheTable``'s)."""

    def stamps(self, racy_window_ns: int) -> list[tuple[str, int | None, int | None]]:
        """``(path, ino, ctime_ns)`` of every tracked path, ``None`` where not trusted."""

    def get(self, paths: Iterable[str] | None = None) -> dict[str, StatRow]:
        """The entries of the given paths (all when ``None``), by path."""


class StatCacheWriter(StatCacheReader, Protocol):
    """The stat cache, read and changed."""

    def put(self, entries: Iterable[StatRow], deletes: Iterable[str] = ()) -> None:
        """Insert or replace ``entries``; drop the entries of ``deletes``."""


class MilestoneReader(Protocol):
    """Milestones, read."""

    def all(self) -> list[MilestoneRow]:
        """Every milestone, by number."""

    def get(self, number: int) -> MilestoneRow | None:
        """Milestone ``number``, or ``None``."""

    def latest(self) -> MilestoneRow | None:
        """The milestone with the highest number, or ``None``."""

    def containing(self, snapshot: int) -> MilestoneRow | None:
        """The lowest-numbered milestone whose range includes ``snapshot``, or ``None``."""


class MilestoneWriter(MilestoneReader, Protocol):
    """Milestones, read and inserted."""

    def insert(self, row: MilestoneRow) -> None:
        """Insert one milestone."""


class JournalReader(Protocol):
    """The journal of workspace changes under way, read."""

    def entries(self) -> list[JournalRow]:
        """Every entry, oldest first."""


class JournalWriter(JournalReader, Protocol):
    """The journal of workspace changes under way, read and changed."""

    def add(self, op: str, created: str, payload: str) -> int:
        """Add one entry; returns its id."""

    def delete(self, entry_id: int) -> None:
        """Delete one entry (an absent one is ignored)."""


class StoreReader(Protocol):
    """What reading code needs from a store: every table's reader and a consistent view."""

    @property
    def path(self) -> Path:
        """Where the store lives."""

    @property
    def snapshots(self) -> SnapshotReader:
        """Snapshot headers."""

    @property
    def changes(self) -> ChangeReader:
        """File changes."""

    @property
    def blobs(self) -> BlobReader:
        """Content-addressed blobs."""

    @property
    def state(self) -> KnownStateReader:
        """The known state."""

    @property
    def stat_cache(self) -> StatCacheReader:
        """The stat cache."""

    @property
    def milestones(self) -> MilestoneReader:
        """Milestones."""

    @property
    def journal(self) -> JournalReader:
        """The journal."""

    def read(self) -> AbstractContextManager[None]:
        """A block that sees one consistent view; inside ``write()`` it joins it."""

    def config(self) -> dict[str, Any]:
        """The workspace configuration kept in the store."""

    def format_version(self) -> int:
        """The store's format version."""

    def generation(self) -> tuple[int, int]:
        """A value that differs whenever anything may have been committed in between."""

    def integrity_problems(self) -> list[str]:
        """What is physically damaged in the store; empty when it is sound."""

    def stale(self) -> bool:
        """Whether the fast lookups lag behind the history (see :meth:`Store.refresh`)."""

    def ledger_entries(self, names: Collection[str] | None = None) -> Iterator[LedgerEntry]:
        """Every file of the committed history read back, for ``verify`` (none without one).

        Args:
            names: Only these files (paths under the ledger, as :meth:`ledger_stamps`
                names them); all when ``None``.
        """

    def ledger_stamps(self) -> dict[str, FileStamp]:
        """An ``lstat`` stamp of every ledger file, by path under the ledger (``{}``: none)."""

    def checkpoint(self) -> Checkpoint | None:
        """What the last full ``verify`` found sound, or ``None``: check everything."""

    def forgotten_hashes(self) -> set[str]:
        """The content hashes of versions forgotten on purpose (``snapline forget``)."""

    def baseline_in_workspace(self) -> bool:
        """Whether the baseline's content may be held by the workspace only (the ledger)."""

    def baseline_content(self, path: str, hash_: str, size: int) -> bytes | None:
        """A baseline version the store holds no copy of, checked, from where it still is."""

    def forgotten_version(self, path: str, hash_: str) -> ForgottenRow | None:
        """The version ``hash_`` of ``path`` if its content was forgotten, else ``None``."""

    def side_snapshots(self) -> list[SideRow]:
        """Snapshots on lines other than the main one (branches merged in git), by number."""

    def side_line(self, id_: str) -> list[tuple[SnapshotRow, list[ChangeRow]]]:
        """The snapshots of another line up to ``id_``, oldest first, with their changes.

        From the first snapshot after the one on the main line it continues (its fork)
        to the side snapshot ``id_`` (deltas included, as the index holds a main-line
        change); ``[]`` when ``id_`` is not a side snapshot. Read from the ledger: the
        index lists side snapshots without their changes.
        """

    def snapshots_elsewhere(self, prefix: str) -> list[SideRow]:
        """Snapshots of other writers' lines on git's refs, not joined, by id prefix (``id:``)."""

    def orphan_snapshots(self) -> list[tuple[int, str]]:
        """``(number, id)`` of files a branch switch left, parent not here (format.md: orphans)."""

    def other_milestones(self) -> list[LedgerEntry]:
        """Milestone files the index does not hold (other lines'), by number, time and name."""


class Store(StoreReader, Protocol):
    """Everything the domain needs from a store: the readers, the writers, transactions."""

    @property
    def snapshots(self) -> SnapshotWriter:
        """Snapshot headers."""

    @property
    def changes(self) -> ChangeWriter:
        """File changes."""

    @property
    def blobs(self) -> BlobWriter:
        """Content-addressed blobs."""

    @property
    def state(self) -> KnownStateWriter:
        """The known state."""

    @property
    def stat_cache(self) -> StatCacheWriter:
        """The stat cache."""

    @property
    def milestones(self) -> MilestoneWriter:
        """Milestones."""

    @property
    def journal(self) -> JournalWriter:
        """The journal."""

    def write(self) -> AbstractContextManager[None]:
        """A block run as one transaction: all of it commits, or none; nests.

        Raises:
            StoreBusyError: If another writer holds the store past the busy timeout.
        """

    def merging(self, root: Path) -> AbstractContextManager[None]:
        """A block in which the side snapshots include the lines a merge of ``root`` joins.

        On git's refs, other writers' lines whose work git merged into the files.
        """

    def refresh(self) -> bool:
        """Catch the index up with the ledger (pulled, merged), locked; True if it changed."""

    def save_checkpoint(self, checkpoint: Checkpoint) -> None:
        """Keep what a full ``verify`` found sound (locally); a store without a ledger ignores it.

        Raises:
            StoreBusyError: If another writer holds the store past the busy timeout.
        """

    def keep_listing(self) -> None:
        """Keep what shows the ledger's listings matched the index, for the next process."""

    def vacuum(self) -> None:
        """Give the space of deleted rows back to the file system; outside ``write()``."""

    def close(self) -> None:
        """Release the store; it cannot be used afterwards."""
