"""Which writes move the file they replace aside (park it) rather than overwrite it.

The journal undoes a write by rebuilding the file's known content from the store. A file
tracked by hash only has none there, so replacing or deleting it without a way back
would lose it if the write failed or the process died: such a file is moved aside
(parked) instead, and moved back on undo.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING

from snapline.snapshots.kinds import Storage
from snapline.snapshots.read.reconstruct import ContentUnavailableError, Reconstructor
from snapline.store import ChangeRow

if TYPE_CHECKING:
    from snapline.snapshots.record.journal import PlannedWrite

__all__ = ["parking"]


def parking(
    write: PlannedWrite,
    reconstructor: Reconstructor,
    version: Callable[[str], ChangeRow | None],
) -> PlannedWrite:
    """``write``, with a park token when the file it replaces cannot be rebuilt.

    Args:
        write: One planned write.
        reconstructor: Rebuilds the replaced version (cached for the undo).
        version: The change row of a path's known version, ``None`` when untracked.

    Returns:
        ``write`` itself, or a copy that parks the file it replaces.
    """
    if write.before_hash is None or write.park is not None:
        return write
    row = version(write.path)
    if row is None:
        return write
    if row.storage != Storage.HASH_ONLY.value:
        try:
            reconstructor.rebuild(row)  # cached for the undo, if it comes to that
            return write
        except ContentUnavailableError:
            pass
    from dataclasses import replace  # a journal's write: not on a plain record's path

    return replace(write, park=os.urandom(8).hex())
