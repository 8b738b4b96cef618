"""How stored bytes are packed: compression, and what counts as text."""

from __future__ import annotations

import zlib

__all__ = ["FAST", "decode_text", "pack", "unpack"]

# One leading byte names the codec, so a reader knows how to unpack without a schema
# change if a better codec is added (a reader refuses codecs it does not know).
_RAW = b"r"
_ZLIB = b"z"
_LEVEL = 6
FAST = 1
"""The level for bulk work (the baseline): measured on source text, 3x faster than the
default level for about 18% more bytes, which makes compression no longer the larger
half of ``init``."""


class UnknownCodecError(ValueError):
    """A packed value starts with a codec byte this version does not know."""


def pack(data: bytes, level: int = _LEVEL) -> bytes:
    """Compress ``data`` when that saves bytes; the result starts with its codec byte."""
    if len(data) > 64:
        compressed = zlib.compress(data, level)
        if len(compressed) < len(data):
            return _ZLIB + compressed
    return _RAW + data


def unpack(packed: bytes) -> bytes:
    """Invert :func:`pack`.

    Raises:
        UnknownCodecError: If the codec byte is unknown.
        zlib.error: If compressed data is damaged.
    """
    codec, body = packed[:1], packed[1:]
    if codec == _ZLIB:
        return zlib.decompress(body)
    if codec == _RAW:
        return bytes(body)
    raise UnknownCodecError(f"unknown codec {codec!r}")


def decode_text(data: bytes) -> str | None:
    """Return ``data`` as text when it round-trips exactly as UTF-8, else ``None``.

    A NUL byte marks binary content, as git's heuristic does; anything that is not valid
    UTF-8 is stored as bytes, never transcoded.
    """
    if b"\x00" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None
