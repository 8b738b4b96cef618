"""The refs store's answers about other lines: joined, being joined, and others' lines by id.

A mixin of :class:`~snapline.store.refs.store.RefsStore`, so that the store module keeps
to writing and catching up. The lines a merge snapshot joined are read from its commit
(:mod:`.sides`); those ``snapline merge`` is joining, inside :meth:`OtherLines.merging`
(:mod:`.joining`); other writers' lines, which nothing joins, only when an ``id:``
reference names one of their snapshots (:mod:`.elsewhere`): they never make a writer
refuse, as the in-tree ledger's unjoined lines do.
"""

from __future__ import annotations

import contextlib
import zlib
from collections.abc import Iterable, Iterator, MutableMapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, cast

from snapline.content import git_reference, git_referenced, pack_raw, unpack
from snapline.hashing import hash_bytes
from snapline.store.connection import Connection
from snapline.store.content import BlobTable
from snapline.store.errors import StoreCorruptError
from snapline.store.refs.git import GitRepository, MissingObjectError
from snapline.store.refs.reading import DamagedLineError, LineSnapshot
from snapline.store.refs.tombstones import is_stand_in, named_in
from snapline.store.rows import ChangeRow, LedgerEntry, SideRow, SnapshotRow

if TYPE_CHECKING:
    from snapline.store.refs.store import RefsStore

__all__ = ["DamagedBlobError", "OtherLines", "SideBlobs"]


class DamagedBlobError(StoreCorruptError):
    """Content the index keeps as a git blob that is missing or holds other bytes.

    Named by the index file that refers to the blob: the index records no commit for a
    reference, and git's advice (``git fsck``, a refetch) fits the object it names.

    Attributes:
        hash: The content's recorded SHA-256 (``sha256:<hex>``).
        blob: The git blob id the index refers to.
    """

    def __init__(self, path: Path, hash_: str, blob: str, what: str) -> None:
        """Describe the blob.

        Args:
            path: The index file holding the reference.
            hash_: The content's recorded hash.
            blob: The blob id.
            what: What is wrong with it (``is missing``, ``hashes to ...``).
        """
        self.hash = hash_
        self.blob = blob
        super().__init__(path, f"content {hash_} is git's blob {blob}, which {what}")


class SideBlobs(BlobTable):
    """The index's blobs, git's blobs they name, and other lines' whole versions.

    The index keeps a whole version by reference, as the id of the git blob its
    snapshot's ``state`` holds (:func:`~snapline.content.git_reference`): the content is
    in git's object database once, never copied. An index built from the refs names the
    blobs it finds there; a write (``init``'s baseline, a record) puts each whole version
    into git's object database as it stores it, and keeps its id (``written``, which
    publishing puts in the ``state`` as it is, unread). Reading one here reads the blob
    and checks it against its recorded hash (damage is :class:`DamagedBlobError`, exit 3,
    named by the index file ``path``).

    A snapshot of another line (joined, or named by ``id:``) keeps its whole versions in
    its commit's ``state`` only. :meth:`OtherLines.side_line` reads them there
    (hash-checked) into ``extra``, for this process: readers find them as any blob, and
    nothing is written to the index (``put`` and the tables' other writers see the index
    alone).

    Args:
        connection: The index's connection.
        repo: The repository whose object database holds the contents.
        path: The index file.
        written: Where the blobs this transaction wrote are noted, git's id by hash
            (the store's pending additions, cleared when the transaction ends).

    Attributes:
        extra: Packed content by hash, read from the lines' states.
        path: The index file, which names a damaged blob's reference in messages.
        written: The git blob of each content put in this transaction, by hash.
    """

    def __init__(
        self,
        connection: Connection,
        repo: GitRepository,
        path: Path,
        written: MutableMapping[str, str] | None = None,
    ) -> None:
        super().__init__(connection)
        self.extra: dict[str, bytes] = {}
        self.path = path
        self.written: MutableMapping[str, str] = {} if written is None else written
        self._repo = repo

    def put(self, hash_: str, size: int, packed: bytes) -> bool:
        """Store a content as git's blob, the index keeping its id; unless present.

        Returns:
            Whether it was new.

        Raises:
            RuntimeError: Outside a transaction.
        """
        self._c.require_transaction()
        if self.kept(hash_):
            return False
        return super().put(hash_, size, self._in_git(hash_, size, packed))

    def put_many(self, blobs: Sequence[tuple[str, int, bytes]]) -> None:
        """Store many ``(hash, size, packed)`` contents as :meth:`put` does.

        Raises:
            RuntimeError: Outside a transaction.
        """
        self._c.require_transaction()
        kept = super().present(hash_ for hash_, _, _ in blobs)
        super().put_many(
            [
                (hash_, size, self._in_git(hash_, size, packed))
                for hash_, size, packed in blobs
                if hash_ not in kept
            ]
        )

    def _in_git(self, hash_: str, size: int, packed: bytes) -> bytes:
        """What the index keeps of a content: a reference to the git blob it is written to.

        A value that is no content of its hash (a reference already, a tombstone, bytes
        that unpack to another hash) is kept as it is given: git holds contents only.
        """
        if hash_ in self.written:
            return git_reference(self.written[hash_])
        try:
            data = unpack(packed, limit=size)
        except (ValueError, zlib.error):
            return packed
        if len(data) != size or hash_bytes(data) != hash_:
            return packed
        blob = self._repo.write_blob(data)
        self.written[hash_] = blob
        return git_reference(blob)

    def has(self, hash_: str) -> bool:
        """Whether the index, or a line read, holds this hash's content."""
        return super().has(hash_) or hash_ in self.extra

    def present(self, hashes: Iterable[str]) -> set[str]:
        """Which of ``hashes`` the index, or a line read, holds (a git blob: if git has it)."""
        wanted = list(hashes)
        found = super().present(wanted)
        # A reference's blob is looked up in git's object index, not read: all at once,
        # so the packs are listed once, not once per blob.
        referenced = self.referenced_by(found)
        held = self._repo.has_objects(set(referenced.values()))
        gone = {h for h, blob in referenced.items() if blob not in held}
        return (found - gone) | {h for h in wanted if h in self.extra}

    def get(self, hash_: str) -> bytes | None:
        """The packed content of ``hash_``: the index's, else a line's read, else ``None``.

        Raises:
            DamagedBlobError: If it is kept as a git blob that is missing or holds
                other bytes.
        """
        found = super().get(hash_)
        if found is None:
            return self.extra.get(hash_)
        blob = git_referenced(found)
        if blob is None:
            return found
        data = self._read(blob)
        if is_stand_in(data, hash_):
            return None  # forgotten, its record not here (.tombstones): no content kept
        if data is None or hash_bytes(data) != hash_:
            what = "is missing" if data is None else f"hashes to {hash_bytes(data)}"
            raise DamagedBlobError(self.path, hash_, blob, what)
        return pack_raw(data)

    def iter(self) -> Iterator[tuple[str, int, bytes]]:
        """Every blob of the index, those kept in git read (unchecked: the caller hashes)."""
        return self._resolved(super().iter())

    def references(self) -> Iterator[tuple[str, int, bytes]]:
        """The blobs kept in git, read (unchecked: the caller hashes them)."""
        return self._resolved(super().references())

    def _resolved(self, rows: Iterator[tuple[str, int, bytes]]) -> Iterator[tuple[str, int, bytes]]:
        for hash_, size, packed in rows:
            blob = git_referenced(packed)
            data = None if blob is None else self._read(blob)
            if is_stand_in(data, hash_):
                continue  # forgotten, its record not here (.tombstones): no content kept
            # A missing blob stays a reference, which unpacking names as missing.
            yield hash_, size, packed if data is None else pack_raw(data)

    def _read(self, blob: str) -> bytes | None:
        try:
            return self._repo.read_blob(blob)
        except MissingObjectError:
            return None


class OtherLines:
    """The other-line methods of the store protocol, over the refs.

    Attributes:
        _joining: While ``snapline merge`` runs, the side snapshots it joins, by id.
    """

    _joining: dict[str, tuple[SideRow, LineSnapshot]]

    @contextlib.contextmanager
    def merging(self, root: Path) -> Iterator[None]:
        """A block in which the side snapshots include the lines a merge of ``root`` joins.

        Under the writer lock, caught up: ``snapline merge`` reads them as the ledger's
        unjoined lines (:mod:`.joining`), and its merge snapshot's commit names their
        heads' commits as further parents.

        Raises:
            DamagedLineError: If a line is damaged or crafted.
        """
        from snapline.store.refs.joining import lines_to_join

        self._joining = lines_to_join(_store(self), root)
        try:
            yield
        finally:
            self._joining = {}

    def side_snapshots(self) -> list[SideRow]:
        """The snapshots of the lines joined, and of those being joined, by number."""
        from snapline.store.refs.sides import joined_lines

        rows = [side for side, _ in [*joined_lines(_store(self)).values(), *self._joining.values()]]
        return sorted(rows, key=lambda row: (row.number, row.id))

    def side_line(self, id_: str) -> list[tuple[SnapshotRow, list[ChangeRow]]]:
        """The line's snapshots from its fork up to ``id_``, oldest first, with their changes.

        On a line joined, being joined, or, for an ``id:`` reference, another writer's.
        """
        from snapline.store.refs.sides import joined_lines, joined_side_line

        known = {**joined_lines(_store(self)), **self._joining}
        if id_ not in known:
            from snapline.store.refs.elsewhere import snapshots_elsewhere

            known = {**snapshots_elsewhere(_store(self)), **known}
        walked = joined_side_line(_store(self), id_, known)
        _read_whole(_store(self), [known[row.id][1] for row, _ in walked])
        return walked

    def snapshots_elsewhere(self, prefix: str) -> list[SideRow]:
        """Snapshots on other writers' lines, not joined, whose id starts with ``prefix``."""
        from snapline.store.refs.elsewhere import snapshots_elsewhere

        found = snapshots_elsewhere(_store(self))
        return sorted(
            (row for id_, (row, _) in found.items() if id_.startswith(prefix)),
            key=lambda row: (row.number, row.id),
        )

    def other_milestones(self) -> list[LedgerEntry]:
        """The milestones closed on the lines joined, or being joined (:mod:`.sides`)."""
        from snapline.store.refs.sides import joined_milestones

        found = joined_milestones(_store(self))
        if self._joining:
            found += joined_milestones(_store(self), self._joining)
        return found


def _store(lines: OtherLines) -> RefsStore:
    # Only RefsStore mixes this in (mypy takes no self-type of a subclass on a mixin).
    return cast("RefsStore", lines)


def _read_whole(store: RefsStore, snapshots: list[LineSnapshot]) -> None:
    """Read the whole versions of ``snapshots`` that the index lacks from their states.

    As a catch-up takes them in (:mod:`.catchup`): a version kept whole, or one whose
    delta was built on a forgotten version (its state holds it whole); a forgotten
    version's state holds its tombstone and is not read (its forget's record here or
    not: :mod:`.tombstones`).
    """
    from snapline.content import pack
    from snapline.store.refs.reading import read_version

    blobs = store.blobs
    assert isinstance(blobs, SideBlobs), "the refs store reads other lines through SideBlobs"
    forgotten = store.index.forgotten_hashes()
    for snapshot in snapshots:
        # Lines fetched without a forget's record: its tombstones say what it forgot.
        forgotten |= {hash_ for _, hash_ in named_in(snapshot.record.changes)}
        for change in snapshot.record.changes:
            whole = change.content
            if change.storage == "delta" and change.base_hash in forgotten:
                whole = change.result_hash
            if whole is None or whole in forgotten or blobs.has(whole):
                continue
            try:
                data = read_version(store.repo, snapshot, change.path, whole)
            except DamagedLineError:
                if is_stand_in(store.repo.read_path(snapshot.state, change.path), whole):
                    continue  # forgotten, and no later record says so
                raise
            blobs.extra[whole] = pack(data)
