"""Store rows to public models."""

from __future__ import annotations

import json
import zlib
from pathlib import Path

from pydantic import ValidationError

from snapline.content import MAX_DELTA_BYTES, tombstone_digest, unpack
from snapline.paths import check_recorded
from snapline.snapshots.snapshot import ChangeKind, FileChange, SkippedPath, Snapshot, Storage
from snapline.store import ChangeRow, SnapshotRow, StoreCorruptError, shape_problem

__all__ = ["to_snapshot"]


def to_snapshot(
    row: SnapshotRow,
    changes: list[ChangeRow],
    store_path: Path | str,
    base_sizes: dict[str, int] | None = None,
) -> Snapshot:
    """The public :class:`Snapshot` for a header row and its change rows.

    Args:
        row: The snapshot's row.
        changes: Its change rows.
        store_path: Where the rows came from, to name in an error.
        base_sizes: For rows read back with their deltas, the size of each path's
            version before the snapshot: a delta is unpacked only up to what the two
            versions it joins allow. ``None``: deltas this process just made.

    Returns:
        The snapshot.

    Raises:
        StoreCorruptError: If a row holds values no snapline writes (a damaged or
            hand-edited store): a wrong type, unreadable JSON, an unknown kind.
        UnsafeRecordError: If a row records an unsafe path.
    """
    for record in (row, *changes):
        problem = shape_problem(record)
        if problem is not None:
            raise StoreCorruptError(store_path, f"snapshot {row.number}: {problem}")
    try:
        return _snapshot(row, changes, base_sizes)
    except (ValueError, TypeError, zlib.error) as error:
        raise StoreCorruptError(
            store_path, f"snapshot {row.number} cannot be read: {_describe(error)}"
        ) from None


def _describe(error: Exception) -> str:
    if isinstance(error, ValidationError):
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        return f"{where}: {first['msg']}"
    return str(error).splitlines()[0] if str(error) else type(error).__name__


def _snapshot(
    row: SnapshotRow, changes: list[ChangeRow], base_sizes: dict[str, int] | None
) -> Snapshot:
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
        files=tuple(_file_change(c, _bound(c, base_sizes)) for c in changes),
        skipped=tuple(SkippedPath(path=p, reason=r) for p, r in json.loads(row.skipped)),
        merges=tuple(json.loads(row.merges)),
    )


def _bound(change: ChangeRow, base_sizes: dict[str, int] | None) -> int:
    if base_sizes is None:
        return MAX_DELTA_BYTES
    # A delta writes each byte it inserts as at most three characters, and each
    # operation as a short token: bounded by the sizes of the versions it joins.
    base = base_sizes.get(change.old_path or change.path, 0)
    return min(16 * (base + (change.size or 0)) + 4096, MAX_DELTA_BYTES)


def _file_change(c: ChangeRow, bound: int) -> FileChange:
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
        forward=None if c.forward is None else _delta(c.forward, bound),
        reverse=None if c.reverse is None else _delta(c.reverse, bound),
        content_ref=c.content,
    )


def _delta(packed: bytes, bound: int) -> str | None:
    if tombstone_digest(packed) is not None:
        return None  # forgotten (`snapline forget`): the text is gone, its digest stays
    return unpack(packed, limit=bound).decode("utf-8")
