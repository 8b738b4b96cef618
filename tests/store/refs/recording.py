"""Writing snapshots through a :class:`RefsStore` as the recorder does: rows into the index."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

from snapline.content import pack
from snapline.diffing import compute_deltas
from snapline.hashing import hash_bytes
from snapline.store.refs.git import open_repository
from snapline.store.refs.store import RefsStore
from snapline.store.rows import ChangeRow, SnapshotRow, StateRow
from snapline.store.sqlite import SqliteStore

CONFIG = {"large_file_limit": 1024, "max_chain": 5}


def open_refs_store(work_tree: Path, *, create: bool = False) -> RefsStore:
    """The refs store of ``work_tree``, its index under git's directory."""
    repo = open_repository(work_tree)
    path = repo.git_dir / "snapline" / "index.db"
    path.parent.mkdir(exist_ok=True)
    index = SqliteStore.create(path, CONFIG) if create else SqliteStore.open(path)
    return RefsStore(repo, index)


class Writer:
    """Snapshots recorded into a store: files in memory, rows as the recorder makes them."""

    def __init__(self, store: RefsStore) -> None:
        self.store = store
        self.files: dict[str, bytes] = {}

    def snapshot(
        self,
        writes: dict[str, bytes | None],
        *,
        renames: dict[str, str] | None = None,
        hash_only: tuple[str, ...] = (),
    ) -> SnapshotRow:
        """Record ``writes`` (and ``renames``: new path -> old path, content kept) as one."""
        store = self.store
        latest = store.snapshots.latest_number()
        previous = None if latest is None else store.snapshots.get(latest)
        number = 0 if previous is None else previous.number + 1
        row = SnapshotRow(
            number=number,
            id=uuid.uuid4().hex,
            parent_id=None if previous is None else previous.id,
            time=f"2026-11-28T17:00:{number % 60:02d}.000000+00:00",
            tool="edit",
            description=f"edit {number}",
            session="s1",
            metadata="{}",
            skipped="[]",
            version=2,
            chain_hash=hash_bytes(f"{previous.chain_hash if previous else ''}{number}".encode()),
            merges=json.dumps([]),
        )
        changes: list[ChangeRow] = []
        blobs: list[tuple[str, int, bytes]] = []
        for new, old in (renames or {}).items():
            kept = self.files[old]
            changes.append(change_row(number, new, kept, kept, "renamed", old_path=old))
            blobs.append((hash_bytes(kept), len(kept), pack(kept)))
        for path, data in sorted(writes.items()):
            change = stored_change(
                number, path, self.files.get(path), data, hash_only=path in hash_only
            )
            changes.append(change)
            if change.content is not None and data is not None:
                blobs.append((change.content, len(data), pack(data)))
        with store.write():
            store.blobs.put_many(blobs)
            store.snapshots.insert(row, changes)
            store.state.set(
                [
                    StateRow(c.path, c.result_hash, 0o100644, c.size or 0, number)
                    for c in changes
                    if c.result_hash is not None
                ],
                [c.path for c in changes if c.result_hash is None]
                + [c.old_path for c in changes if c.old_path is not None],
            )
        for new, old in (renames or {}).items():
            self.files[new] = self.files.pop(old)
        for path, written in writes.items():
            if written is None:
                self.files.pop(path, None)
            else:
                self.files[path] = written
        return row


def stored_change(
    number: int,
    path: str,
    old: bytes | None,
    new: bytes | None,
    *,
    hash_only: bool = False,
    mode: int = 0o100644,
    delta_chain: int = 1,
) -> ChangeRow:
    """A change as the recorder stores it: a text's delta, else the full content or its hash.

    Args:
        number: The snapshot.
        path: The file.
        old: Its bytes before (``None``: added).
        new: Its bytes after (``None``: deleted).
        hash_only: Keep only the new content's hash (a version too large to keep).
        mode: The file's mode before and after.
        delta_chain: The ``chain`` of a delta.
    """
    kind = "added" if old is None else "deleted" if new is None else "modified"
    row = change_row(number, path, old, new, kind, mode=mode)
    if hash_only:
        return row._replace(storage="hash-only", content=None)
    if old is not None and new is not None:
        try:
            deltas = compute_deltas(old.decode(), new.decode())
        except UnicodeDecodeError:
            deltas = None
        if deltas is not None:
            return row._replace(
                storage="delta",
                content=None,
                forward=pack(deltas.forward.encode()),
                reverse=pack(deltas.reverse.encode()),
                chain=delta_chain,
            )
    return row


def change_row(
    number: int,
    path: str,
    old: bytes | None,
    new: bytes | None,
    kind: str,
    *,
    old_path: str | None = None,
    mode: int = 0o100644,
) -> ChangeRow:
    return ChangeRow(
        snapshot=number,
        path=path,
        kind=kind,
        old_path=old_path,
        base_hash=None if old is None else hash_bytes(old),
        result_hash=None if new is None else hash_bytes(new),
        base_mode=None if old is None else mode,
        result_mode=None if new is None else mode,
        size=None if new is None else len(new),
        storage="none" if new is None else "full",
        forward=None,
        reverse=None,
        content=None if new is None else hash_bytes(new),
        chain=0,
        chain_bytes=0,
    )
