"""The fixed cases of a recorded change: what happened to a file and how it is stored.

Kept apart from the models (``snapshot.py``, which re-exports them) so that recording
and reading rows need no pydantic: a ``snapline record`` process never builds a model.
"""

from __future__ import annotations

from enum import Enum

__all__ = ["JOINED_MILESTONES", "SNAPSHOT_VERSION", "ChangeKind", "Storage"]

JOINED_MILESTONES = "joined_milestones"
"""The metadata key under which a merge snapshot names the milestone files it joined."""

SNAPSHOT_VERSION = 2


class ChangeKind(str, Enum):
    """What happened to a file in a snapshot."""

    ADDED = "added"
    MODIFIED = "modified"
    DELETED = "deleted"
    RENAMED = "renamed"


class Storage(str, Enum):
    """How a file version is kept in the store."""

    DELTA = "delta"  # forward/reverse deltas against the previous version
    FULL = "full"  # the whole content, compressed, under its hash
    NONE = "none"  # nothing: the file was deleted
    HASH_ONLY = "hash-only"  # above the large-file limit: hash recorded, content not kept
