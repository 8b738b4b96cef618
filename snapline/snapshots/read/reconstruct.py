"""Rebuilding any recorded version of a file from the store alone.

A version is stored either in full (compressed, under its hash) or as a forward delta
against the previous version of the same file. A rebuild starts from the nearest full
version (or a cached one) and applies at most ``max_chain`` deltas, which the recorder
bounds, so the cost does not grow with the length of the history. Every rebuilt version
is checked against its recorded hash before anyone gets to use it.
"""

from __future__ import annotations

import threading
import zlib
from collections import OrderedDict
from collections.abc import Iterable
from typing import TYPE_CHECKING

from snapline.content import (
    MAX_DELTA_BYTES,
    PackedSizeError,
    UnknownCodecError,
    decode_text,
    unpack,
)
from snapline.diffing import apply_delta
from snapline.errors import SnaplineError
from snapline.hashing import hash_bytes
from snapline.paths import check_recorded
from snapline.snapshots.kinds import ChangeKind, Storage
from snapline.store import ChangeRow, StoreCorruptError

if TYPE_CHECKING:
    from snapline.store import StoreReader

__all__ = [
    "ContentCache",
    "ContentUnavailableError",
    "ForgottenVersionError",
    "NotInSnapshotError",
    "Reconstructor",
]

_DEFAULT_CACHE_BYTES = 64 << 20


class NotInSnapshotError(SnaplineError):
    """The path did not exist after the requested snapshot."""

    path: str
    number: int

    def _message(self) -> str:
        return (
            f"{self.path} does not exist after snapshot {self.number}; "
            "check the number with `snapline log --file`"
        )


class ContentUnavailableError(SnaplineError):
    """The version was tracked by hash only (above the large-file limit).

    Attributes:
        path: The file.
        number: The snapshot after which it had that version.
        hash: The version's content hash.
    """

    path: str
    number: int
    hash: str | None

    def _message(self) -> str:
        # Each kind of unavailable version says why in its own words; the data is the same.
        return (
            f"{self.path} after snapshot {self.number} was tracked by hash only ({self.hash}), "
            "because it was above the large-file limit; its content cannot be rebuilt"
        )


class ContentElsewhereError(ContentUnavailableError):
    """A baseline version whose content only the workspace that recorded it held.

    The ledger keeps no copy of a baseline file until a snapshot changes it; a clone
    whose workspace no longer holds that version (edited before it was recorded), and
    whose git ``HEAD`` does not either, cannot rebuild it. Not damage: the history
    still has its hash.
    """

    def _message(self) -> str:
        return (
            f"{self.path} after snapshot {self.number} is a baseline version ({self.hash}) "
            "whose content the ledger leaves in the workspace, and neither this workspace nor "
            "its git HEAD holds it any more; it can be rebuilt only in a clone whose file is "
            "still at that version"
        )


class ForgottenVersionError(ContentUnavailableError):
    """The version's content was removed on purpose (``snapline forget``).

    Not damage: the history still verifies, it only cannot give these bytes back. A
    :class:`ContentUnavailableError`, so ``show`` and ``diff`` say the content is not
    there and ``rollback`` refuses the file, as for a version tracked by hash only.
    Exit code 1.

    Attributes:
        time: When it was forgotten.
        reason: Why, as the forget recorded it.
    """

    time: str
    reason: str

    def _message(self) -> str:
        # No time when only the lines say so, the forget's record not fetched.
        when = f", {self.time}" if self.time else ""
        return (
            f"the content of {self.path} at snapshot {self.number} was forgotten "
            f"(snapline forget{when}: {self.reason})"
        )


class ContentCache:
    """A bounded LRU of file contents by hash: content-addressed, so never stale.

    Safe to share between threads: readers use it outside the writer lock.
    """

    def __init__(self, max_bytes: int = _DEFAULT_CACHE_BYTES) -> None:
        self._max = max_bytes
        self._items: OrderedDict[str, bytes] = OrderedDict()
        self._size = 0
        self._lock = threading.Lock()

    def get(self, hash_: str | None) -> bytes | None:
        """The cached content with this hash, or ``None``."""
        if hash_ is None:
            return None
        with self._lock:
            data = self._items.get(hash_)
            if data is not None:
                self._items.move_to_end(hash_)
        return data

    def discard(self, hash_: str) -> None:
        """Drop the content with this hash (forgotten content must not linger here)."""
        with self._lock:
            dropped = self._items.pop(hash_, None)
            if dropped is not None:
                self._size -= len(dropped)

    def put(self, hash_: str, data: bytes) -> None:
        """Keep ``data`` under its hash, unless it would crowd out the rest."""
        if len(data) > self._max // 4:
            return
        with self._lock:
            if hash_ in self._items:
                return
            self._items[hash_] = data
            self._size += len(data)
            while self._size > self._max:
                _, dropped = self._items.popitem(last=False)
                self._size -= len(dropped)


class Reconstructor:
    """Rebuilds file versions from a store, checking each against its hash."""

    def __init__(self, store: StoreReader, cache: ContentCache | None = None) -> None:
        self.store = store
        self.cache = cache or ContentCache()

    def version(self, path: str, number: int) -> ChangeRow | None:
        """The change row that produced ``path``'s state after ``number``; ``None`` if absent."""
        row = self.store.changes.version_at(path, number)
        if row is None or row.path != path or row.storage == Storage.NONE:
            return None
        return row

    def versions(self, paths: Iterable[str], number: int) -> dict[str, ChangeRow]:
        """:meth:`version` of each of ``paths``, in two queries; the absent left out."""
        found = self.store.changes.versions_at(paths, number)
        return {path: row for path, row in found.items() if row.storage != Storage.NONE}

    def content_at(self, path: str, number: int) -> bytes:
        """The bytes of ``path`` after snapshot ``number`` (0 is the baseline).

        Raises:
            NotInSnapshotError: If the file did not exist then.
            ContentUnavailableError: If that version was tracked by hash only.
            StoreCorruptError: If the store cannot rebuild the recorded bytes.
        """
        row = self.version(path, number)
        if row is None:
            raise NotInSnapshotError(path, number)
        return self.rebuild(row)

    def rebuild(self, row: ChangeRow) -> bytes:
        """The result content of one change row, hash-checked.

        Raises:
            UnsafeRecordError: If the row records an unsafe path: content meant for a
                place outside the root is never handed out.
            ForgottenVersionError: If that version's content was forgotten.
        """
        try:
            return self._rebuild(row)
        except StoreCorruptError:
            # Checked only on failure: a forgotten version fails for want of its
            # content, and a rebuild that succeeds needs no extra query.
            if row.result_hash is not None:
                forgotten = self.store.forgotten_version(row.path, row.result_hash)
                if forgotten is not None:
                    raise ForgottenVersionError(
                        row.path, row.snapshot, row.result_hash, forgotten.time, forgotten.reason
                    ) from None
            raise

    def _rebuild(self, row: ChangeRow) -> bytes:
        check_recorded(row.path)
        if row.result_hash is None or row.storage == Storage.NONE:
            raise NotInSnapshotError(row.path, row.snapshot)
        cached = self.cache.get(row.result_hash)
        if cached is not None:
            return cached
        if row.storage == Storage.HASH_ONLY:
            raise ContentUnavailableError(row.path, row.snapshot, row.result_hash)
        chain = self._delta_chain(row)
        start = chain.pop()
        cached_start = self.cache.get(start.result_hash)
        # An empty file's cached content is b"", which is falsy: test for None explicitly.
        data = cached_start if cached_start is not None else self._full(start)
        if chain:
            text = decode_text(data)
            if text is None:
                raise self._corrupt(start, "a delta is based on content that is not text")
            for step in reversed(chain):
                try:
                    text = apply_delta(text, _delta_text(step.forward, len(text), step.size))
                except (ValueError, UnknownCodecError, zlib.error) as error:
                    raise self._corrupt(step, f"its delta does not apply ({error})") from None
            data = text.encode("utf-8")
        actual = hash_bytes(data)
        if actual != row.result_hash:
            raise self._corrupt(row, f"rebuilt content hashes to {actual}, not {row.result_hash}")
        self.cache.put(row.result_hash, data)
        return data

    def _delta_chain(self, row: ChangeRow) -> list[ChangeRow]:
        """Rows from ``row`` back to one whose content is stored in full or cached."""
        chain = [row]
        current = row
        batch: list[ChangeRow] = []
        while (
            current.storage == Storage.DELTA
            and self.cache.get(current.result_hash) is None
            # A version kept whole (``snapline forget`` stores the version after a
            # forgotten one so) ends the chain: the delta before it may be gone.
            and not (current.result_hash and self.store.blobs.has(current.result_hash))
        ):
            if current.kind == ChangeKind.RENAMED or not batch:
                base_path = current.old_path or current.path
                batch = self.store.changes.path_history(
                    base_path, last=current.snapshot - 1, count=current.chain + 1
                )
                if current.kind == ChangeKind.RENAMED:
                    batch = [r for r in batch if r.path == base_path]
            previous = batch.pop(0) if batch else None
            if previous is None or previous.result_hash != current.base_hash:
                raise self._corrupt(current, "the version its delta is based on is missing")
            chain.append(previous)
            current = previous
        if current.storage not in (Storage.DELTA, Storage.FULL):
            raise self._corrupt(current, f"a delta chain reaches a {current.storage} version")
        return chain

    def _full(self, row: ChangeRow) -> bytes:
        stored = row.content if row.storage == Storage.FULL else row.result_hash
        if stored is None:
            raise self._corrupt(row, "no stored content is referenced")
        try:
            packed = self.store.blobs.get(stored)
        except StoreCorruptError as error:
            # Kept in git's objects (the refs store), whose blob is damaged: named here
            # by the file and snapshot that hold it, as a damaged copy in the index is.
            raise self._corrupt(row, error.detail) from None
        if packed is None and row.snapshot == 0 and self.store.baseline_in_workspace():
            # Not copied into an index rebuilt from the ledger: where it still is.
            elsewhere = None
            if row.size is not None:
                elsewhere = self.store.baseline_content(row.path, stored, row.size)
            if elsewhere is None:
                raise ContentElsewhereError(row.path, row.snapshot, stored)
            return elsewhere
        if packed is None:
            raise self._corrupt(row, f"stored content {stored} is missing")
        if row.size is None:
            raise self._corrupt(row, "its size is not recorded")
        try:
            return unpack(packed, limit=row.size)
        except (UnknownCodecError, PackedSizeError, zlib.error) as error:
            raise self._corrupt(row, f"stored content {stored} is damaged ({error})") from None

    def _corrupt(self, row: ChangeRow, detail: str) -> StoreCorruptError:
        return StoreCorruptError(
            self.store.path, f"{row.path} in snapshot {row.snapshot}: {detail}"
        )


def _delta_text(packed: bytes | None, base_chars: int, size: int | None) -> str:
    if packed is None:
        raise ValueError("the delta is missing")
    # A delta writes each inserted byte as at most three characters, and each of its
    # operations as a short token: bounded by the sizes of the two versions it joins
    # (a character is at most four bytes).
    bound = 16 * (4 * base_chars + (size or 0)) + 4096
    return unpack(packed, limit=min(bound, MAX_DELTA_BYTES)).decode("utf-8")
