"""Filling the local index from parsed ledger records: snapshots, state and content.

A rebuild (or a catch-up from an empty index) imports a thousand snapshots and every
file of the baseline at once, so the content is gathered in bulk: which blobs the index
already holds is asked in a few queries, the ledger's objects are listed once instead
of probed for each hash (most hashes, the baseline's, have no object), and the
baseline's files are hashed on a few threads (file reads and SHA-256 release the GIL).
Imported objects are kept uncompressed (codec ``r``): the index is local and disposable.

The baseline's content itself is not copied: the workspace holds it (and, in a git
work tree, the commit checked out), and it is read from there when needed
(:mod:`snapline.store.ledger.baseline`); a snapshot that changes such a file keeps the
version first (``Recorder.prepare``). Each file is read once, for its hash, which goes
into the stat cache so that the workspace check after a rebuild need not read it again.
"""

from __future__ import annotations

import os
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

from snapline.content import pack_raw
from snapline.scanning import DiskFile, FileChangingError, read_disk_file
from snapline.scanning.fingerprint import RACY_WINDOW_NS
from snapline.store.errors import StoreCorruptError
from snapline.store.ledger.files import LedgerFileError
from snapline.store.ledger.format import SnapshotRecord
from snapline.store.ledger.listed import filesystem_clock
from snapline.store.ledger.store import LedgerStore
from snapline.store.rows import ChangeRow, StatRow, state_moves

__all__ = ["MAX_OBJECT_BYTES", "import_content", "import_objects", "import_snapshots"]

MAX_OBJECT_BYTES = 1 << 30

_READERS = 4
"""Threads reading the baseline's files: enough to overlap reads with hashing on a
couple of cores without crowding the machine."""

_CHUNK = 128
"""Files per task handed to a reader thread (one task per file costs more than it reads)."""

_FLUSH = 256
"""Blobs gathered before they are written to the index."""

_LISTING = 256
"""Above this many hashes without a blob, the ledger's objects are listed once rather
than each opened in turn."""

Progress = Callable[[int, int], None]


def import_snapshots(
    store: LedgerStore,
    root: Path,
    records: Sequence[SnapshotRecord],
    progress: Progress | None = None,
) -> None:
    """Insert main-line snapshots in order, with their known state and content.

    Args:
        store: The open store, inside its index's write transaction.
        root: The workspace root (the baseline's content is read from it).
        records: Snapshots continuing the index's main line, in number order.
        progress: Called as ``progress(done, total)`` after each snapshot.

    Raises:
        StoreCorruptError: If a ledger object cannot be read.
    """
    index = store.index
    # The baseline's content first: it is most of the work, and the progress bar
    # should not sit at its end while it is done.
    baseline = [r for r in records if r.row.number == 0]
    import_content(store, root, baseline)
    for done, record in enumerate(records, start=1):
        index.snapshots.insert(record.row, record.changes)
        upserts, deletes = state_moves(record.row.number, record.changes)
        index.state.set(upserts, deletes)
        if progress is not None:
            progress(done, len(records))
    import_content(store, root, [r for r in records if r.row.number != 0])


def import_content(store: LedgerStore, root: Path, records: Iterable[SnapshotRecord]) -> None:
    """Take into the index the content that the records' changes name and it lacks.

    Versions come from the ledger's objects. A baseline version without one stays in
    the workspace file: when that still hashes to it, its ``lstat`` goes into the stat
    cache. A version found in neither (changed since, or forgotten) is left out: it is
    rebuilt from deltas where it can be.

    Args:
        store: The open store, inside its index's write transaction.
        root: The workspace root.
        records: Snapshots whose content to import (any line).

    Raises:
        StoreCorruptError: If a ledger object cannot be read.
    """
    records = list(records)
    have = import_objects(
        store,
        (
            hash_
            for record in records
            for change in record.changes
            for hash_ in (change.content, change.base_hash)
            if hash_ is not None
        ),
    )
    for record in records:
        if record.row.number == 0:
            _import_baseline(store, root, [c for c in record.changes if c.content not in have])


def import_objects(store: LedgerStore, hashes: Iterable[str]) -> set[str]:
    """Take into the index the ledger objects of ``hashes`` that it lacks.

    Args:
        store: The open store, inside its index's write transaction.
        hashes: Content hashes; those with neither a blob nor an object are skipped.

    Returns:
        Those of ``hashes`` the index holds afterwards.

    Raises:
        StoreCorruptError: If a ledger object cannot be read.
    """
    wanted = dict.fromkeys(hashes)
    have = store.index.blobs.present(wanted)
    missing = [h for h in wanted if h not in have]
    objects = set(store.ledger.object_hashes()) if len(missing) > _LISTING else None
    blobs: list[tuple[str, int, bytes]] = []
    for hash_ in missing:
        if objects is not None and hash_ not in objects:
            continue
        content = _read_object(store, hash_)
        if content is None:
            continue
        # Checked by hash whenever used, and by `snapline verify`.
        blobs.append((hash_, len(content), pack_raw(content)))
        have.add(hash_)
        if len(blobs) >= _FLUSH:
            store.index.blobs.put_many(blobs)
            blobs.clear()
    store.index.blobs.put_many(blobs)
    return have


def _read_object(store: LedgerStore, hash_: str) -> bytes | None:
    try:
        return store.ledger.read_object(hash_, MAX_OBJECT_BYTES)
    except FileNotFoundError:
        return None  # a baseline version (in the workspace) or a forgotten one
    except LedgerFileError as error:
        raise StoreCorruptError(error.path, error.what) from None
    except OSError as error:
        raise StoreCorruptError(store.ledger.object_path(hash_), str(error)) from None


def _import_baseline(store: LedgerStore, root: Path, changes: Sequence[ChangeRow]) -> None:
    """Hash the workspace files still at their baseline version, into the stat cache.

    Their content is not copied (the workspace holds it); each file's hash and
    ``lstat`` go into the stat cache, so the workspace check that follows (a fresh
    clone's first ``verify``) need not read it again. Files a checkout wrote a
    moment ago are inside the cache's racy window by the system clock (2 s: the
    coarsest timestamp granularity), and would all be read twice; so the filesystem's
    own clock is read first (the lock file's ctime, set to now: ``listed.py``), and a
    file on that filesystem whose mtime and ctime are strictly older than it is safe
    at once: any later change to it gets a time at or after that reading. Its entry's
    ``checked_ns`` is that reading plus the window, which is what the cache's rule
    (``max(mtime, ctime) < checked_ns - window``) then compares.
    """
    now = time.time_ns()
    clock = filesystem_clock(store.ledger)
    limit = int(store.index.config().get("large_file_limit", 64 << 20))
    stats: list[StatRow] = []
    for change, disk in _read_all(root, [c for c in changes if c.content is not None], limit):
        st = disk.stat
        checked = now
        if clock is not None and st.st_dev == clock[1]:
            checked = max(now, clock[0] + RACY_WINDOW_NS)
        stats.append(
            StatRow(change.path, st.st_size, st.st_mtime_ns, st.st_ino, st.st_ctime_ns,
                    disk.mode, disk.hash, checked)
        )  # fmt: skip
        if len(stats) >= _FLUSH:
            store.index.stat_cache.put(stats)
            stats.clear()
    store.index.stat_cache.put(stats)


def _read_all(
    root: Path, changes: Sequence[ChangeRow], limit: int
) -> Iterator[tuple[ChangeRow, DiskFile]]:
    """The workspace files still at the changes' versions, read on a few threads, in order.

    At most a few chunks are in flight, so memory stays bounded by them however large
    the baseline.
    """
    chunks = [changes[i : i + _CHUNK] for i in range(0, len(changes), _CHUNK)]
    if len(chunks) <= 1:
        yield from _read_chunk(root, changes, limit)
        return
    with ThreadPoolExecutor(max_workers=_READERS, thread_name_prefix="snapline-read") as pool:
        pending: deque[Future[list[tuple[ChangeRow, DiskFile]]]] = deque()
        queue = iter(chunks)
        for chunk in queue:
            pending.append(pool.submit(_read_chunk, root, chunk, limit))
            if len(pending) >= 2 * _READERS:
                break
        while pending:
            yield from pending.popleft().result()
            chunk_ = next(queue, None)
            if chunk_ is not None:
                pending.append(pool.submit(_read_chunk, root, chunk_, limit))


def _read_chunk(
    root: Path, changes: Sequence[ChangeRow], limit: int
) -> list[tuple[ChangeRow, DiskFile]]:
    found = []
    for change in changes:
        location = os.path.join(root, change.path)
        try:
            info = os.lstat(location)
            disk = read_disk_file(
                location, change.path, info, large_limit=limit, want_content=False
            )
        except (OSError, FileChangingError):
            continue  # changed or gone: that version is rebuilt only where it was kept
        if disk.hash == change.content and not disk.large:
            found.append((change, disk))
    return found
