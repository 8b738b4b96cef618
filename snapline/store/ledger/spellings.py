"""The common spellings of a change block's lines, each matched in one step.

A baseline of 100,000 files is 400,000 lines of path, result, storage and content. A
line in its common form (a path without escapes, lowercase hashes, numbers short enough
to stay below ``2**63`` by their digit count) is read here with one regular expression;
anything else returns ``None`` and goes through the field parsers of
:mod:`snapline.store.ledger.fields`, which accept the same values and say what is wrong.
Both accept exactly one spelling per value.
"""

from __future__ import annotations

import re

from snapline.paths import UnsafePathError, check_recorded
from snapline.store.ledger.fields import STORAGES, parse_hash, parse_mode, parse_number
from snapline.store.ledger.lines import LedgerFormatError

__all__ = [
    "STORAGES",
    "parse_base",
    "parse_result",
    "parse_storage",
    "quick_added_full",
    "quick_base",
    "quick_content",
    "quick_path",
    "quick_result",
    "quick_storage",
]

# A JSON string of printable ASCII without quotes or backslashes is its own spelling.
_PLAIN_PATH = re.compile(r'"([ !#-\[\]-~]+)"')
_HASH = r"(sha256:[0-9a-f]{64})"
_MODE = r"(0|[1-7][0-7]{0,19})"
_SIZE = r"(0|[1-9][0-9]{0,17})"
_BASE = re.compile(f"  base {_HASH} {_MODE}")
_RESULT = re.compile(f"  result {_HASH} {_MODE} {_SIZE}")
_STORAGE = re.compile(f"  storage (delta|full|none|hash-only) {_SIZE} {_SIZE}")
_CONTENT = re.compile(f"  content {_HASH}")
# A baseline's block: a file added, its result, stored in full, its content; the lines
# of quick_path, quick_result, quick_storage and quick_content, joined by LF.
_ADDED_FULL = re.compile(
    '(added) "([ !#-\\[\\]-~]+)"\n'
    f"  result {_HASH} {_MODE} {_SIZE}\n"
    f"  storage (full) {_SIZE} {_SIZE}\n"
    f"  content {_HASH}"
)


def quick_path(text: str, line: int) -> str | None:
    """A path written without escapes, checked for safety; ``None`` for any other text.

    Raises:
        LedgerFormatError: If it is plain but unsafe (``..``, absolute, the store).
    """
    match = _PLAIN_PATH.fullmatch(text)
    if match is None:
        return None
    try:
        return check_recorded(match[1])
    except UnsafePathError as error:
        raise LedgerFormatError(line, f"path {match[1]!r:.80} is unsafe: {error.reason}") from None


def quick_added_full(
    lines: list[str],
) -> tuple[str, str, str, int, int, str, int, int, str] | None:
    """A baseline's four-line block in its common spelling, or ``None``.

    Returns:
        ``(kind, path, result hash, mode, size, storage, chain, chain bytes, content)``,
        the path unchecked for safety (the caller checks it).
    """
    match = _ADDED_FULL.fullmatch("\n".join(lines))
    if match is None:
        return None
    kind, path, result, mode, size, storage, chain, chain_bytes, content = match.groups()
    return (
        kind, path, result, int(mode, 8), int(size), storage, int(chain), int(chain_bytes),
        content,
    )  # fmt: skip


def quick_base(line: str) -> tuple[str, int] | None:
    """``  base HASH MODE`` as ``(hash, mode)``, or ``None``."""
    match = _BASE.fullmatch(line)
    return None if match is None else (match[1], int(match[2], 8))


def quick_result(line: str) -> tuple[str, int, int] | None:
    """``  result HASH MODE SIZE`` as ``(hash, mode, size)``, or ``None``."""
    match = _RESULT.fullmatch(line)
    return None if match is None else (match[1], int(match[2], 8), int(match[3]))


def quick_storage(line: str) -> tuple[str, int, int] | None:
    """``  storage STORAGE N N`` as ``(storage, chain, chain_bytes)``, or ``None``."""
    match = _STORAGE.fullmatch(line)
    return None if match is None else (match[1], int(match[2]), int(match[3]))


def quick_content(line: str) -> str | None:
    """``  content HASH`` as the hash, or ``None``."""
    match = _CONTENT.fullmatch(line)
    return None if match is None else match[1]


def parse_base(text: str, line: int) -> tuple[str, int]:
    """``HASH MODE`` in any spelling: the exact check, naming what is wrong.

    Raises:
        LedgerFormatError: If it is not one.
    """
    parts = text.split(" ")
    if len(parts) != 2:
        raise LedgerFormatError(line, f"expected `HASH MODE`, found {text!r:.80}")
    return parse_hash(parts[0], line), parse_mode(parts[1], line)


def parse_result(text: str, line: int) -> tuple[str, int, int]:
    """``HASH MODE SIZE``, checked exactly.

    Raises:
        LedgerFormatError: If it is not one.
    """
    parts = text.split(" ")
    if len(parts) != 3:
        raise LedgerFormatError(line, f"expected `HASH MODE SIZE`, found {text!r:.80}")
    return parse_hash(parts[0], line), parse_mode(parts[1], line), parse_number(parts[2], line)


def parse_storage(text: str, line: int) -> tuple[str, int, int]:
    """``STORAGE N N``, checked exactly.

    Raises:
        LedgerFormatError: If it is not one.
    """
    parts = text.split(" ")
    if len(parts) != 3 or parts[0] not in STORAGES:
        raise LedgerFormatError(line, f"expected `{'|'.join(STORAGES)} N N`, found {text!r:.80}")
    return parts[0], parse_number(parts[1], line), parse_number(parts[2], line)
