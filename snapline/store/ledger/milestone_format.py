"""A milestone to its ledger file and back: strict, and one spelling per value.

The file (UTF-8, LF line ends)::

    snapline milestone 1
    number 3
    first 4
    last 7
    last-id 3f2a...
    time 2026-11-23T05:48:11.123456+00:00
    title "second"
    description ""
    tags ["v1"]
    chain sha256:...

``last-id`` is the id of snapshot ``last``: it anchors the milestone to one line of
history when two lines share numbers. Its name carries a hash of its bytes, so two
branches that each create milestone 3 make two files, never one.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import NamedTuple

from snapline.store.ledger.fields import (
    dump_string,
    format_hash,
    format_id,
    format_json_line,
    format_number,
    format_time,
    json_line_problem,
    numbered_name,
    parse_hash,
    parse_id,
    parse_number,
    parse_numbered_name,
    parse_string,
    parse_time,
)
from snapline.store.ledger.lines import (
    LedgerFormatError,
    check_canonical,
    encode_lines,
    read_record,
)
from snapline.store.rows import MilestoneRow

__all__ = [
    "MILESTONE_SUFFIX",
    "MilestoneRecord",
    "milestone_name",
    "parse_milestone",
    "parse_milestone_name",
    "render_milestone",
]

MILESTONE_SUFFIX = ".mile"
"""How a milestone file's name ends."""

# snapline.milestones.MILESTONE_VERSION; the store layer may not import it.
_VERSION = 1
_MAGIC = "snapline milestone "
_NAME = re.compile(r"([0-9]{8,19})-([0-9a-f]{16})\.mile")


class MilestoneRecord(NamedTuple):
    """What one milestone file holds.

    Attributes:
        row: The milestone.
        last_id: The id of snapshot ``row.last``, which anchors it to one line.
    """

    row: MilestoneRow
    last_id: str


def milestone_name(number: int, data: bytes) -> str:
    """The file name of a milestone: ``00000003-<16 hex of sha256(data)>.mile``.

    Args:
        number: The milestone's number.
        data: The file's bytes.

    Raises:
        ValueError: If the number cannot be written.
    """
    digest = hashlib.sha256(data).hexdigest()[:16]
    return numbered_name(number, digest, MILESTONE_SUFFIX)


def parse_milestone_name(name: str) -> tuple[int, str]:
    """The number and the 16-hex digest a milestone file's name gives.

    Raises:
        LedgerFormatError: If ``name`` is not exactly what :func:`milestone_name` writes.
    """
    return parse_numbered_name(name, _NAME, "milestone")


def render_milestone(row: MilestoneRow, last_id: str) -> bytes:
    """The milestone file for a milestone as the index holds it.

    Args:
        row: The milestone.
        last_id: The id of snapshot ``row.last``.

    Returns:
        The file's bytes.

    Raises:
        ValueError: If the row cannot be written (a programming error): another format
            version, ``first > last``, values out of range, tags not a list of strings.
    """
    if row.version != _VERSION:
        raise ValueError(f"the ledger writes milestone format {_VERSION}, not {row.version}")
    if row.first > row.last:
        raise ValueError(f"milestone {row.number} covers {row.first} to {row.last}")
    if _tags_problem(row.tags) is not None:
        raise ValueError(f"the ledger cannot write the tags {row.tags!r:.80}")
    lines = [
        f"{_MAGIC}{row.version}",
        f"number {format_number(row.number)}",
        f"first {format_number(row.first)}",
        f"last {format_number(row.last)}",
        f"last-id {format_id(last_id)}",
        f"time {format_time(row.time)}",
        f"title {dump_string(row.title)}",
        f"description {dump_string(row.description)}",
        f"tags {format_json_line(row.tags, list)}",
        f"chain {format_hash(row.chain_hash)}",
    ]
    return encode_lines(lines)


def parse_milestone(data: bytes) -> MilestoneRecord:
    """Read a milestone file, refusing anything :func:`render_milestone` would not write.

    Args:
        data: The file's bytes (the caller bounds their size before reading).

    Returns:
        The milestone and the id of its last snapshot.

    Raises:
        LedgerFormatError: If the file is not in the ledger format, with the line.
    """
    lines, reader = read_record(data, _MAGIC, _VERSION, "milestone format")
    number = reader.field("number", parse_number, "N")
    first = reader.field("first", parse_number, "N")
    last = reader.field("last", parse_number, "N")
    if first > last:
        raise reader.fail(f"the milestone ends ({last}) before it starts ({first})")
    last_id = reader.field("last-id", parse_id, "ID")
    time = reader.field("time", parse_time, "TIME")
    title = reader.field("title", parse_string, '"TITLE"')
    description = reader.field("description", parse_string, '"DESCRIPTION"')
    tags = reader.field("tags", _parse_tags, "[...]")
    chain_hash = reader.field("chain", parse_hash, "sha256:HASH")
    reader.end()
    row = MilestoneRow(
        number, title, description, tags, time, first, last, _VERSION, chain_hash
    )  # fmt: skip
    check_canonical(lines, lambda: render_milestone(row, last_id))
    return MilestoneRecord(row, last_id)


def _parse_tags(text: str, line: int) -> str:
    problem = _tags_problem(text)
    if problem is not None:
        raise LedgerFormatError(line, f"tags {text!r:.80}: {problem}")
    return text


def _tags_problem(text: str) -> str | None:
    problem = json_line_problem(text, list)
    if problem is None and not all(isinstance(tag, str) for tag in json.loads(text)):
        return "not a JSON list of strings"
    return problem
