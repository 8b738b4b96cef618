"""Removing stored content that no snapshot refers to any more."""

from __future__ import annotations

from dataclasses import dataclass

from snapline.store import Store

__all__ = ["GcResult", "collect_garbage"]


@dataclass(frozen=True)
class GcResult:
    """What ``gc`` removed."""

    blobs_removed: int
    bytes_freed: int


def collect_garbage(store: Store) -> GcResult:
    """Delete unreferenced content and compact the store. Hold the writer lock.

    Args:
        store: The open store.

    Returns:
        How many blobs were removed and the bytes they took.
    """
    with store.write():
        unused = set(store.blobs.hashes()) - store.blobs.referenced()
        freed = store.blobs.delete(sorted(unused))
    store.vacuum()
    return GcResult(blobs_removed=len(unused), bytes_freed=freed)
