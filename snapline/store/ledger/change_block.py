"""A snapshot file's change block read into a :class:`~snapline.store.rows.ChangeRow`.

The blocks are most of a snapshot file (a baseline of 100,000 files is 400,000 lines of
them), so the common shapes are read in one step (:mod:`snapline.store.ledger.spellings`)
and everything else field by field; both take only the spelling
:func:`snapline.store.ledger.format.render_snapshot` writes.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TypeVar

from snapline.content import pack, tombstone
from snapline.paths import UnsafePathError, check_recorded
from snapline.store.ledger.deltas import INDENT, parse_delta_lines
from snapline.store.ledger.fields import FORGOTTEN, KINDS, parse_hash, parse_path
from snapline.store.ledger.lines import LineReader
from snapline.store.ledger.spellings import (
    parse_base,
    parse_result,
    parse_storage,
    quick_added_full,
    quick_base,
    quick_content,
    quick_path,
    quick_result,
    quick_storage,
)
from snapline.store.rows import ChangeRow

__all__ = ["FORGOTTEN", "KINDS", "next_is", "parse_change"]

_DIRECTIONS = ("forward", "reverse")
_HEX64 = re.compile(r"[0-9a-f]{64}")
_T = TypeVar("_T")


def parse_change(reader: LineReader, snapshot: int, limit: int) -> ChangeRow:
    """Read the change block that starts at the reader's next line.

    Args:
        reader: The file's lines, at a block's first line.
        snapshot: The number of the snapshot the block belongs to.
        limit: The most bytes one delta text may have.

    Raises:
        LedgerFormatError: If the block is not in the ledger format, with the line.
    """
    quick = _baseline_block(reader, snapshot)
    if quick is not None:
        return quick
    line = reader.read("KIND PATH")
    kind, _, rest = line.partition(" ")
    if kind not in KINDS:
        raise reader.fail(f"expected a change (`{'|'.join(KINDS)} PATH`), found {line!r:.80}")
    path = quick_path(rest, reader.number)
    if path is None:
        path = parse_path(rest, reader.number)
    old_path = reader.field("  from", parse_path) if next_is(reader, "  from ") else None
    base_hash = base_mode = result_hash = result_mode = size = None
    if next_is(reader, "  base "):
        base_hash, base_mode = _line(reader, "  base", quick_base, parse_base, "HASH MODE")
    if next_is(reader, "  result "):
        result_hash, result_mode, size = _line(
            reader, "  result", quick_result, parse_result, "HASH MODE SIZE"
        )
    storage, chain, chain_bytes = _line(
        reader, "  storage", quick_storage, parse_storage, "STORAGE N N"
    )
    content = None
    if next_is(reader, "  content "):
        content = _line(reader, "  content", quick_content, parse_hash, "sha256:HASH")
    forward, reverse = (_parse_delta(reader, direction, limit) for direction in _DIRECTIONS)
    return ChangeRow(
        snapshot, path, kind, old_path, base_hash, result_hash, base_mode, result_mode, size,
        storage, forward, reverse, content, chain, chain_bytes,
    )  # fmt: skip


def _baseline_block(reader: LineReader, snapshot: int) -> ChangeRow | None:
    """A baseline's block (most of the lines a clone reads) in one step, or ``None``.

    Only a block of exactly four lines in the common spelling whose next line starts
    no other line of a change (a delta) and whose path is safe; anything else goes line
    by line, which accepts the same values and says what is wrong.
    """
    block = reader.ahead(5)
    if len(block) < 4 or (len(block) == 5 and block[4].startswith("  ")):
        return None
    found = quick_added_full(block[:4])
    if found is None:
        return None
    _, path, result, mode, size, _, chain, chain_bytes, content = found
    try:
        check_recorded(path)
    except UnsafePathError:
        return None
    reader.skip(4)
    # One string per value where the block repeats it: a baseline holds 100,000 rows.
    content = result if content == result else content
    return ChangeRow(
        snapshot, path, "added", None, None, result, None, mode, size, "full", None, None,
        content, chain, chain_bytes,
    )  # fmt: skip


def _line(
    reader: LineReader,
    key: str,
    quick: Callable[[str], _T | None],
    parse: Callable[[str, int], _T],
    shape: str,
) -> _T:
    # The next line's value: in one step when it is in its common spelling.
    value = quick(reader.peek() or "")
    if value is None:
        return reader.field(key, parse, shape)
    reader.read("")
    return value


def _parse_delta(reader: LineReader, direction: str, limit: int) -> bytes | None:
    following = reader.peek()
    if following is not None and following.startswith(f"  {direction} "):
        line = reader.read("")
        digest = line[len(direction) + 3 :]
        if not digest.startswith(FORGOTTEN) or not _HEX64.fullmatch(digest[len(FORGOTTEN) :]):
            raise reader.fail(
                f"expected `  {direction}` or `  {direction} {FORGOTTEN}HEX`, found {line!r:.80}"
            )
        return tombstone(digest[len(FORGOTTEN) :])
    if following != f"  {direction}":
        return None
    reader.read("")
    ops: list[str] = []
    while (following := reader.peek()) is not None and following.startswith(INDENT):
        ops.append(reader.read(""))
    text = parse_delta_lines(ops, reader.number - len(ops) + 1, limit)
    return pack(text.encode("utf-8"))


def next_is(reader: LineReader, prefix: str) -> bool:
    """Whether the reader's next line starts with ``prefix``."""
    following = reader.peek()
    return following is not None and following.startswith(prefix)
