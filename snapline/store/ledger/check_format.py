"""The record of one ``snapline guard`` run: which snapshot was checked, how, and the outcome.

A check record is a ledger file of its own, ``checks/<time>-<id>.check``, written once
and never rewritten, so that the outcome travels with the history through git (a team
sees which snapshots passed) and two clones never choose the same name::

    snapline check 1
    snapshot 12 3f2a9c0b5e1d4c7a9b8e6f5d4c3b2a19
    time 2026-11-23T05:48:11.123456+00:00
    exit 1
    command ["python", "-m", "pytest", "-q"]
    session "s1"

``snapshot N ID``: the snapshot whose files were checked, by number and id (the id
decides: numbers repeat across lines). ``exit``: the check's exit code, a signal as a
shell reports it (128 + its number); the check passed when it is 0. ``command``: the
command line as a JSON list of strings. ``session``: only when given. Strict and
canonical like every ledger file: UTF-8, LF line ends, a final LF,
``render(parse(data)) == data``. Records live apart from the snapshot files, in their
own folder, which a reader that does not know them never lists: the layout's version
(``ledger/FORMAT``) stays 1.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from snapline.store.ledger.fields import (
    dump_string,
    format_id,
    format_number,
    format_time,
    parse_id,
    parse_number,
    parse_string,
    parse_time,
    parse_timed_name,
    timed_name,
)
from snapline.store.ledger.lines import (
    LedgerFormatError,
    check_canonical,
    encode_lines,
    read_record,
)

__all__ = [
    "CHECK_SUFFIX",
    "CheckRecord",
    "check_name",
    "parse_check",
    "parse_check_name",
    "render_check",
]

CHECK_SUFFIX = ".check"
"""How a check record's file name ends."""

_MAGIC = "snapline check "
_VERSION = 1


@dataclass(frozen=True)
class CheckRecord:
    """One check of one snapshot, as its ledger file holds it.

    Attributes:
        number: The snapshot checked.
        snapshot_id: Its id.
        time: When the check ended (ISO 8601, UTC, as snapshots store it).
        exit_code: The check's exit code (128 + N for a signal N); 0 is a pass.
        command: The command line, one string per argument.
        session: The agent session or person that ran it, if given.
    """

    number: int
    snapshot_id: str
    time: str
    exit_code: int
    command: tuple[str, ...]
    session: str | None = None


def check_name(time: str, id_: str) -> str:
    """The file name of a check record (``fields.timed_name``), by its time and a fresh id.

    Raises:
        ValueError: If the time or the id cannot be written.
    """
    return timed_name(time, id_, ".check")


def parse_check_name(name: str) -> tuple[str, str]:
    """The compact time and the id a check record's name gives.

    Raises:
        LedgerFormatError: If ``name`` is not what :func:`check_name` writes.
    """
    return parse_timed_name(name, ".check")


def render_check(record: CheckRecord) -> bytes:
    """The file for a check record.

    Raises:
        ValueError: If it cannot be written (a programming error): no command, a
            negative exit code, a bad time or id.
    """
    if not record.command:
        raise ValueError("a check record names its command")
    lines = [
        f"{_MAGIC}{_VERSION}",
        f"snapshot {format_number(record.number)} {format_id(record.snapshot_id)}",
        f"time {format_time(record.time)}",
        f"exit {format_number(record.exit_code)}",
        f"command {_dump_command(record.command)}",
    ]
    if record.session is not None:
        lines.append(f"session {dump_string(record.session)}")
    return encode_lines(lines)


def parse_check(data: bytes) -> CheckRecord:
    """Read a check record, refusing anything :func:`render_check` would not write.

    Raises:
        LedgerFormatError: If the file is not a check record, with the line.
    """
    lines, reader = read_record(data, _MAGIC, _VERSION, "check record")
    number, snapshot_id = reader.field("snapshot", _parse_snapshot, "N ID")
    time = reader.field("time", parse_time, "TIME")
    exit_code = reader.field("exit", parse_number, "N")
    command = reader.field("command", _parse_command, "[JSON strings]")
    session = None
    if reader.peek() is not None:
        session = reader.field("session", parse_string, '"ID"')
    reader.end()
    record = CheckRecord(number, snapshot_id, time, exit_code, command, session)
    check_canonical(lines, lambda: render_check(record))
    return record


def _parse_snapshot(text: str, line: int) -> tuple[int, str]:
    number, _, id_ = text.partition(" ")
    return parse_number(number, line), parse_id(id_, line)


def _dump_command(command: tuple[str, ...]) -> str:
    # Each argument spelled as every ledger string is: raw UTF-8 where it can be.
    return "[" + ", ".join(dump_string(word) for word in command) + "]"


def _parse_command(text: str, line: int) -> tuple[str, ...]:
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        raise LedgerFormatError(line, f"not a JSON list: {text!r:.80}") from None
    if not isinstance(value, list) or not value or not all(isinstance(w, str) for w in value):
        raise LedgerFormatError(line, f"not a non-empty JSON list of strings: {text!r:.80}")
    command = tuple(value)
    if _dump_command(command) != text:
        raise LedgerFormatError(line, f"not in canonical form: {text!r:.80}")
    return command
