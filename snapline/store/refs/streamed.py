"""A file's bytes read once, in pieces, SHA-256 hashed as they pass into a git blob.

A file above the large-file limit is never held whole in memory: its blob is written
as it is read (:meth:`~snapline.store.refs.git.GitRepository.write_blob_stream`), and
the SHA-256 taken here is of exactly the bytes the blob holds, whatever the file does
meanwhile, so the caller can hold the blob to the hash a snapshot recorded.
"""

from __future__ import annotations

import hashlib
import io
from typing import BinaryIO

from snapline.hashing import ALGORITHM

__all__ = ["HashedReader"]


class HashedReader(io.RawIOBase):
    """At most ``size`` bytes of ``source``, SHA-256 hashed and counted as they are read."""

    def __init__(self, source: BinaryIO, size: int) -> None:
        """Read ``source`` from where it is, up to ``size`` bytes (its size when opened)."""
        super().__init__()
        self.size = size
        self.count = 0
        self._source = source
        self._digest = hashlib.sha256()

    def readable(self) -> bool:
        """Always: it is a reader."""
        return True

    def read(self, size: int = -1) -> bytes:
        """Up to ``size`` more bytes (all that is left when negative); ``b""`` at the end."""
        left = self.size - self.count
        piece = self._source.read(left if size < 0 else min(size, left)) if left else b""
        self._digest.update(piece)
        self.count += len(piece)
        return piece

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        """:meth:`read` into ``buffer``; the number of bytes put there."""
        piece = self.read(len(buffer))
        memoryview(buffer)[: len(piece)] = piece
        return len(piece)

    @property
    def complete(self) -> bool:
        """Whether all ``size`` bytes were read (``False``: the file ended sooner)."""
        return self.count == self.size

    @property
    def hash(self) -> str:
        """``sha256:<hex>`` of the bytes read so far."""
        return f"{ALGORITHM}:{self._digest.hexdigest()}"
