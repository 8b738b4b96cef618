"""Appending a snapshot: number, link, chain hash, content and known state in one transaction."""

from __future__ import annotations

import dataclasses
import json
import uuid
from collections.abc import Sequence
from datetime import datetime, timezone
from typing import Any

from snapline.errors import SnaplineError
from snapline.snapshots.build import Prepared
from snapline.snapshots.chain import GENESIS, chain_hash
from snapline.snapshots.model import SNAPSHOT_VERSION, SkippedPath
from snapline.store import ChangeRow, SnapshotRow, StateRow, Store

__all__ = ["Header", "MetadataError", "append_snapshot", "make_header", "now_iso"]

_METADATA_LIMIT = 16 * 1024


class MetadataError(SnaplineError):
    """Snapshot metadata or tool name that is not small, JSON-serialisable data."""

    exit_code = 2


@dataclasses.dataclass(frozen=True)
class Header:
    """What the caller says about a snapshot."""

    tool: str
    description: str
    session: str | None = None
    metadata: dict[str, Any] = dataclasses.field(default_factory=dict)


def make_header(
    tool: str, description: str, session: str | None, metadata: dict[str, Any] | None
) -> Header:
    """Validate what a caller says about a snapshot.

    Raises:
        MetadataError: If the tool name is empty or the metadata is not small JSON.
    """
    if not tool or not isinstance(tool, str):
        raise MetadataError("a snapshot needs a tool name (for example 'edit' or 'shell')")
    data = dict(metadata or {})
    try:
        encoded = json.dumps(data, sort_keys=True)
    except (TypeError, ValueError) as error:
        raise MetadataError(f"metadata must be JSON-serialisable: {error}") from None
    if len(encoded) > _METADATA_LIMIT:
        raise MetadataError(
            f"metadata is {len(encoded)} bytes as JSON; keep it under {_METADATA_LIMIT}"
        )
    return Header(tool=tool, description=description, session=session, metadata=data)


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="microseconds")


def append_snapshot(
    store: Store,
    header: Header,
    prepared: Prepared,
    skipped: Sequence[SkippedPath] = (),
) -> tuple[SnapshotRow, list[ChangeRow]]:
    """Append one snapshot on top of the latest; call inside ``store.write()``.

    The number is one past the latest (0 for the baseline), the parent is the latest
    snapshot's id, and the chain hash covers the latest one's. The known state moves to
    the results of ``prepared.changes``.

    Returns:
        The inserted header row and change rows.
    """
    latest = store.latest_number()
    parent = store.snapshot_row(latest) if latest is not None else None
    number = 0 if latest is None else latest + 1
    all_skipped = [*skipped, *prepared.skipped]
    row = SnapshotRow(
        number=number,
        id=uuid.uuid4().hex,
        parent_id=parent.id if parent else None,
        time=now_iso(),
        tool=header.tool,
        description=header.description,
        session=header.session,
        metadata=json.dumps(header.metadata, sort_keys=True, separators=(",", ":")),
        skipped=json.dumps([[s.path, s.reason] for s in all_skipped], separators=(",", ":")),
        version=SNAPSHOT_VERSION,
        chain_hash="",
    )
    # Rows usually arrive unnumbered (-1); the baseline's are built as snapshot 0, and
    # copying 100k rows just to stamp the same number again costs seconds.
    changes = [
        c if c.snapshot == number else dataclasses.replace(c, snapshot=number)
        for c in prepared.changes
    ]
    previous_chain = parent.chain_hash if parent else GENESIS
    row = dataclasses.replace(row, chain_hash=chain_hash(previous_chain, row, changes))
    for hash_, (size, packed) in prepared.blobs.items():
        store.put_blob(hash_, size, packed)
    store.insert_snapshot(row, changes)
    upserts, deletes = [], []
    for change in changes:
        if change.old_path is not None:
            deletes.append(change.old_path)
        if change.result_hash is None:
            deletes.append(change.path)
        else:
            assert change.result_mode is not None and change.size is not None
            upserts.append(
                StateRow(change.path, change.result_hash, change.result_mode, change.size, number)
            )
    store.set_state(upserts, deletes)
    return row, changes
