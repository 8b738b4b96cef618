"""Rows to the ledger's text files and back: strict, and one spelling per value.

A snapshot file holds one :class:`~snapline.store.rows.SnapshotRow` and its changes; a
milestone file (:mod:`snapline.store.ledger.milestone_format`, re-exported here) one
:class:`~snapline.store.rows.MilestoneRow`. Both are UTF-8 with LF line ends, written
once and read by the index rebuild, so parsing refuses anything the renderer would not
have written, with the line number: ``render(parse(data)) == data`` for every file
that parses, and a hand edit shows as an error rather than as a different history.
The layout (issue 13) is a header of ``key value`` lines, then a
blank line and one block per change, its deltas as op lines
(:mod:`snapline.store.ledger.deltas`).
"""

from __future__ import annotations

import json
import re
import zlib
from collections.abc import Iterable, Iterator
from typing import NamedTuple

from snapline.content import MAX_DELTA_BYTES, tombstone_digest, unpack
from snapline.store.ledger.deltas import render_delta_lines
from snapline.store.ledger.fields import (
    FORGOTTEN,
    KINDS,
    STORAGES,
    dump_string,
    format_hash,
    format_id,
    format_json_line,
    format_mode,
    format_number,
    format_path,
    format_time,
    is_id,
    numbered_name,
    parse_hash,
    parse_id,
    parse_json_list,
    parse_json_object,
    parse_number,
    parse_numbered_name,
    parse_string,
    parse_time,
)
from snapline.store.ledger.lines import LedgerFormatError, LineReader, encode_lines, split_lines
from snapline.store.ledger.milestone_format import (
    MILESTONE_SUFFIX,
    MilestoneRecord,
    milestone_name,
    parse_milestone,
    parse_milestone_name,
    render_milestone,
)
from snapline.store.rows import ChangeRow, SnapshotRow

__all__ = [
    "MILESTONE_SUFFIX",
    "SNAPSHOT_SUFFIX",
    "LedgerFormatError",
    "MilestoneRecord",
    "SnapshotRecord",
    "milestone_name",
    "parse_milestone",
    "parse_milestone_name",
    "parse_snapshot",
    "parse_snapshot_lines",
    "parse_snapshot_name",
    "render_milestone",
    "render_snapshot",
    "render_snapshot_parts",
    "snapshot_name",
]

SNAPSHOT_SUFFIX = ".snap"
"""How a snapshot file's name ends."""

_SNAPSHOT_NAME = re.compile(r"([0-9]{8,19})-([0-9a-f]{32})\.snap")
_DIRECTIONS = ("forward", "reverse")
_VERSION = 2
_HEX64 = re.compile(r"[0-9a-f]{64}")
_MAGIC = "snapline snapshot "


class SnapshotRecord(NamedTuple):
    """What one snapshot file holds, ready for the index.

    Attributes:
        row: The snapshot.
        changes: Its changes in path order, ``snapshot`` set to ``row.number`` and the
            deltas packed (:func:`snapline.content.pack`) as the index keeps them; a
            forgotten delta is its tombstone (:func:`snapline.content.tombstone`).
    """

    row: SnapshotRow
    changes: tuple[ChangeRow, ...]


def snapshot_name(number: int, id_: str) -> str:
    """The file name of a snapshot: ``00000012-<id>.snap``.

    Two lines of history that each record snapshot 12 make two names, never one.

    Raises:
        ValueError: If the number or the id cannot be written.
    """
    if not is_id(id_):
        raise ValueError(f"not a snapshot id: {id_!r}")
    return numbered_name(number, id_, SNAPSHOT_SUFFIX)


def parse_snapshot_name(name: str) -> tuple[int, str]:
    """The number and id a snapshot file's name gives.

    Raises:
        LedgerFormatError: If ``name`` is not exactly what :func:`snapshot_name` writes.
    """
    return parse_numbered_name(name, _SNAPSHOT_NAME, "snapshot")


def render_snapshot(row: SnapshotRow, changes: Iterable[ChangeRow]) -> bytes:
    """The snapshot file for a snapshot and its changes, as the index holds them.

    A forgotten delta (``snapline forget``) is a tombstone in the index and the line
    ``  forward forgotten sha256:<hex>`` here: the SHA-256 of the delta's text, which
    the chain hash covers, so the chain still verifies without the text.

    Args:
        row: The snapshot.
        changes: Its changes (their deltas packed, or tombstones), in any order.

    Returns:
        The file's bytes.

    Raises:
        ValueError: If the rows cannot be written (a programming error): values out of
            range, inconsistent pairs, a change of another snapshot, two changes to a
            path, a tombstone without a SHA-256 hex digest.
    """
    ordered = sorted(changes, key=lambda change: change.path)
    return b"".join(render_snapshot_parts(row, ordered))


def render_snapshot_parts(row: SnapshotRow, changes: Iterable[ChangeRow]) -> Iterator[bytes]:
    """The bytes of :func:`render_snapshot`, piece by piece, from changes in path order.

    Args:
        row: The snapshot.
        changes: Its changes in path order (Python's order of the strings), taken one
            at a time: a baseline's file, tens of megabytes, is never held whole.

    Raises:
        ValueError: As :func:`render_snapshot`, and if the changes are out of order.
    """
    yield encode_lines(_render_header(row))
    previous: str | None = None
    for change in changes:
        if change.snapshot != row.number:
            raise ValueError(f"change to {change.path!r} is of snapshot {change.snapshot}")
        if previous is None:
            yield b"\n"  # the blank line between the header and the changes
        elif change.path <= previous:
            what = "two changes to" if change.path == previous else "out of order:"
            raise ValueError(f"{what} {change.path!r}")
        previous = change.path
        yield encode_lines(_render_change(change))


def parse_snapshot(data: bytes, *, max_delta_bytes: int = MAX_DELTA_BYTES) -> SnapshotRecord:
    """Read a snapshot file, refusing anything :func:`render_snapshot` would not write.

    Args:
        data: The file's bytes (the caller bounds their size before reading).
        max_delta_bytes: The most bytes one delta text may have.

    Returns:
        The snapshot and its changes (deltas packed for the index, or tombstones).

    Raises:
        LedgerFormatError: If the file is not in the ledger format, with the line.
    """
    return parse_snapshot_lines(split_lines(data), max_delta_bytes=max_delta_bytes)


def parse_snapshot_lines(
    lines: Iterable[str], *, max_delta_bytes: int = MAX_DELTA_BYTES
) -> SnapshotRecord:
    """:func:`parse_snapshot` of a file's lines, read as the parse goes.

    Args:
        lines: The file's lines without their LF (:func:`~snapline.store.ledger.lines.
            decode_lines` of the open file: a baseline's are never all held at once).
        max_delta_bytes: The most bytes one delta text may have.

    Raises:
        LedgerFormatError: If the file is not in the ledger format, with the line.
    """
    # Lazy: the change blocks' readers (their spellings compiled) are no part of a
    # record, which only renders (issue 39).
    from snapline.store.ledger.change_block import parse_change

    reader = LineReader(lines)
    row = _parse_header(reader)
    changes: list[ChangeRow] = []
    if reader.peek() is not None:
        if reader.read("") != "":
            raise reader.fail("expected a blank line before the changes")
        if reader.peek() is None:
            # The renderer writes the blank line only before a change.
            raise reader.fail("a blank line with no change after it")
        while reader.peek() is not None:
            start = reader.number + 1
            change = parse_change(reader, row.number, max_delta_bytes)
            if changes and change.path <= changes[-1].path:
                previous = changes[-1].path
                what = "listed twice" if change.path == previous else f"after {previous!r:.80}"
                raise LedgerFormatError(start, f"changes out of order: {change.path!r:.80} {what}")
            changes.append(change)
    # No render back to compare with (a second pass over a baseline of tens of
    # megabytes): every line is parsed strictly, taking only the spelling the renderer
    # writes, so render(parse(data)) == data for every file that parses; the ledger's
    # format tests hold the two to that on random and mutated files.
    return SnapshotRecord(row, tuple(changes))


def _render_header(row: SnapshotRow) -> list[str]:
    if row.version != _VERSION:
        raise ValueError(f"the ledger writes snapshot format {_VERSION}, not {row.version}")
    if (row.parent_id is None) != (row.number == 0):
        raise ValueError(f"snapshot {row.number} has a parent iff it is not the baseline")
    lines = [
        f"{_MAGIC}{row.version}",
        f"number {format_number(row.number)}",
        f"id {format_id(row.id)}",
    ]
    if row.parent_id is not None:
        lines.append(f"parent {format_id(row.parent_id)}")
    merges = _merge_ids(row.merges)
    if merges:
        lines.append("merges " + " ".join(merges))
    lines += [f"time {format_time(row.time)}", f"tool {dump_string(row.tool)}"]
    if row.session is not None:
        lines.append(f"session {dump_string(row.session)}")
    lines.append(f"description {dump_string(row.description)}")
    lines.append(f"metadata {format_json_line(row.metadata, dict)}")
    lines.append(f"skipped {format_json_line(row.skipped, list)}")
    lines.append(f"chain {format_hash(row.chain_hash)}")
    return lines


def _parse_header(reader: LineReader) -> SnapshotRow:
    from snapline.store.ledger.change_block import next_is

    reader.header(_MAGIC, _VERSION, "snapshot format")
    number = reader.field("number", parse_number, "N")
    id_ = reader.field("id", parse_id, "ID")
    parent_id = None
    if number > 0:
        parent_id = reader.field("parent", parse_id, "ID")
    elif next_is(reader, "parent "):
        reader.read("")
        raise reader.fail("the baseline (snapshot 0) has no parent")
    merges = reader.field("merges", _parse_merges, "ID ...") if next_is(reader, "merges ") else "[]"
    time = reader.field("time", parse_time, "TIME")
    tool = reader.field("tool", parse_string, '"TOOL"')
    session = reader.field("session", parse_string) if next_is(reader, "session ") else None
    description = reader.field("description", parse_string, '"DESCRIPTION"')
    metadata = reader.field("metadata", parse_json_object, "{...}")
    skipped = reader.field("skipped", parse_json_list, "[...]")
    chain_hash = reader.field("chain", parse_hash, "sha256:HASH")
    return SnapshotRow(
        number, id_, parent_id, time, tool, description, session, metadata, skipped, _VERSION,
        chain_hash, merges,
    )  # fmt: skip


def _render_change(change: ChangeRow) -> list[str]:
    if change.kind not in KINDS or change.storage not in STORAGES:
        raise ValueError(f"change to {change.path!r}: unknown {change.kind!r}/{change.storage!r}")
    lines = [f"{change.kind} {format_path(change.path)}"]
    if change.old_path is not None:
        lines.append(f"  from {format_path(change.old_path)}")
    if (change.base_hash is None) != (change.base_mode is None):
        raise ValueError(f"change to {change.path!r} has a base hash or mode without the other")
    if change.base_hash is not None and change.base_mode is not None:
        lines.append(f"  base {format_hash(change.base_hash)} {format_mode(change.base_mode)}")
    if not (change.result_hash is None) == (change.result_mode is None) == (change.size is None):
        raise ValueError(f"change to {change.path!r} has a partial result (hash, mode, size)")
    if change.result_hash is not None and change.result_mode is not None:
        result = f"{format_hash(change.result_hash)} {format_mode(change.result_mode)}"
        lines.append(f"  result {result} {format_number(change.size or 0)}")
    chain = f"{format_number(change.chain)} {format_number(change.chain_bytes)}"
    lines.append(f"  storage {change.storage} {chain}")
    if change.content is not None:
        lines.append(f"  content {format_hash(change.content)}")
    for direction, packed in zip(_DIRECTIONS, (change.forward, change.reverse), strict=True):
        if packed is None:
            continue
        digest = tombstone_digest(packed)
        if digest is not None:
            if _HEX64.fullmatch(digest) is None:
                raise ValueError(f"change to {change.path!r}: a tombstone without a digest")
            lines.append(f"  {direction} {FORGOTTEN}{digest}")
        else:
            lines.append(f"  {direction}")
            lines.extend(render_delta_lines(_delta_text(packed)))
    return lines


def _parse_merges(text: str, line: int) -> str:
    return json.dumps([parse_id(id_, line) for id_ in text.split(" ")])


def _merge_ids(merges: str) -> list[str]:
    """The ids a row's ``merges`` names; ``json.dumps`` of them is its only spelling."""
    try:
        ids = json.loads(merges)
    except (ValueError, RecursionError):
        ids = None
    if not isinstance(ids, list) or not all(isinstance(i, str) and is_id(i) for i in ids):
        raise ValueError(f"the ledger cannot write the merges {merges!r:.80}")
    if json.dumps(ids) != merges:
        raise ValueError(f"merges not in canonical form (json.dumps): {merges!r:.80}")
    return ids


def _delta_text(packed: bytes) -> str:
    try:
        return unpack(packed, limit=MAX_DELTA_BYTES).decode("utf-8")
    except (ValueError, zlib.error) as error:
        raise ValueError(f"a delta that cannot be unpacked: {error}") from None
