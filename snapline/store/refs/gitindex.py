"""git's own index file read for its stat data: what the checkout wrote, per file.

``git clone`` and ``git checkout`` write each file, ``lstat`` it, and record that stat
beside the blob id in ``.git/index``; ``git status`` trusts an entry whose stat still
equals the file's, unless it is racily clean (its mtime not older than the index file's
own). :mod:`.gitstat` uses the same data to spare a fresh clone's first check from
reading the files git wrote from the very blobs a snapshot's state holds.

Read strictly, here and not through the git library (which keeps the stat data to
itself): versions 2, 3 and 4 (path compression), the trailing checksum checked. Anything
else is no answer (``None``), never a guess: an unknown version, a split index
(``link``) or a sparse one (``sdir``), a truncated or damaged file, ``GIT_INDEX_FILE``
pointing elsewhere.
"""

from __future__ import annotations

import hashlib
import os
import re
import struct
from dataclasses import dataclass
from pathlib import Path

from snapline.scanning.fingerprint import git_mode

__all__ = ["GitIndex", "IndexEntry", "read_git_index", "unchanged"]

_HEADER = struct.Struct(">4sII")
_STAT = struct.Struct(">10I")
_ASSUME_VALID = 0x8000
_EXTENDED = 0x4000
_STAGE = 0x3000
_SKIP_WORKTREE = 0x4000
_INTENT_TO_ADD = 0x2000
_UNTRUSTED_EXTENSIONS = (b"link", b"sdir")
_TREE_ROOT = re.compile(rb"\0(-?[0-9]+) [0-9]+\n")


@dataclass(frozen=True, slots=True)
class IndexEntry:
    """One stage-0 entry: the blob git wrote, and the ``lstat`` it recorded of the file.

    The stat fields are git's 32-bit ones (a larger inode or size does not equal them).
    """

    blob: str
    mode: int
    size: int
    mtime_ns: int
    ctime_ns: int
    ino: int
    dev: int


@dataclass(frozen=True, slots=True)
class GitIndex:
    """The entries git vouches for, and the index file's own ``lstat``.

    Attributes:
        entries: By path: stage 0 only, none marked assume-valid, skip-worktree or
            intent-to-add (git's stat data says nothing about those files).
        mtime_ns: The index file's mtime: git's racy rule compares entries with it.
        dev: The device the index file is on.
        tree: The tree of all its entries when git keeps it valid (the cache-tree
            extension's root: ``git write-tree`` would write it), else ``None``.
    """

    entries: dict[str, IndexEntry]
    mtime_ns: int
    dev: int
    tree: str | None = None


def read_git_index(git_dir: Path, oid_size: int) -> GitIndex | None:
    """The index of the work tree whose git directory is ``git_dir``, or ``None``.

    Args:
        git_dir: The work tree's own git directory (``.git``, ``.git/worktrees/NAME``).
        oid_size: Bytes of an object id (20 for SHA-1, 32 for SHA-256).

    Returns:
        ``None`` when there is no index, or one this reader does not vouch for.
    """
    if os.environ.get("GIT_INDEX_FILE"):
        return None  # another index than the work tree's own: git's business
    location = git_dir / "index"
    try:
        with open(location, "rb") as handle:
            info = os.fstat(handle.fileno())
            data = handle.read()
    except OSError:
        return None
    try:
        parsed = _parse(data, oid_size)
    except (struct.error, UnicodeDecodeError, IndexError, ValueError):
        return None
    if parsed is None:
        return None
    return GitIndex(parsed[0], info.st_mtime_ns, info.st_dev, parsed[1])


def unchanged(index: GitIndex, path: str, info: os.stat_result) -> IndexEntry | None:
    """The entry of ``path`` when the file whose ``lstat`` is ``info`` is what git wrote.

    git's own test (``ie_match_stat``): the entry's stat equals the file's (size, mtime,
    ctime, inode, device, the type and the x bit; size and inode on git's 32 bits), the
    file is on the index file's device, and it is not racily clean: its mtime and ctime
    are strictly older than the index file's, so no write in the same clock tick as
    git's can hide behind an equal stat.

    Args:
        index: The work tree's git index.
        path: The file's path, relative to the top of the work tree.
        info: Its ``lstat``.

    Returns:
        The entry (its blob is the file's bytes), or ``None``: read the file.
    """
    entry = index.entries.get(path)
    if (
        entry is None
        or entry.mtime_ns != info.st_mtime_ns
        or entry.ctime_ns != info.st_ctime_ns
        or entry.size != info.st_size & 0xFFFFFFFF
        or entry.ino != info.st_ino & 0xFFFFFFFF
        or entry.dev != info.st_dev & 0xFFFFFFFF
        or entry.dev != index.dev & 0xFFFFFFFF  # the racy rule reads one clock
        or entry.mode != git_mode(info)
        or max(entry.mtime_ns, entry.ctime_ns) >= index.mtime_ns
    ):
        return None
    return entry


def _parse(data: bytes, oid_size: int) -> tuple[dict[str, IndexEntry], str | None] | None:
    trailer = data[-oid_size:]
    body = data[:-oid_size]
    # index.skipHash writes a zero trailer (git 2.40): nothing to check then.
    if trailer != bytes(oid_size) and _digest(body, oid_size) != trailer:
        return None
    signature, version, count = _HEADER.unpack_from(body, 0)
    if signature != b"DIRC" or version not in (2, 3, 4):
        return None
    offset = _HEADER.size
    entries: dict[str, IndexEntry] = {}
    previous = b""
    for _ in range(count):
        start = offset
        ctime, ctime_ns, mtime, mtime_ns, dev, ino, mode, _uid, _gid, size = _STAT.unpack_from(
            body, offset
        )
        offset += _STAT.size
        blob = body[offset : offset + oid_size].hex()
        offset += oid_size
        (flags,) = struct.unpack_from(">H", body, offset)
        offset += 2
        extended = 0
        if flags & _EXTENDED:
            if version < 3:
                return None
            (extended,) = struct.unpack_from(">H", body, offset)
            offset += 2
        if version == 4:
            strip, offset = _varint(body, offset)
            end = body.index(b"\0", offset)
            if strip > len(previous):
                return None
            name = previous[: len(previous) - strip] + body[offset:end]
            offset = end + 1
        else:
            end = body.index(b"\0", offset)
            name = body[offset:end]
            # Padded with 1 to 8 NULs to a multiple of 8 bytes from the entry's start.
            offset = start + ((end - start) // 8 + 1) * 8
        previous = name
        if offset > len(body):
            return None
        if flags & (_ASSUME_VALID | _STAGE) or extended & (_SKIP_WORKTREE | _INTENT_TO_ADD):
            continue
        entries[name.decode("utf-8", "surrogateescape")] = IndexEntry(
            blob, mode, size, mtime * 1_000_000_000 + mtime_ns, ctime * 1_000_000_000 + ctime_ns,
            ino, dev,
        )  # fmt: skip
    tree = None
    while offset + 8 <= len(body):
        signature, size = struct.unpack_from(">4sI", body, offset)
        if signature in _UNTRUSTED_EXTENSIONS:
            return None  # entries live elsewhere, or whole directories stand for files
        if signature == b"TREE":
            tree = _root_tree(body[offset + 8 : offset + 8 + size], oid_size)
        offset += 8 + size
    return (entries, tree) if offset == len(body) else None


def _root_tree(data: bytes, oid_size: int) -> str | None:
    # The cache-tree's first entry is its root: an empty path, NUL, the count of entries
    # it covers and of its subtrees in ASCII, then its id unless the count is -1
    # (invalidated since: git's gitformat-index(5)).
    match = _TREE_ROOT.match(data)
    if match is None or match.group(1) == b"-1" or len(data) < match.end() + oid_size:
        return None
    return data[match.end() : match.end() + oid_size].hex()


def _varint(data: bytes, offset: int) -> tuple[int, int]:
    # git's offset encoding (varint.c): each continuation adds one before shifting.
    byte = data[offset]
    offset += 1
    value = byte & 0x7F
    while byte & 0x80:
        byte = data[offset]
        offset += 1
        value = ((value + 1) << 7) | (byte & 0x7F)
    return value, offset


def _digest(data: bytes, oid_size: int) -> bytes:
    return (hashlib.sha1 if oid_size == 20 else hashlib.sha256)(data).digest()
