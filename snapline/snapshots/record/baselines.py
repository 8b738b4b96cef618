"""Baseline versions kept before a snapshot replaces them, where the index holds no copy.

An index rebuilt from the ledger (a fresh clone, a deleted index) copies none of the
baseline versions the workspace holds (:mod:`snapline.store.ledger.baseline`). A
snapshot that changes, renames or deletes such a file keeps that version among its
blobs before any write replaces it: publishing the snapshot copies it into the ledger
as an object, and nothing could rebuild it afterwards.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from snapline.snapshots.read.reconstruct import ContentUnavailableError, Reconstructor
from snapline.snapshots.record.build import Prepared

if TYPE_CHECKING:
    from snapline.store import StoreReader

__all__ = ["keep_baselines"]


def keep_baselines(
    prepared: Prepared, latest: int, store: StoreReader, reconstructor: Reconstructor
) -> Prepared:
    """Add to ``prepared`` the baseline versions it changes that the store lacks.

    Args:
        prepared: The snapshot's change rows and blobs, before they are applied.
        latest: The snapshot they follow.
        store: The open store.
        reconstructor: Rebuilds (here: finds) those versions, hash-checked.

    Returns:
        ``prepared``, with those versions among its blobs.
    """
    if not store.baseline_in_workspace():
        return prepared
    for change in prepared.changes:
        if change.base_hash is None or change.base_hash in prepared.blobs:
            continue
        row = reconstructor.version(change.old_path or change.path, latest)
        if row is None or row.snapshot != 0 or row.content != change.base_hash:
            continue
        if store.blobs.has(change.base_hash):
            continue
        try:
            prepared.add_blob(change.base_hash, reconstructor.rebuild(row))
        except ContentUnavailableError:
            continue  # changed outside snapline, and not in git's HEAD either
    return prepared
