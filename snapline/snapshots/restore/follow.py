"""Following a file through later changes: where the file a snapshot left at a path is now."""

from __future__ import annotations

from snapline.snapshots.kinds import ChangeKind
from snapline.store import ChangeRow

__all__ = ["located"]


def located(path: str, later: list[ChangeRow]) -> str | None:
    """Where the file ``path`` held after the snapshot is now, following renames.

    ``None`` when it was deleted or replaced by another file since.
    """
    current = path
    for change in later:
        if change.kind == ChangeKind.RENAMED and change.old_path == current:
            current = change.path
        elif change.path == current and change.kind in (
            ChangeKind.DELETED,
            ChangeKind.RENAMED,
            ChangeKind.ADDED,
        ):
            return None
    return current
