"""Ledger objects as docs/format.md ("Objects") describes them, written from that page alone.

An independent reader and writer of both forms, so the tests check snapline's files
against the documented bytes rather than against snapline's own encoder: the raw form
(ledger 1, what snapline wrote before ledger 2) and the keyed form (ledger 2).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

__all__ = ["keyed_bytes", "object_content", "object_file", "raw_object_file", "sha256"]


def sha256(content: bytes) -> str:
    """The ledger's spelling of a content hash."""
    return "sha256:" + hashlib.sha256(content).hexdigest()


def _table(hex_: str) -> bytes:
    stream = hashlib.shake_256(b"snapline object 2\x00" + bytes.fromhex(hex_)).digest(512)
    order = sorted(range(256), key=lambda b: (stream[2 * b : 2 * b + 2], b))
    table = bytearray(256)
    for i in range(256):
        table[order[i]] = order[(i + 1) % 256]
    return bytes(table)


def keyed_bytes(content: bytes) -> bytes:
    """The keyed object file of ``content``: its header line, then the permuted bytes."""
    hex_ = hashlib.sha256(content).hexdigest()
    table = _table(hex_)
    body = bytes(table[b] for b in content)
    return b"snapline object 2 sha256:" + hex_.encode() + b"\n" + body


def object_content(path: Path) -> bytes:
    """The content an object file holds, in either form (its name says which)."""
    data = path.read_bytes()
    if not path.name.endswith(".x"):
        return data
    hex_ = path.parent.name + path.name[: -len(".x")]
    head, _, body = data.partition(b"\n")
    assert head == b"snapline object 2 sha256:" + hex_.encode(), path
    inverse = {after: before for before, after in enumerate(_table(hex_))}
    return bytes(inverse[b] for b in body)


def object_file(ledger: Path, content: bytes) -> Path:
    """Where the keyed object of ``content`` lives under the ledger directory."""
    hex_ = hashlib.sha256(content).hexdigest()
    return ledger / "objects" / hex_[:2] / (hex_[2:] + ".x")


def raw_object_file(ledger: Path, content: bytes) -> Path:
    """Where the raw (ledger 1) object of ``content`` lives under the ledger directory."""
    hex_ = hashlib.sha256(content).hexdigest()
    return ledger / "objects" / hex_[:2] / hex_[2:]
