"""The two forms of a ledger object: raw (ledger 1) and keyed (ledger 2), and their names.

An object holds one file version stored in full. Ledger 1 wrote it **raw**: the
version's bytes exactly, at ``objects/ab/<other 62 hex>``. That made a snapshot that
deletes (or renames) a file still at its baseline version add, in the same git commit,
a file with the deleted file's very bytes; git's rename detection (exact renames, then
similarity above 50 %, which ``git merge`` uses by default) pairs the two, and a
teammate's edit of the deleted file was merged *into the object* (a clean merge, a
corrupt ledger, the edit gone from the workspace).

Ledger 2 writes the **keyed** form, at ``objects/ab/<other 62 hex>.x``: a header line
naming the content hash, then the content XORed with a keystream drawn from SHAKE-256
(FIPS 202) keyed by that hash. The bytes look random, so git pairs an object with no
work file (none shares a chunk of git's similarity hash with it), and the keystream is
fixed by specification (no zlib, whose output differs between builds), so two clones
storing the same content write the same file. The key is the content hash rather than
one fixed stream: two similar versions of a file would otherwise give objects alike at
the same offsets, which git could pair with each other (a forget deletes one object and
adds the next version's), and no file can hold its own object's keystream. The header
holds the hash too, so no fixed line is common to every object and to some work file.
See docs/format.md, "Objects".
"""

from __future__ import annotations

import enum
import hashlib
import re
from collections.abc import Iterator

__all__ = [
    "KEYED_SUFFIX",
    "ObjectForm",
    "ObjectFormError",
    "decode",
    "encode",
    "header",
    "object_name",
    "parse_name",
    "parse_path",
]

KEYED_SUFFIX = ".x"
"""What ends the name of a keyed object; a raw object's name has no suffix."""

_BLOCK = 1 << 20
_KEY = b"snapline object 2\0"
_HEADER = b"snapline object 2 "
_REST = re.compile(r"[0-9a-f]{62}")
_FAN = re.compile(r"[0-9a-f]{2}")


class ObjectForm(enum.Enum):
    """How an object file holds its content."""

    RAW = "raw"
    """Ledger 1: the content's bytes exactly."""
    KEYED = "keyed"
    """Ledger 2: a header line, then the content XORed with its keystream."""


class ObjectFormError(ValueError):
    """An object file that is not in the form its name says (damaged or crafted)."""


def object_name(hex_: str, form: ObjectForm) -> tuple[str, str]:
    """The fan folder and file name of the object whose content hash is ``hex_``."""
    suffix = KEYED_SUFFIX if form is ObjectForm.KEYED else ""
    return hex_[:2], hex_[2:] + suffix


def parse_name(fan: str, name: str) -> tuple[str, ObjectForm] | None:
    """The content hash (``sha256:<hex>``) and form an object file's name says, or ``None``.

    Args:
        fan: The folder under ``objects/`` (two hex digits).
        name: The file's name in it.
    """
    form = ObjectForm.RAW
    if name.endswith(KEYED_SUFFIX):
        name, form = name[: -len(KEYED_SUFFIX)], ObjectForm.KEYED
    if not (_FAN.fullmatch(fan) and _REST.fullmatch(name)):
        return None
    return f"sha256:{fan}{name}", form


def parse_path(path: str) -> tuple[str, ObjectForm] | None:
    """As :func:`parse_name`, for a path under the ledger (``objects/ab/<name>``)."""
    top, _, rest = path.partition("/")
    fan, _, name = rest.partition("/")
    return parse_name(fan, name) if top == "objects" else None


def header(hash_: str) -> bytes:
    """The first line of a keyed object: ``snapline object 2 sha256:<hex>`` and a LF."""
    return _HEADER + hash_.encode("ascii") + b"\n"


def encode(hash_: str, content: bytes) -> Iterator[bytes]:
    """The bytes of the keyed object for ``content`` (whose hash is ``hash_``), in pieces.

    One keystream block (1 MiB) is held at a time besides ``content``.
    """
    yield header(hash_)
    yield from _xor_blocks(hash_, content)


def decode(hash_: str, data: bytes) -> bytes:
    """The content a keyed object file's bytes ``data`` hold; the caller checks its hash.

    Raises:
        ObjectFormError: If the header is not the one of ``hash_``.
    """
    first = header(hash_)
    if not data.startswith(first):
        raise ObjectFormError(f"its first line is not {first[:-1].decode()!r}")
    return b"".join(_xor_blocks(hash_, memoryview(data)[len(first) :]))


def _xor_blocks(hash_: str, data: bytes | memoryview) -> Iterator[bytes]:
    key = _KEY + bytes.fromhex(hash_.partition(":")[2])
    for index, start in enumerate(range(0, len(data), _BLOCK)):
        block = data[start : start + _BLOCK]
        size = len(block)
        # SHAKE-256 is an extendable-output function: the first `size` bytes of block
        # i's stream are the same whatever length is asked, so a short last block is
        # the prefix of a whole one. Whole integers make the XOR one C-speed operation.
        stream = hashlib.shake_256(key + index.to_bytes(8, "big")).digest(size)
        mixed = int.from_bytes(block, "big") ^ int.from_bytes(stream, "big")
        yield mixed.to_bytes(size, "big")
