"""Snapshot 0: the whole workspace captured at ``init``, deduplicated and compressed."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

from snapline.content import FAST, pack
from snapline.scanning import FileChangingError, IgnoreRules, read_disk_file, scan
from snapline.snapshots.build import Limits, Prepared
from snapline.snapshots.commit import Header, append_snapshot
from snapline.snapshots.model import SkippedPath
from snapline.store import ChangeRow, StatRow, Store

__all__ = ["capture_baseline"]

_LARGE = "above the large-file limit: tracked by hash only"
_BATCH = 256


def capture_baseline(
    root: Path,
    store: Store,
    limits: Limits,
    description: str,
    progress: Callable[[int, int], None] | None = None,
) -> None:
    """Record every non-ignored file under ``root`` as snapshot 0, in one transaction.

    Content is written to the store file by file (identical files share one blob), so
    memory stays bounded however large the tree. Ignored entries, unreadable files and
    files above the large-file limit are listed in the snapshot's ``skipped``.
    """
    found = scan(root, IgnoreRules(root))
    skipped = [SkippedPath(path=p, reason="ignored") for p in sorted(found.ignored)]
    skipped += [SkippedPath(path=s.path, reason=s.reason) for s in found.skipped]
    prepared = Prepared()
    cache_rows = []
    total = len(found.files)
    now = time.time_ns()
    batch: list[tuple[str, int, bytes]] = []
    base = os.fspath(root)
    with store.write():
        for done, (rel, info) in enumerate(sorted(found.files.items()), start=1):
            try:
                disk = read_disk_file(
                    os.path.join(base, rel), rel, info,
                    large_limit=limits.large_file_limit, want_content=True,
                )  # fmt: skip
            except PermissionError:
                skipped.append(SkippedPath(path=rel, reason="unreadable (permission denied)"))
                continue
            except FileNotFoundError:
                continue
            except FileChangingError:
                # The same policy as every later recording (detect.py): a file that
                # never holds still is left out and named, rather than failing init.
                skipped.append(SkippedPath(path=rel, reason="kept changing while being read"))
                continue
            if disk.content is None:
                storage, content = "hash-only", None
                skipped.append(SkippedPath(path=rel, reason=_LARGE))
            else:
                # Written in batches as we go, not collected: memory stays bounded on
                # large trees, and one statement per batch instead of per file.
                batch.append((disk.hash, disk.size, pack(disk.content, FAST)))
                if len(batch) >= _BATCH:
                    store.put_blobs(batch)
                    batch.clear()
                storage, content = "full", disk.hash
            prepared.changes.append(
                ChangeRow(
                    snapshot=0, path=rel, kind="added", old_path=None, base_hash=None,
                    result_hash=disk.hash, base_mode=None, result_mode=disk.mode,
                    size=disk.size, storage=storage, forward=None, reverse=None,
                    content=content, chain=0, chain_bytes=0,
                )
            )  # fmt: skip
            st = disk.stat
            cache_rows.append(
                StatRow(rel, st.st_size, st.st_mtime_ns, st.st_ino, st.st_ctime_ns,
                        disk.mode, disk.hash, now)
            )  # fmt: skip
            if progress is not None:
                progress(done, total)
        store.put_blobs(batch)
        append_snapshot(store, Header(tool="init", description=description), prepared, skipped)
        store.put_stat_cache(cache_rows)
