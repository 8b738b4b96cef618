"""Store rows to public models."""

from __future__ import annotations

import json

from snapline.content import unpack
from snapline.paths import check_recorded
from snapline.snapshots.snapshot import ChangeKind, FileChange, SkippedPath, Snapshot, Storage
from snapline.store import ChangeRow, SnapshotRow

__all__ = ["to_file_change", "to_snapshot"]


def to_snapshot(row: SnapshotRow, changes: list[ChangeRow]) -> Snapshot:
    """The public :class:`Snapshot` for a header row and its change rows."""
    return Snapshot(
        number=row.number,
        id=row.id,
        parent_id=row.parent_id,
        time=row.time,  # type: ignore[arg-type]  # pydantic parses the ISO string
        tool=row.tool,
        description=row.description,
        session=row.session,
        metadata=json.loads(row.metadata),
        version=row.version,
        chain_hash=row.chain_hash,
        files=tuple(to_file_change(c) for c in changes),
        skipped=tuple(SkippedPath(path=p, reason=r) for p, r in json.loads(row.skipped)),
    )


def to_file_change(c: ChangeRow) -> FileChange:
    """The public :class:`FileChange` for a change row (deltas decoded when loaded).

    Raises:
        UnsafeRecordError: If the row records an unsafe path (a crafted or damaged store).
    """
    check_recorded(c.path)
    if c.old_path is not None:
        check_recorded(c.old_path)
    return FileChange(
        path=c.path,
        kind=ChangeKind(c.kind),
        old_path=c.old_path,
        base_hash=c.base_hash,
        result_hash=c.result_hash,
        base_mode=c.base_mode,
        result_mode=c.result_mode,
        size=c.size,
        storage=Storage(c.storage),
        forward=None if c.forward is None else unpack(c.forward).decode("utf-8"),
        reverse=None if c.reverse is None else unpack(c.reverse).decode("utf-8"),
        content_ref=c.content,
    )
