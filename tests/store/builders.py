"""Rows for the store contract suite, with defaults for every field a test does not name.

The snapshot rows are real snapshots (ids, hashes, versions and contents as the recorder
makes them), so that a store that publishes its snapshots (the refs store, whose commits
hold each version's bytes) takes them: each version a change names is kept whole, and
:func:`record` stores its bytes as a blob in the same transaction, as the recorder does.
"""

from __future__ import annotations

from typing import Any

from snapline.content import pack
from snapline.diffing import compute_deltas
from snapline.hashing import hash_bytes
from snapline.store import ChangeRow, MilestoneRow, SnapshotRow, StateRow, StatRow, Store

__all__ = [
    "NOT_UTF8",
    "change",
    "content",
    "milestone",
    "record",
    "snapshot",
    "snapshot_id",
    "stat",
    "state",
    "store_contents",
]

NOT_UTF8 = b"caf\xe9".decode("utf-8", "surrogateescape")
"""A file name that is not valid UTF-8, as ``os.fsdecode`` returns it."""


def snapshot_id(number: int) -> str:
    """The id of snapshot ``number`` (32 hex digits, as ``uuid4().hex`` is)."""
    return f"{number:032x}"


def content(path: str, number: int) -> bytes:
    """The bytes of ``path`` as snapshot ``number`` leaves it."""
    return f"{path!a}@{number}\n".encode()


def snapshot(number: int, **fields: Any) -> SnapshotRow:
    """A snapshot header; ``time`` defaults to a day in January 2024 per number."""
    values: dict[str, Any] = {
        "number": number,
        "id": snapshot_id(number),
        "parent_id": None if number == 0 else snapshot_id(number - 1),
        "time": f"2024-01-{number % 28 + 1:02d}T00:00:00+00:00",
        "tool": "write",
        "description": f"snapshot {number}",
        "session": None,
        "metadata": "{}",
        "skipped": "[]",
        "version": 2,
        "chain_hash": hash_bytes(f"chain-{number}".encode()),
    }
    values.update(fields)
    return SnapshotRow(**values)


def change(number: int, path: str, **fields: Any) -> ChangeRow:
    """A change of ``path`` in snapshot ``number``: its :func:`content` kept whole, with deltas.

    ``kind="deleted"`` leaves no result (hash, mode, size, content, deltas).
    """
    base, data = content(path, number - 1), content(path, number)
    deltas = compute_deltas(base.decode(), data.decode())
    assert deltas is not None
    values: dict[str, Any] = {
        "snapshot": number,
        "path": path,
        "kind": "modified",
        "old_path": None,
        "base_hash": hash_bytes(base),
        "result_hash": hash_bytes(data),
        "base_mode": 0o100644,
        "result_mode": 0o100644,
        "size": len(data),
        "storage": "full",
        "forward": pack(deltas.forward.encode()),
        "reverse": pack(deltas.reverse.encode()),
        "content": hash_bytes(data),
        "chain": 0,
        "chain_bytes": 0,
    }
    if fields.get("kind") == "deleted":
        values.update(
            result_hash=None, result_mode=None, size=None, storage="none", content=None,
            forward=None, reverse=None,
        )  # fmt: skip
    values.update(fields)
    return ChangeRow(**values)


def state(path: str, number: int = 0, **fields: Any) -> StateRow:
    """The known state of ``path`` as snapshot ``number`` left it."""
    values: dict[str, Any] = {
        "path": path,
        "hash": f"sha256:{path!a}@{number}",
        "mode": 0o100644,
        "size": 10,
        "snapshot": number,
    }
    values.update(fields)
    return StateRow(**values)


def stat(path: str, number: int = 0, **fields: Any) -> StatRow:
    """A stat cache entry for ``path`` matching :func:`state` and hashed long after."""
    values: dict[str, Any] = {
        "path": path,
        "size": 10,
        "mtime_ns": 1_000,
        "ino": 42,
        "ctime_ns": 1_000,
        "mode": 0o100644,
        "hash": f"sha256:{path!a}@{number}",
        "checked_ns": 1_000_000,
    }
    values.update(fields)
    return StatRow(**values)


def milestone(number: int, first: int, last: int, **fields: Any) -> MilestoneRow:
    """A milestone over snapshots ``first..last``."""
    values: dict[str, Any] = {
        "number": number,
        "title": f"milestone {number}",
        "description": "",
        "tags": "[]",
        "time": "2024-02-01T00:00:00+00:00",
        "first": first,
        "last": last,
        "version": 1,
        "chain_hash": hash_bytes(f"milestone-chain-{number}".encode()),
    }
    values.update(fields)
    return MilestoneRow(**values)


def store_contents(store: Store, changes: Any) -> None:
    """Store as blobs the whole versions ``changes`` name (each change's :func:`content`)."""
    for row in changes:
        if row.content is not None and row.size is not None:
            data = content(row.path, row.snapshot)
            if hash_bytes(data) == row.content:
                store.blobs.put(row.content, len(data), pack(data))


def record(store: Store, number: int, *changes: ChangeRow, **fields: Any) -> SnapshotRow:
    """Insert snapshot ``number`` with ``changes`` and their contents in one transaction."""
    row = snapshot(number, **fields)
    with store.write():
        store_contents(store, changes)
        store.snapshots.insert(row, changes)
    return row
