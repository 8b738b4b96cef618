"""git's pack files read without libgit2: an object found by its ``.idx``, deltas applied.

A pack (``objects/pack/pack-*.pack``) holds objects whole or as deltas against another
object of it (``OFS_DELTA``) or against one named by id (``REF_DELTA``); its ``.idx``
(version 2) lists the ids sorted, with a fan-out table of the first byte, and where
each object starts (git's ``Documentation/gitformat-pack.txt``). Only what a record
reads is here: an object's type and bytes by id, and whether an id is in a pack.
Anything else (an index of version 1, a pack that is not version 2 or 3) is left to the
library: :class:`Unreadable`.

Each object rebuilt from a delta chain is kept for a while by where it starts (git's
delta base cache, ``core.deltaBaseCacheLimit``): the states of a line are trees that
git packs as deltas of each other, chains of about ten, and reading a line's trees one
after the other rebuilt each chain from its whole base every time (a fresh clone's first
``verify``: 75,000 deltas applied for 11,000 trees at 1,000 snapshots).
"""

from __future__ import annotations

import mmap
import os
import struct
import threading
import zlib
from bisect import bisect_left
from collections import OrderedDict
from collections.abc import Callable, Iterable
from pathlib import Path

__all__ = ["Pack", "Unreadable", "apply_delta", "packs_in"]

_IDX_MAGIC = b"\xfftOc"
_NAMES_AT = 8 + 1024  # an index's sorted ids start past its header and fan-out table
_SCANNED = 1024
"""Ids of one first byte up to which they are scanned, not bisected (a pack of 260,000)."""
_OFS_DELTA, _REF_DELTA = 6, 7
_MAX_CHAIN = 10_000  # git's own chains are at most 4,095 (pack.depth); a loop is damage
_CACHE_BYTES = 16 << 20
"""The bytes of rebuilt objects a pack keeps (git's default limit is 96 MiB)."""
_CACHE_LARGEST = 1 << 20
"""A larger object is not kept: a big file's versions would push out every tree."""


class Unreadable(Exception):
    """A pack or index this reader does not read (the library does); or damaged bytes."""


class _Names:
    """The sorted ids of a version-2 index, as a sequence ``bisect`` searches."""

    def __init__(self, view: mmap.mmap, count: int) -> None:
        self._view = view
        self._count = count

    def __len__(self) -> int:
        return self._count

    def __getitem__(self, index: int) -> bytes:
        at = _NAMES_AT + 20 * index
        return self._view[at : at + 20]


class Pack:
    """One pack and its index, mapped when first asked."""

    def __init__(self, idx: Path) -> None:
        """The pack whose index is ``idx`` (``pack-<hash>.idx``, the ``.pack`` beside it)."""
        self.idx = idx
        self._index: mmap.mmap | None = None
        self._data: mmap.mmap | None = None
        self._fanout: tuple[int, ...] = ()
        self._count = 0
        # Where an object starts -> its type and bytes, least recently used first.
        self._cache: OrderedDict[int, tuple[int, bytes]] = OrderedDict()
        self._cached = 0
        self._lock = threading.Lock()  # the library is used from any thread

    def _mapped(self) -> mmap.mmap:
        if self._index is None:
            index = _mapped(self.idx)
            if index[:8] != _IDX_MAGIC + b"\0\0\0\x02" or len(index) < _NAMES_AT + 40:
                raise Unreadable(f"{self.idx}: not a version-2 pack index")
            # Read once: each id's lookup starts from it (thousands per verify).
            self._fanout = struct.unpack(">256I", index[8:_NAMES_AT])
            self._count = self._fanout[255]
            self._index = index
        return self._index

    def position(self, id_: bytes) -> int | None:
        """Where object ``id_`` (20 bytes) is among the index's sorted ids, or ``None``."""
        index = self._mapped()
        first = id_[0]
        low = self._fanout[first - 1] if first else 0
        high = self._fanout[first]
        if high - low <= _SCANNED:
            # The ids of one first byte, searched in C: Python's bisection over them
            # costs more than the scan (a verify asks this of every version it names).
            at = index.find(id_, _NAMES_AT + 20 * low, _NAMES_AT + 20 * high)
            while at >= 0 and (at - _NAMES_AT) % 20:  # across two ids: not one
                at = index.find(id_, at + 1, _NAMES_AT + 20 * high)
            return None if at < 0 else (at - _NAMES_AT) // 20
        names = _Names(index, self._count)
        at = bisect_left(names, id_, low, high)
        return at if at < high and names[at] == id_ else None

    def offset(self, id_: bytes) -> int | None:
        """Where object ``id_`` (20 bytes) starts in the pack, or ``None`` if not in it."""
        at = self.position(id_)
        if at is None:
            return None
        index = self._mapped()
        table = _NAMES_AT + 24 * self._count  # past the names and their CRC-32s
        found = int.from_bytes(index[table + 4 * at : table + 4 * at + 4], "big")
        if found & 0x80000000:  # an index into the table of 64-bit offsets
            large = table + 4 * self._count + 8 * (found & 0x7FFFFFFF)
            found = int.from_bytes(index[large : large + 8], "big")
        return found

    def read(self, offset: int, by_id: Callable[[bytes], tuple[int, bytes]]) -> tuple[int, bytes]:
        """The object starting at ``offset``: its type (1 to 4) and bytes, deltas applied.

        Args:
            offset: Where it starts (:meth:`offset`).
            by_id: Reads a ``REF_DELTA``'s base by its 20-byte id (in any pack, or loose).

        Raises:
            Unreadable: If the bytes are not a pack's (damage), or the chain loops.
        """
        data = self._pack()
        # The deltas from the object asked down to a base, each with where it starts.
        chain: list[tuple[int, bytes]] = []
        for _ in range(_MAX_CHAIN):
            hit = self._kept(offset)
            if hit is not None:
                kind, body = hit
                break
            kind, at = _header(data, offset)
            if kind == _OFS_DELTA:
                back, at = _back_offset(data, at)
                chain.append((offset, _inflate(data, at)))
                offset -= back
            elif kind == _REF_DELTA:
                base = data[at : at + 20]
                chain.append((offset, _inflate(data, at + 20)))
                kind, body = by_id(bytes(base))
                break
            elif 1 <= kind <= 4:
                body = _inflate(data, at)
                if chain:  # a base: what the next object of its chain is read from
                    self._keep(offset, kind, body)
                break
            else:
                raise Unreadable(f"{self.idx}: object of type {kind} at {offset}")
        else:
            raise Unreadable(f"{self.idx}: a delta chain longer than {_MAX_CHAIN}")
        for start, delta in reversed(chain):
            body = apply_delta(body, delta)
            self._keep(start, kind, body)
        return kind, body

    def _kept(self, offset: int) -> tuple[int, bytes] | None:
        with self._lock:
            hit = self._cache.get(offset)
            if hit is not None:
                self._cache.move_to_end(offset)
            return hit

    def _keep(self, offset: int, kind: int, body: bytes) -> None:
        if len(body) > _CACHE_LARGEST:
            return
        with self._lock:
            if offset in self._cache:
                return
            self._cache[offset] = (kind, body)
            self._cached += len(body)
            while self._cached > _CACHE_BYTES:
                _, (_, gone) = self._cache.popitem(last=False)
                self._cached -= len(gone)

    def _pack(self) -> mmap.mmap:
        if self._data is None:
            data = _mapped(self.idx.with_suffix(".pack"))
            if data[:4] != b"PACK" or data[4:8] not in (b"\0\0\0\x02", b"\0\0\0\x03"):
                raise Unreadable(f"{self.idx}: not a version 2 or 3 pack")
            self._data = data
        return self._data


def _mapped(path: Path) -> mmap.mmap:
    try:
        with open(path, "rb") as file:
            return mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError) as error:  # gone since listed (a gc), or empty
        raise Unreadable(f"{path}: {error}") from None


def packs_in(objects: Path, known: Iterable[Pack] = ()) -> list[Pack]:
    """The packs of the object directory ``objects`` (newest first, as git looks).

    Args:
        objects: The ``objects`` folder.
        known: Packs listed before: one still there is kept as it is (mapped, with
            what it rebuilt), as git's ``reprepare_packed_git`` keeps its packs.
    """
    try:
        names = [entry for entry in os.scandir(objects / "pack") if entry.name.endswith(".idx")]
    except FileNotFoundError:
        return []
    names.sort(key=lambda entry: entry.stat().st_mtime_ns, reverse=True)
    kept = {os.fspath(pack.idx): pack for pack in known}
    return [kept.get(entry.path) or Pack(Path(entry.path)) for entry in names]


def _header(data: mmap.mmap, at: int) -> tuple[int, int]:
    """An entry's type and where its body starts (its size is the inflated body's)."""
    byte = data[at]
    kind = (byte >> 4) & 7
    at += 1
    while byte & 0x80:
        byte = data[at]
        at += 1
    return kind, at


def _back_offset(data: mmap.mmap, at: int) -> tuple[int, int]:
    byte = data[at]
    back = byte & 0x7F
    at += 1
    while byte & 0x80:
        byte = data[at]
        back = ((back + 1) << 7) | (byte & 0x7F)
        at += 1
    return back, at


def _inflate(data: mmap.mmap, at: int) -> bytes:
    stream = zlib.decompressobj()
    parts = []
    step = 1 << 16
    while not stream.eof:
        chunk = data[at : at + step]
        if not chunk:
            raise Unreadable("a pack entry cut short")
        parts.append(stream.decompress(chunk))
        at += step
    return b"".join(parts)


def _varint(data: bytes, at: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return value, at


def apply_delta(base: bytes, delta: bytes) -> bytes:
    """``base`` changed by a git delta (copy and insert instructions).

    Raises:
        Unreadable: If the delta does not fit ``base`` or makes another size than it says.
    """
    try:
        size, at = _varint(delta, 0)
        wanted, at = _varint(delta, at)
        if size != len(base):
            raise Unreadable("a delta against a base of another size")
        out = bytearray()
        while at < len(delta):
            op = delta[at]
            at += 1
            if op & 0x80:
                start = length = 0
                for bit in range(4):
                    if op & (1 << bit):
                        start |= delta[at] << (8 * bit)
                        at += 1
                for bit in range(3):
                    if op & (0x10 << bit):
                        length |= delta[at] << (8 * bit)
                        at += 1
                length = length or 0x10000
                if start + length > len(base):
                    raise Unreadable("a delta copies past its base")
                out += base[start : start + length]
            elif op:
                out += delta[at : at + op]
                at += op
            else:
                raise Unreadable("a delta with a reserved instruction")
    except IndexError:
        raise Unreadable("a delta cut short") from None
    if len(out) != wanted:
        raise Unreadable("a delta that makes another size than it says")
    return bytes(out)
