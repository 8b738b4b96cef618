"""The two forms of a ledger object: raw (ledger 1) and keyed (ledger 2), and their names.

An object holds one file version stored in full. Ledger 1 wrote it **raw**: the
version's bytes exactly, at ``objects/ab/<other 62 hex>``. That made a snapshot that
deletes (or renames) a file still at its baseline version add, in the same git commit,
a file with the deleted file's very bytes; git's rename detection (exact renames, then
similarity above 50 %, which ``git merge`` uses by default) pairs the two, and a
teammate's edit of the deleted file was merged *into the object* (a clean merge, a
corrupt ledger, the edit gone from the workspace).

Ledger 2 writes the **keyed** form, at ``objects/ab/<other 62 hex>.x``: a header line
naming the content hash, then the content with every byte value replaced through a
table, a permutation of the 256 byte values that is one single 256-cycle, shuffled by
SHAKE-256 (FIPS 202) keyed by that hash. A cycle through all 256 values has no fixed
point, so every byte of the content changes (3 MiB of zeros is not zeros), and no
short cycle (no two byte values swap): no chunk of git's similarity hash is common to an
object and the work file it copies, and git pairs the two neither as a rename nor by
similarity. Keyed by the content hash, so no one
can choose a file to match its own table (the table depends on the file's hash) and two
similar versions of a file get unrelated tables (git pairs no object with the next
version's when a forget deletes one and adds the other). A bijection on byte values
keeps what deflate finds: equal substrings stay equal and a Huffman code is only
permuted, so git stores an object about as compressed as the content itself. The
shuffle is fixed by specification (SHAKE-256 and a sort; no zlib, whose output differs
between builds), so two clones storing one content write the same file, and
``bytes.translate`` runs at C speed with nothing to inflate (an object is its content's
size plus the header). The header holds the hash too, so no fixed line is common to
every object and to some work file.
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
    """Ledger 2: a header line, then the content through its keyed byte table."""


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

    One block (1 MiB) of the result is held at a time besides ``content``.
    """
    yield header(hash_)
    table = _table(hash_)
    for start in range(0, len(content), _BLOCK):
        yield content[start : start + _BLOCK].translate(table)


def decode(hash_: str, data: bytes) -> bytes:
    """The content a keyed object file's bytes ``data`` hold; the caller checks its hash.

    Raises:
        ObjectFormError: If the header is not the one of ``hash_``.
    """
    first = header(hash_)
    if not data.startswith(first):
        raise ObjectFormError(f"its first line is not {first[:-1].decode()!r}")
    table = _table(hash_)
    inverse = bytearray(256)
    for value in range(256):
        inverse[table[value]] = value
    return data[len(first) :].translate(inverse)


def _table(hash_: str) -> bytes:
    """The byte table of the content hashed ``hash_``: one cycle through all 256 values.

    Each value's sort key is two bytes of SHAKE-256 (the value itself breaks a tie), so
    the order is a keyed shuffle; each value maps to the next one in it, the last to
    the first.
    """
    stream = hashlib.shake_256(_KEY + bytes.fromhex(hash_.partition(":")[2])).digest(512)
    order = sorted(range(256), key=lambda value: (stream[2 * value : 2 * value + 2], value))
    table = bytearray(256)
    for position, value in enumerate(order):
        table[value] = order[(position + 1) % 256]
    return bytes(table)
