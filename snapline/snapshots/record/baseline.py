"""Snapshot 0: the whole workspace captured at ``init``, deduplicated and compressed."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

from snapline.content import FAST, pack
from snapline.scanning import FileChangingError, IgnoreRules, Skipped, read_disk_file, scan
from snapline.scanning.reasons import SkipReason
from snapline.snapshots.check.chain import GENESIS, ChainLines
from snapline.snapshots.info import SnapshotInfo
from snapline.snapshots.kinds import ChangeKind, Storage
from snapline.snapshots.record.build import Limits
from snapline.snapshots.record.commit import header_row, skipped_json
from snapline.store import ChangeRow, StateRow, StatRow, Store

__all__ = ["capture_baseline"]

_BATCH = 256
_BATCH_BYTES = 16 << 20


def capture_baseline(
    root: Path,
    store: Store,
    limits: Limits,
    description: str,
    progress: Callable[[int, int], None] | None = None,
) -> None:
    """Record every non-ignored file under ``root`` as snapshot 0, in one transaction.

    Memory stays bounded however large the tree: each file's content, change row, known
    state and stat-cache row are written to the store in batches as it is read, and the
    change lines the chain hash covers wait in a temporary file (the header line, hashed
    first, names the files left out, known only at the end). Ignored entries, unreadable
    files and files above the large-file limit are listed in the snapshot's ``skipped``.
    """
    # Only the names are kept: each file is looked at again just before it is read.
    found = scan(root, IgnoreRules(root), keep_stats=False)
    skipped = [Skipped(p, SkipReason.IGNORED.value) for p in sorted(found.ignored)]
    skipped += found.skipped
    paths = sorted(found.names)
    del found
    now = time.time_ns()
    base = os.fspath(root)
    row = header_row(0, None, SnapshotInfo(tool="init", description=description), ())
    with store.write(), ChainLines() as lines:
        if store.snapshots.latest_number() is not None:
            raise ValueError("a baseline goes into an empty store")
        store.snapshots.insert(row, ())
        batch = _Batch(store)
        for done, rel in enumerate(paths, start=1):
            location = os.path.join(base, rel)
            try:
                info = os.lstat(location)
                disk = read_disk_file(
                    location, rel, info, large_limit=limits.large_file_limit, want_content=True
                )
            except PermissionError:
                skipped.append(Skipped(rel, SkipReason.UNREADABLE.value))
                continue
            except (FileNotFoundError, NotADirectoryError):
                continue  # gone since the walk
            except FileChangingError:
                # The same policy as every later recording (detect.py): a file that
                # never holds still is left out and named, rather than failing init.
                skipped.append(Skipped(rel, SkipReason.CHANGING.value))
                continue
            if disk.content is None:
                storage, content = Storage.HASH_ONLY.value, None
                skipped.append(Skipped(rel, SkipReason.HASH_ONLY.value))
            else:
                packed = pack(disk.content, FAST)
                batch.blobs.append((disk.hash, disk.size, packed))
                batch.blob_bytes += len(packed)
                storage, content = Storage.FULL.value, disk.hash
            change = ChangeRow(
                snapshot=0, path=rel, kind=ChangeKind.ADDED.value, old_path=None, base_hash=None,
                result_hash=disk.hash, base_mode=None, result_mode=disk.mode,
                size=disk.size, storage=storage, forward=None, reverse=None,
                content=content, chain=0, chain_bytes=0,
            )  # fmt: skip
            lines.add(change)
            batch.changes.append(change)
            batch.state.append(StateRow(rel, disk.hash, disk.mode, disk.size, 0))
            st = disk.stat
            batch.stats.append(
                StatRow(rel, st.st_size, st.st_mtime_ns, st.st_ino, st.st_ctime_ns,
                        disk.mode, disk.hash, now)
            )  # fmt: skip
            batch.flush_when_full()
            if progress is not None:
                progress(done, len(paths))
        batch.flush()
        row = row._replace(skipped=skipped_json(skipped))
        store.snapshots.seal(0, row.skipped, lines.chain_hash(GENESIS, row))


class _Batch:
    """Rows on their way into the store, written a few hundred at a time."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.blobs: list[tuple[str, int, bytes]] = []
        self.changes: list[ChangeRow] = []
        self.state: list[StateRow] = []
        self.stats: list[StatRow] = []
        self.blob_bytes = 0

    def flush_when_full(self) -> None:
        if len(self.changes) >= _BATCH or self.blob_bytes >= _BATCH_BYTES:
            self.flush()

    def flush(self) -> None:
        self.store.blobs.put_many(self.blobs)
        self.store.changes.insert(self.changes)
        self.store.state.set(self.state, ())
        self.store.stat_cache.put(self.stats)
        self.blobs.clear()
        self.changes.clear()
        self.state.clear()
        self.stats.clear()
        self.blob_bytes = 0
