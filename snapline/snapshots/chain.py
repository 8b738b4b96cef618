"""The chain hash: each snapshot's hash covers its own content and its predecessor's hash.

Any edit of a recorded snapshot, its file changes or its diffs changes its chain hash and
every one after it, so ``validate()`` finds it by recomputing the chain.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable

from snapline.store import ChangeRow, SnapshotRow

__all__ = ["GENESIS", "chain_hash"]

GENESIS = "sha256:" + "0" * 64
"""The chain value that snapshot 0 (the baseline) builds on."""


def chain_hash(previous: str, header: SnapshotRow, changes: Iterable[ChangeRow]) -> str:
    """Compute the chain hash of one snapshot.

    Args:
        previous: The chain hash of the snapshot before (``GENESIS`` for snapshot 0).
        header: The snapshot's row; its own ``chain_hash`` field is not covered.
        changes: Its file changes, in any order: they are hashed in path order.
    """
    digest = hashlib.sha256()
    fields = [
        previous,
        header.number,
        header.id,
        header.parent_id,
        header.time,
        header.tool,
        header.description,
        header.session,
        header.metadata,
        header.skipped,
        header.version,
    ]
    digest.update(_line(fields))
    # Path order as Python sorts the paths (code points, a non-UTF-8 name by its
    # surrogate escapes), as they were when the snapshot was appended. Not the store's
    # order: SQLite sorts such a name, stored as a BLOB, after every TEXT path, so
    # trusting it made any store holding one fail its own chain check.
    for c in sorted(changes, key=lambda change: change.path):
        digest.update(
            _line(
                [
                    c.path,
                    c.kind,
                    c.old_path,
                    c.base_hash,
                    c.result_hash,
                    c.base_mode,
                    c.result_mode,
                    c.size,
                    c.storage,
                    _digest(c.forward),
                    _digest(c.reverse),
                    c.content,
                    c.chain,
                    c.chain_bytes,
                ]
            )
        )
    return "sha256:" + digest.hexdigest()


def _line(values: list[object]) -> bytes:
    return json.dumps(values, ensure_ascii=True, separators=(",", ":")).encode() + b"\n"


def _digest(data: bytes | None) -> str | None:
    return None if data is None else hashlib.sha256(data).hexdigest()
