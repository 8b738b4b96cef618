"""Rows for the store contract suite, with defaults for every field a test does not name."""

from __future__ import annotations

from typing import Any

from snapline.store import ChangeRow, MilestoneRow, SnapshotRow, StateRow, StatRow, Store

__all__ = ["NOT_UTF8", "change", "milestone", "record", "snapshot", "stat", "state"]

NOT_UTF8 = b"caf\xe9".decode("utf-8", "surrogateescape")
"""A file name that is not valid UTF-8, as ``os.fsdecode`` returns it."""


def snapshot(number: int, **fields: Any) -> SnapshotRow:
    """A snapshot header; ``time`` defaults to a day in January 2024 per number."""
    values: dict[str, Any] = {
        "number": number,
        "id": f"id-{number}",
        "parent_id": None if number == 0 else f"id-{number - 1}",
        "time": f"2024-01-{number % 28 + 1:02d}T00:00:00+00:00",
        "tool": "write",
        "description": f"snapshot {number}",
        "session": None,
        "metadata": "{}",
        "skipped": "[]",
        "version": 1,
        "chain_hash": f"chain-{number}",
    }
    values.update(fields)
    return SnapshotRow(**values)


def change(number: int, path: str, **fields: Any) -> ChangeRow:
    """A change of ``path`` in snapshot ``number`` (a modification with deltas)."""
    values: dict[str, Any] = {
        "snapshot": number,
        "path": path,
        "kind": "modified",
        "old_path": None,
        "base_hash": f"sha256:{path!a}@{number - 1}",
        "result_hash": f"sha256:{path!a}@{number}",
        "base_mode": 0o100644,
        "result_mode": 0o100644,
        "size": 10,
        "storage": "delta",
        "forward": f"+{path!a}@{number}".encode(),
        "reverse": f"-{path!a}@{number}".encode(),
        "content": None,
        "chain": 1,
        "chain_bytes": 20,
    }
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
        "chain_hash": f"milestone-chain-{number}",
    }
    values.update(fields)
    return MilestoneRow(**values)


def record(store: Store, number: int, *changes: ChangeRow, **fields: Any) -> SnapshotRow:
    """Insert snapshot ``number`` with ``changes`` in its own transaction."""
    row = snapshot(number, **fields)
    with store.write():
        store.snapshots.insert(row, changes)
    return row
