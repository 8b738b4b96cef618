"""The chain hash: each snapshot's hash covers its own content and its predecessor's hash.

Any edit of a recorded snapshot or its file changes changes its chain hash and every one
after it, so ``validate()`` finds it by recomputing the chain.

Version 2 (the ledger's) covers the digest of each diff's text, so it does not depend
on how the diff was compressed, and the lines a merge joins. A forgotten diff
(``snapline forget``) keeps its digest in its tombstone, so the chain still verifies
without the content. Version 1 (stores written by 0.1) covered a digest of each packed
diff.
"""

from __future__ import annotations

import hashlib
import json
import zlib
from collections.abc import Callable, Iterable

from snapline.content import MAX_DELTA_BYTES, tombstone_digest, unpacked_digest
from snapline.store import ChangeRow, SnapshotRow

__all__ = ["GENESIS", "ChainLines", "chain_hash"]

GENESIS = "sha256:" + "0" * 64
"""The chain value that snapshot 0 (the baseline) builds on."""


def chain_hash(
    previous: str, header: SnapshotRow, changes: Iterable[ChangeRow], *, in_order: bool = False
) -> str:
    """Compute the chain hash of one snapshot.

    Args:
        previous: The chain hash of the snapshot before (``GENESIS`` for snapshot 0).
        header: The snapshot's row; its own ``chain_hash`` field is not covered.
        changes: Its file changes, in any order: they are hashed in path order.
        in_order: The changes come in path order already: hash them as they stream,
            holding none (a baseline's hundred thousand).
    """
    digest = hashlib.sha256(_header_line(previous, header))
    # Path order as Python sorts the paths (code points, a non-UTF-8 name by its
    # surrogate escapes), as they were when the snapshot was appended. Not the store's
    # order: SQLite sorts such a name, stored as a BLOB, after every TEXT path, so
    # trusting it made any store holding one fail its own chain check.
    line = _change_line if header.version >= 2 else _change_line_v1
    for change in changes if in_order else sorted(changes, key=lambda change: change.path):
        digest.update(line(change))
    return "sha256:" + digest.hexdigest()


class ChainLines:
    """A snapshot's change lines, added in path order, hashed once its header is known.

    The header line comes first in the hash but, for the baseline, holds what is known
    only at the end (the paths left out); the lines wait in a temporary file that stays
    in memory while small, so 100k files do not keep 100k rows alive.
    """

    def __init__(self) -> None:
        import tempfile  # here: only init (the baseline) uses these lines

        self._lines = tempfile.SpooledTemporaryFile(max_size=_SPOOL_LIMIT)  # noqa: SIM115 (closed by __exit__)
        self._last: str | None = None

    def __enter__(self) -> ChainLines:
        return self

    def __exit__(self, *exc: object) -> None:
        self._lines.close()

    def add(self, change: ChangeRow) -> None:
        """Add the next change; its path must sort after the previous one's."""
        if self._last is not None and change.path <= self._last:
            raise ValueError(f"changes out of path order: {change.path!r} after {self._last!r}")
        self._last = change.path
        self._lines.write(_change_line(change))

    def chain_hash(self, previous: str, header: SnapshotRow) -> str:
        """:func:`chain_hash` of ``header`` with the changes added so far."""
        digest = hashlib.sha256(_header_line(previous, header))
        self._lines.seek(0)
        for block in iter(lambda: self._lines.read(1 << 20), b""):
            digest.update(block)
        self._lines.seek(0, 2)
        return "sha256:" + digest.hexdigest()


_SPOOL_LIMIT = 4 << 20


def _header_line(previous: str, header: SnapshotRow) -> bytes:
    merges = [header.merges] if header.version >= 2 else []
    return _line(
        [
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
            *merges,
        ]
    )


def _change_line(c: ChangeRow) -> bytes:
    # Format 2 covers each delta by the digest of its unpacked text (so a forgotten one
    # still verifies); format 1 covered the stored bytes themselves.
    return _change_fields(c, _text_digest)


def _change_line_v1(c: ChangeRow) -> bytes:
    return _change_fields(c, _digest)


def _change_fields(c: ChangeRow, digested: Callable[[bytes | None], str | None]) -> bytes:
    return _line(
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
            digested(c.forward),
            digested(c.reverse),
            c.content,
            c.chain,
            c.chain_bytes,
        ]
    )


# One encoder for every line: json.dumps with non-default options builds a new one per
# call, a fifth of hashing a 100k-file baseline (measured). The output is the same.
_ENCODER = json.JSONEncoder(ensure_ascii=True, separators=(",", ":"))


def _line(values: list[object]) -> bytes:
    return _ENCODER.encode(values).encode() + b"\n"


def _digest(data: bytes | None) -> str | None:
    return None if data is None else hashlib.sha256(data).hexdigest()


def _text_digest(packed: bytes | None) -> str | None:
    if packed is None:
        return None
    try:
        forgotten = tombstone_digest(packed)
        if forgotten is not None:
            return forgotten
        return unpacked_digest(packed, limit=MAX_DELTA_BYTES)
    except (TypeError, ValueError, zlib.error) as error:
        # A damaged value cannot match the digest it was sealed with: the chain says so.
        return f"unreadable: {error}"
