"""How stored bytes are packed: compression, and what counts as text."""

from __future__ import annotations

import hashlib
import zlib

__all__ = [
    "FAST",
    "MAX_DELTA_BYTES",
    "ForgottenContentError",
    "PackedSizeError",
    "UnknownCodecError",
    "decode_text",
    "git_reference",
    "git_referenced",
    "pack",
    "pack_raw",
    "tombstone",
    "tombstone_digest",
    "unpack",
    "unpacked_digest",
]

# One leading byte names the codec, so a reader knows how to unpack without a schema
# change if a better codec is added (a reader refuses codecs it does not know).
_RAW = b"r"
_ZLIB = b"z"
# A forgotten value (``snapline forget``): what remains is the SHA-256 of its text.
_FORGOTTEN = b"f"
# Kept in git's object database (a history on git's refs): the value is the blob's id,
# which the store that wrote it resolves (``store/refs/otherlines.py``), never unpack.
_GIT = b"g"
_LEVEL = 6
FAST = 1
"""The level for bulk work (the baseline): measured on source text, 3x faster than the
default level for about 18% more bytes, which makes compression no longer the larger
half of ``init``."""


MAX_DELTA_BYTES = 256 << 20
"""No delta of a file within the diff limit (16 MiB by default) unpacks to more: a delta
names each inserted byte as at most three characters, and a file above the limit is
stored in full instead."""


class UnknownCodecError(ValueError):
    """A packed value starts with a codec byte this version does not know."""


class PackedSizeError(ValueError):
    """A packed value unpacks to more bytes than its recorded size allows."""


class ForgottenContentError(ValueError):
    """A packed value is a tombstone: its content was forgotten on purpose."""


def tombstone(digest: str) -> bytes:
    """The packed value left in place of a forgotten one: its text's SHA-256 hex digest."""
    return _FORGOTTEN + digest.encode("ascii")


def tombstone_digest(packed: bytes) -> str | None:
    """The digest a tombstone keeps, or ``None`` when ``packed`` is not one."""
    return _named(packed, _FORGOTTEN)


def git_reference(blob_id: str) -> bytes:
    """The packed value of a content kept as git's blob ``blob_id``, not copied."""
    return _GIT + blob_id.encode("ascii")


def git_referenced(packed: bytes) -> str | None:
    """The blob id a :func:`git_reference` names, or ``None`` when ``packed`` is not one."""
    return _named(packed, _GIT)


def _named(packed: bytes, codec: bytes) -> str | None:
    """The name (a digest, a blob id) a value of ``codec`` holds in place of content."""
    if packed[:1] != codec:
        return None
    return packed[1:].decode("ascii", "replace")


def pack(data: bytes, level: int = _LEVEL) -> bytes:
    """Compress ``data`` when that saves bytes; the result starts with its codec byte."""
    if len(data) > 64:
        compressed = zlib.compress(data, level)
        if len(compressed) < len(data):
            return _ZLIB + compressed
    return _RAW + data


def pack_raw(data: bytes) -> bytes:
    """Pack ``data`` uncompressed (codec ``r``): what :func:`pack` gives when zlib saves nothing.

    For bulk copies into the local index (a rebuild), where compressing every file
    costs more time than the bytes it saves are worth.
    """
    return _RAW + data


def unpack(packed: bytes, *, limit: int) -> bytes:
    """Invert :func:`pack`, never producing more than ``limit`` bytes.

    Stored values may come from elsewhere (a store can be committed, mailed, crafted):
    300 KB of zlib can inflate to gigabytes, so inflation stops one byte past the size
    the record allows instead of trusting the stream.

    Args:
        packed: A value :func:`pack` made.
        limit: The most bytes it may unpack to (its recorded size, or a bound on it).

    Returns:
        The original bytes.

    Raises:
        UnknownCodecError: If the codec byte is unknown.
        ForgottenContentError: If it is a tombstone.
        PackedSizeError: If it unpacks to more than ``limit`` bytes.
        zlib.error: If compressed data is damaged or truncated.
    """
    codec, body = packed[:1], packed[1:]
    if codec == _ZLIB:
        inflater = zlib.decompressobj()
        data = inflater.decompress(body, limit + 1)
        if len(data) > limit or inflater.unconsumed_tail:
            raise PackedSizeError(f"it unpacks to more than the {limit} bytes recorded")
        if not inflater.eof:
            raise zlib.error("the compressed data is truncated")
        return data
    if codec == _RAW:
        if len(body) > limit:
            raise PackedSizeError(f"it holds more than the {limit} bytes recorded")
        return bytes(body)
    if codec == _FORGOTTEN:
        raise ForgottenContentError("its content was forgotten (`snapline forget`)")
    if codec == _GIT:
        # Reached only when the store could not resolve it (the blob is missing).
        blob = body[:64].decode("ascii", "replace")
        raise UnknownCodecError(f"it is git's blob {blob}, which is missing or unreadable")
    raise UnknownCodecError(f"unknown codec {codec!r}")


def unpacked_digest(packed: bytes, *, limit: int) -> str:
    """The SHA-256 hex digest of what ``packed`` unpacks to, in bounded memory.

    The chain hash covers each delta's text; a crafted store's delta may inflate to
    ``limit`` bytes, which are hashed as they come rather than held.

    Raises:
        UnknownCodecError: And every error :func:`unpack` names (a tombstone, more
            than ``limit`` bytes, damaged data), as it raises them.
    """
    codec, body = packed[:1], packed[1:]
    if codec != _ZLIB:
        return hashlib.sha256(unpack(packed, limit=limit)).hexdigest()
    digest = hashlib.sha256()
    inflater = zlib.decompressobj()
    total = 0
    pending = body
    while True:
        chunk = inflater.decompress(pending, _CHUNK)
        pending = inflater.unconsumed_tail
        total += len(chunk)
        if total > limit:
            raise PackedSizeError(f"it unpacks to more than the {limit} bytes recorded")
        digest.update(chunk)
        if not pending and (inflater.eof or not chunk):
            break
    if not inflater.eof:
        raise zlib.error("the compressed data is truncated")
    return digest.hexdigest()


_CHUNK = 1 << 20


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
