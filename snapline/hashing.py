"""Content hashes: full SHA-256 digests, always written with their algorithm name."""

from __future__ import annotations

import hashlib
from typing import BinaryIO

__all__ = ["ALGORITHM", "hash_bytes", "hash_stream", "is_hash"]

ALGORITHM = "sha256"
_PREFIX = ALGORITHM + ":"
_CHUNK = 1 << 20


def hash_bytes(data: bytes) -> str:
    """Return ``sha256:<hex>`` of ``data``."""
    return _PREFIX + hashlib.sha256(data).hexdigest()


def hash_stream(stream: BinaryIO) -> tuple[str, int]:
    """Hash a binary stream in bounded memory.

    Returns:
        The ``sha256:<hex>`` digest and the number of bytes read.
    """
    digest = hashlib.sha256()
    size = 0
    while chunk := stream.read(_CHUNK):
        digest.update(chunk)
        size += len(chunk)
    return _PREFIX + digest.hexdigest(), size


def is_hash(value: object) -> bool:
    """Whether ``value`` is a well-formed ``sha256:<64 hex digits>`` string."""
    if not isinstance(value, str) or not value.startswith(_PREFIX) or len(value) != 71:
        return False
    try:
        int(value[len(_PREFIX) :], 16)
    except ValueError:
        return False
    return True
