"""The milestone files that merge snapshots name as joined (in their metadata)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterable

    from snapline.store.rows import SnapshotRow

__all__ = ["joined_by_merges"]

# snapline.snapshots.kinds.JOINED_MILESTONES; the store layer may not import it.
_JOINED_MILESTONES = "joined_milestones"


def joined_by_merges(snapshots: Iterable[SnapshotRow]) -> dict[str, int]:
    """The milestone files the merge snapshots of a line name as joined.

    Args:
        snapshots: The line's snapshots (``SnapshotReader.select()``).

    Returns:
        Each name, with the first snapshot that names it.
    """
    # Few snapshots are merges: the key is looked for in the text before any is parsed.
    joined: dict[str, int] = {}
    for row in snapshots:
        if _JOINED_MILESTONES not in row.metadata:
            continue
        try:
            names = json.loads(row.metadata).get(_JOINED_MILESTONES, [])
        except (ValueError, AttributeError):
            continue
        if isinstance(names, list):
            for name in names:
                if isinstance(name, str):
                    joined.setdefault(name, row.number)
    return joined
