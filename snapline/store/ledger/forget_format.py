"""The record of one ``snapline forget``: which versions' content was removed, when, why.

A forget rewrites snapshot files (their forgotten deltas become tombstones) and deletes
objects, the one exception to "written once"; the act itself is a new ledger file,
``forgotten/<time>-<id>.forget``, so that a clone that pulls it knows to rebuild its
index, and so that rebuilding a forgotten version can say when and why it went::

    snapline forget 1
    time 2026-11-23T06:30:00.123456+00:00
    reason "an API key recorded by mistake"
    forgot 3 sha256:<64 hex> "config/.env"
    kept 5 sha256:<64 hex> "config/.env"

``forgot N HASH PATH``: the version of PATH with content HASH, recorded by snapshot N
(one line per version, ordered by number, path, hash). ``kept N HASH PATH``: a later
version that was a delta on top of a forgotten one, now stored in full as the object
HASH so that it stays rebuildable. Strict and canonical like the snapshot files: UTF-8,
LF line ends, a final LF, ``render(parse(data)) == data``.
"""

from __future__ import annotations

from dataclasses import dataclass

from snapline.store.ledger.fields import (
    dump_string,
    format_hash,
    format_number,
    format_path,
    format_time,
    parse_hash,
    parse_number,
    parse_path,
    parse_string,
    parse_time,
    parse_timed_name,
    timed_name,
)
from snapline.store.ledger.lines import (
    LedgerFormatError,
    LineReader,
    check_canonical,
    encode_lines,
    read_record,
)

__all__ = [
    "FORGET_SUFFIX",
    "ForgetRecord",
    "ForgottenVersion",
    "forget_name",
    "parse_forget",
    "parse_forget_name",
    "render_forget",
]

FORGET_SUFFIX = ".forget"
"""How a forget record's file name ends."""

_MAGIC = "snapline forget "
_VERSION = 1


@dataclass(frozen=True, order=True)
class ForgottenVersion:
    """One version named by a forget record.

    Attributes:
        number: The snapshot that recorded it.
        path: The file.
        hash: Its content hash.
    """

    number: int
    path: str
    hash: str


@dataclass(frozen=True)
class ForgetRecord:
    """What one ``snapline forget`` did.

    Attributes:
        time: When (ISO 8601, UTC, as snapshots store it).
        reason: Why, as the user said.
        forgot: The versions whose content was removed, ordered.
        kept: Later versions now stored in full (their objects), ordered.
    """

    time: str
    reason: str
    forgot: tuple[ForgottenVersion, ...]
    kept: tuple[ForgottenVersion, ...] = ()


def forget_name(time: str, id_: str) -> str:
    """The file name of a forget record (``fields.timed_name``), by its time and a fresh id.

    Raises:
        ValueError: If the time or the id cannot be written.
    """
    return timed_name(time, id_, FORGET_SUFFIX)


def parse_forget_name(name: str) -> tuple[str, str]:
    """The compact time and the id a forget record's name gives.

    Raises:
        LedgerFormatError: If ``name`` is not what :func:`forget_name` writes.
    """
    return parse_timed_name(name, FORGET_SUFFIX)


def render_forget(record: ForgetRecord) -> bytes:
    """The file for a forget record.

    Raises:
        ValueError: If it cannot be written (a programming error): no version, versions
            out of order or repeated, a bad time, hash or path.
    """
    if not record.forgot:
        raise ValueError("a forget record names at least one version")
    lines = [
        f"{_MAGIC}{_VERSION}",
        f"time {format_time(record.time)}",
        f"reason {dump_string(record.reason)}",
    ]
    for key, versions in (("forgot", record.forgot), ("kept", record.kept)):
        if list(versions) != sorted(set(versions)):
            raise ValueError(f"{key} versions out of order or repeated")
        lines.extend(
            f"{key} {format_number(v.number)} {format_hash(v.hash)} {format_path(v.path)}"
            for v in versions
        )
    return encode_lines(lines)


def parse_forget(data: bytes) -> ForgetRecord:
    """Read a forget record, refusing anything :func:`render_forget` would not write.

    Raises:
        LedgerFormatError: If the file is not a forget record, with the line.
    """
    lines, reader = read_record(data, _MAGIC, _VERSION, "forget record")
    time = reader.field("time", parse_time, "TIME")
    reason = reader.field("reason", parse_string, '"REASON"')
    forgot = _versions(reader, "forgot")
    kept = _versions(reader, "kept")
    reader.end()
    if not forgot:
        raise LedgerFormatError(reader.number, "a forget record names no version")
    record = ForgetRecord(time, reason, tuple(forgot), tuple(kept))
    check_canonical(lines, lambda: render_forget(record))
    return record


def _versions(reader: LineReader, key: str) -> list[ForgottenVersion]:
    versions: list[ForgottenVersion] = []
    while (following := reader.peek()) is not None and following.startswith(key + " "):
        version = reader.field(key, _parse_version, "N HASH PATH")
        if versions and version <= versions[-1]:
            raise reader.fail(f"{key} versions out of order (by number, path, hash) or repeated")
        versions.append(version)
    return versions


def _parse_version(text: str, line: int) -> ForgottenVersion:
    parts = text.split(" ", 2)
    if len(parts) != 3:
        raise LedgerFormatError(line, f"expected `N HASH PATH`, found {text!r:.80}")
    number = parse_number(parts[0], line)
    return ForgottenVersion(number, parse_path(parts[2], line), parse_hash(parts[1], line))
