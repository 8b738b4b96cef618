"""Following a file through later changes: where the file a snapshot left at a path is now."""

from __future__ import annotations

from typing import TYPE_CHECKING

from snapline.snapshots.kinds import ChangeKind
from snapline.store import ChangeRow, StoreReader

if TYPE_CHECKING:
    from snapline.snapshots.read.line_view import LineView

__all__ = ["located", "main_line_since"]


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


def main_line_since(store: StoreReader, line: LineView, latest: int) -> list[ChangeRow]:
    """The main line's changes since ``line`` left it, as the line's files go through them.

    The merge that joined the line restates the line's own changes (a file the line
    added shows there as added): the line's files go on through it, so its changes are
    left out. Changes the main line made before and after it are kept, so a file renamed
    on either side of the merge is followed; one the merge's resolution removed is not
    where the line left it, and revert refuses it as deleted.
    """
    joined = next((s.merged_into for s in store.side_snapshots() if s.id == line.head.id), None)
    return [c for c in store.changes.in_range(line.fork + 1, latest) if c.snapshot != joined]
