"""What one recording committed, kept as its rows until someone asks for the model.

``snapline record`` and the Claude Code hook run on every edit an agent makes: they
answer from the rows (the number, the paths and their kinds) and never import pydantic,
about a fifth of such a process. Library calls get the public
:class:`~snapline.Snapshot` from :meth:`Recorded.snapshot`.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from snapline.scanning import Skipped
from snapline.store import ChangeRow, SnapshotRow

if TYPE_CHECKING:
    from snapline.snapshots.snapshot import Snapshot

__all__ = ["Recorded", "snapshot_of"]


class Recorded(NamedTuple):
    """The rows one recording committed (``row`` ``None``: nothing changed), and its notes.

    Attributes:
        row: The new snapshot's header row, or ``None`` when nothing changed.
        changes: Its change rows (empty when nothing changed).
        skipped: What the recording did not capture, and why.
        store_path: The store the rows were committed to, to name in an error.
    """

    row: SnapshotRow | None
    changes: list[ChangeRow]
    skipped: tuple[Skipped, ...]
    store_path: Path

    @property
    def number(self) -> int | None:
        """The new snapshot's number, or ``None`` when nothing changed."""
        return None if self.row is None else self.row.number

    def snapshot(self) -> Snapshot | None:
        """The public model of the snapshot recorded (``None``: nothing changed)."""
        return None if self.row is None else snapshot_of(self.row, self.changes, self.store_path)


def snapshot_of(row: SnapshotRow, changes: list[ChangeRow], store_path: Path) -> Snapshot:
    """The public model of a snapshot this process just committed.

    Args:
        row: Its header row.
        changes: Its change rows.
        store_path: The store, to name in an error.

    Returns:
        The snapshot, built without validating again what snapline just made.
    """
    from snapline.snapshots.read.convert import to_snapshot  # pydantic: only when asked

    return to_snapshot(row, changes, store_path, fresh=True)
