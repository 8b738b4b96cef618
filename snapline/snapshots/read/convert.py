"""Store rows to public models."""

from __future__ import annotations

import json
import zlib
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from pydantic_core import TzInfo

from snapline.content import MAX_DELTA_BYTES, tombstone_digest, unpack
from snapline.paths import check_recorded
from snapline.snapshots.kinds import ChangeKind, Storage
from snapline.snapshots.snapshot import FileChange, SkippedPath, Snapshot
from snapline.store import ChangeRow, SnapshotRow, StoreCorruptError, shape_problem

__all__ = ["to_snapshot"]


def to_snapshot(
    row: SnapshotRow,
    changes: list[ChangeRow],
    store_path: Path | str,
    base_sizes: dict[str, int] | None = None,
    *,
    fresh: bool = False,
) -> Snapshot:
    """The public :class:`Snapshot` for a header row and its change rows.

    Args:
        row: The snapshot's row.
        changes: Its change rows.
        store_path: Where the rows came from, to name in an error.
        base_sizes: For rows read back with their deltas, the size of each path's
            version before the snapshot: a delta is unpacked only up to what the two
            versions it joins allow. ``None``: deltas this process just made.
        fresh: The rows were made by this process (a snapshot just recorded): their
            values were checked on the way in and have their types by construction,
            so the models are built without validating them again
            (``model_construct``, the same models), which spares building validators
            a one-command process would use only here.

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
        return _snapshot(row, changes, base_sizes, fresh)
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
    row: SnapshotRow, changes: list[ChangeRow], base_sizes: dict[str, int] | None, fresh: bool
) -> Snapshot:
    time = _utc_time(row.time) if fresh else None
    trusted = time is not None
    fields: dict[str, Any] = {
        "number": row.number,
        "id": row.id,
        "parent_id": row.parent_id,
        # pydantic parses the ISO string when it validates
        "time": row.time if time is None else time,
        "tool": row.tool,
        "description": row.description,
        "session": row.session,
        "metadata": json.loads(row.metadata),
        "version": row.version,
        "chain_hash": row.chain_hash,
        "files": tuple(_file_change(c, _bound(c, base_sizes), trusted) for c in changes),
        "skipped": tuple(
            SkippedPath.model_construct(path=p, reason=r)
            if trusted
            else SkippedPath(path=p, reason=r)
            for p, r in json.loads(row.skipped)
        ),
        "merges": tuple(json.loads(row.merges)),
    }
    return Snapshot.model_construct(**fields) if trusted else Snapshot(**fields)


_UTC = TzInfo(0)


def _utc_time(text: str) -> datetime | None:
    """``text`` (a UTC time as snapline writes it) as pydantic would parse it, else ``None``.

    pydantic gives a UTC time its own ``TzInfo(0)``; a model built without it would
    compare equal but print differently.
    """
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return None
    if moment.utcoffset() != timedelta(0):
        return None
    return moment.replace(tzinfo=_UTC)


def _bound(change: ChangeRow, base_sizes: dict[str, int] | None) -> int:
    if base_sizes is None:
        return MAX_DELTA_BYTES
    # A delta writes each byte it inserts as at most three characters, and each
    # operation as a short token: bounded by the sizes of the versions it joins.
    base = base_sizes.get(change.old_path or change.path, 0)
    return min(16 * (base + (change.size or 0)) + 4096, MAX_DELTA_BYTES)


def _file_change(c: ChangeRow, bound: int, trusted: bool) -> FileChange:
    """The public :class:`FileChange` for a change row (deltas decoded when loaded).

    Raises:
        UnsafeRecordError: If the row records an unsafe path (a crafted or damaged store).
    """
    check_recorded(c.path)
    if c.old_path is not None:
        check_recorded(c.old_path)
    build = FileChange.model_construct if trusted else FileChange
    return build(
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
