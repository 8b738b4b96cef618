"""The values of ledger fields: each with one spelling, checked both ways.

``parse_*`` read a value from a line (and raise :class:`LedgerFormatError` with the
line number); ``format_*`` check a value from the index before it is written (and raise
``ValueError``: a row the ledger cannot write is a programming error, not user input).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from json.encoder import encode_basestring, encode_basestring_ascii

from snapline.hashing import is_hash
from snapline.paths import UnsafePathError, check_recorded
from snapline.store.ledger.lines import LedgerFormatError

__all__ = [
    "FORGOTTEN",
    "KINDS",
    "STORAGES",
    "dump_string",
    "format_hash",
    "format_id",
    "format_json_line",
    "format_mode",
    "format_number",
    "format_path",
    "format_time",
    "is_id",
    "json_line_problem",
    "numbered_name",
    "parse_hash",
    "parse_id",
    "parse_json_list",
    "parse_json_object",
    "parse_mode",
    "parse_number",
    "parse_numbered_name",
    "parse_path",
    "parse_string",
    "parse_time",
    "parse_timed_name",
    "timed_name",
]

KINDS = ("added", "modified", "deleted", "renamed")
"""What a change block starts with."""
FORGOTTEN = "forgotten sha256:"
"""How a forgotten delta's line goes on after its direction."""
STORAGES = ("delta", "full", "none", "hash-only")
"""How a change's new version is kept."""

_NUMBER = re.compile(r"0|[1-9][0-9]{0,18}")
_ID = re.compile(r"[0-9a-f]{32}")
_LIMIT = 2**63
_MODE = re.compile(r"[0-7]{1,21}")
# As stored (isoformat() of a UTC time); [0-9], not \d, which takes any Unicode digit.
# A JSON string of printable ASCII without quotes or backslashes is its own spelling,
# and its value is what stands between the quotes.
_PLAIN_STRING = re.compile(r'"([ !#-\[\]-~]*)"')
_EMPTY_JSON: dict[type, str] = {dict: "{}", list: "[]"}
_TIME = re.compile(
    r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,6})?(\+00:00|Z)?"
)


def format_number(value: int) -> str:
    """A number as the ledger writes it, refusing one it cannot.

    Raises:
        ValueError: If it is negative or not below ``2**63``.
    """
    if isinstance(value, bool) or not 0 <= value < _LIMIT:
        raise ValueError(f"the ledger cannot write the number {value!r}")
    return str(value)


def parse_number(text: str, line: int) -> int:
    """A canonical decimal number in ``[0, 2**63)``.

    Raises:
        LedgerFormatError: If ``text`` is anything else.
    """
    if _NUMBER.fullmatch(text) is None or int(text) >= _LIMIT:
        raise LedgerFormatError(line, f"not a canonical number: {text!r:.40}")
    return int(text)


def is_id(text: str) -> bool:
    """Whether ``text`` is a snapshot id: 32 lowercase hex digits (``uuid4().hex``)."""
    return _ID.fullmatch(text) is not None


def parse_id(text: str, line: int) -> str:
    """A snapshot id.

    Raises:
        LedgerFormatError: If ``text`` is not 32 lowercase hex digits.
    """
    if not is_id(text):
        raise LedgerFormatError(line, f"not a snapshot id (32 lowercase hex digits): {text!r:.40}")
    return text


def parse_hash(text: str, line: int) -> str:
    """A content hash, ``sha256:<64 hex>``.

    Raises:
        LedgerFormatError: If ``text`` is not one.
    """
    # is_hash accepts upper-case hex; the ledger spells a hash one way only.
    if not is_hash(text) or text != text.lower():
        raise LedgerFormatError(line, f"not a sha256 hash: {text!r:.80}")
    return text


def dump_string(value: str) -> str:
    """A string as one line of JSON, the one spelling the ledger accepts.

    Raw UTF-8 where possible (a readable ``git diff``); ASCII escapes when the string
    holds a lone surrogate (a file name that is not UTF-8), which UTF-8 cannot carry.
    """
    # What json.dumps(value, ensure_ascii=False / True) return, without building an
    # encoder per call: a baseline writes and reads a hundred thousand of these.
    if value.isascii():
        return encode_basestring_ascii(value)
    text = encode_basestring(value)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return encode_basestring_ascii(value)
    return text


def parse_string(text: str, line: int) -> str:
    """A JSON string written by :func:`dump_string`.

    Raises:
        LedgerFormatError: If ``text`` is not a JSON string, or not in canonical form.
    """
    plain = _PLAIN_STRING.fullmatch(text)
    if plain is not None:
        return plain[1]
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        raise LedgerFormatError(line, f"not a JSON string: {text!r:.80}") from None
    if not isinstance(value, str):
        raise LedgerFormatError(line, f"not a JSON string: {text!r:.80}")
    if dump_string(value) != text:
        raise LedgerFormatError(line, f"not in canonical form: {text!r:.80}")
    return value


def parse_path(text: str, line: int) -> str:
    """A recorded path: a canonical JSON string naming a safe workspace path.

    Raises:
        LedgerFormatError: If it is not a canonical JSON string or not a safe path.
    """
    path = parse_string(text, line)
    try:
        return check_recorded(path)
    except UnsafePathError as error:
        raise LedgerFormatError(line, f"path {path!r:.80} is unsafe: {error.reason}") from None


def format_json_line(text: str, kind: type) -> str:
    """Stored JSON text as it stands, verbatim, on one ledger line.

    Args:
        text: The stored text.
        kind: The type its value must have (``dict`` or ``list``).

    Raises:
        ValueError: If it spans lines, is not JSON or not of that type.
    """
    problem = json_line_problem(text, kind)
    if problem is not None:
        raise ValueError(f"the ledger cannot write {text!r:.80}: {problem}")
    return text


def _json_parser(kind: type, what: str) -> Callable[[str, int], str]:
    def parse(text: str, line: int) -> str:
        problem = json_line_problem(text, kind)
        if problem is not None:
            raise LedgerFormatError(line, f"{text!r:.80}: {problem}")
        return text

    parse.__doc__ = f"""Stored JSON text that must be {what}, verbatim.

    Raises:
        LedgerFormatError: If it is not {what}.
    """
    return parse


parse_json_object = _json_parser(dict, "a JSON object")
"""Stored JSON text that must be an object, verbatim (a field parser)."""

parse_json_list = _json_parser(list, "a JSON list")
"""Stored JSON text that must be a list, verbatim (a field parser)."""


def parse_time(text: str, line: int) -> str:
    """A time as snapline stores it: ISO 8601, UTC.

    Raises:
        LedgerFormatError: If ``text`` is not one.
    """
    if _TIME.fullmatch(text) is None:
        raise LedgerFormatError(line, f"not a UTC time (ISO 8601): {text!r:.80}")
    return text


def format_time(text: str) -> str:
    """A stored time, checked: the reader takes only what :func:`parse_time` takes.

    Raises:
        ValueError: If it is not an ISO 8601 UTC time.
    """
    if _TIME.fullmatch(text) is None:
        raise ValueError(f"the ledger cannot write the time {text!r:.80}")
    return text


def format_hash(value: str) -> str:
    """A content hash, checked.

    Raises:
        ValueError: If it is not a lowercase ``sha256:<64 hex>``.
    """
    try:
        return parse_hash(value, 0)
    except LedgerFormatError:
        raise ValueError(f"the ledger cannot write the hash {value!r:.80}") from None


def format_id(value: str) -> str:
    """A snapshot id, checked.

    Raises:
        ValueError: If it is not 32 lowercase hex digits.
    """
    if not is_id(value):
        raise ValueError(f"the ledger cannot write the snapshot id {value!r:.80}")
    return value


def parse_mode(text: str, line: int) -> int:
    """A file mode in octal, without prefix (``100644``).

    Raises:
        LedgerFormatError: If ``text`` is not a canonical octal number below ``2**63``.
    """
    if _MODE.fullmatch(text) is None or f"{int(text, 8):o}" != text or int(text, 8) >= _LIMIT:
        raise LedgerFormatError(line, f"not a canonical octal mode: {text!r:.40}")
    return int(text, 8)


def format_mode(value: int) -> str:
    """A file mode as the ledger writes it.

    Raises:
        ValueError: If it is negative or not below ``2**63``.
    """
    if isinstance(value, bool) or not 0 <= value < _LIMIT:
        raise ValueError(f"the ledger cannot write the mode {value!r}")
    return f"{value:o}"


def format_path(value: str) -> str:
    """A recorded path as the ledger writes it (a JSON string), checked.

    Raises:
        ValueError: If it is not a safe workspace path.
    """
    try:
        check_recorded(value)
    except UnsafePathError as error:
        raise ValueError(
            f"the ledger cannot write the path {value!r:.80}: {error.reason}"
        ) from None
    return dump_string(value)


def json_line_problem(text: str, kind: type) -> str | None:
    """What keeps ``text`` from standing as JSON of ``kind`` on one ledger line, or ``None``."""
    if text == _EMPTY_JSON[kind]:
        return None
    if "\n" in text:
        return "it spans lines"
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return "it is not JSON"
    if not isinstance(value, kind):
        return f"it is not a JSON {'object' if kind is dict else 'list'}"
    return None


_TIME_DIGITS = re.compile(r"(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)")
_TIMED_NAME = re.compile(r"([0-9]{8}T[0-9]{6}Z)-([0-9a-f]{32})(\.[a-z]+)")


def timed_name(time: str, id_: str, suffix: str) -> str:
    """The name of a record filed by time: ``20261123T054811Z-<id><suffix>``.

    Args:
        time: The record's time (ISO 8601, UTC).
        id_: A fresh id (32 lowercase hex), so two clones never choose the same name.
        suffix: The kind's suffix (``.check``).

    Raises:
        ValueError: If the time or the id cannot be written.
    """
    match = _TIME_DIGITS.match(format_time(time))
    if match is None or not is_id(id_):
        raise ValueError(f"cannot name a {suffix[1:]} record from {time!r}, {id_!r}")
    digits = match.groups()
    return "".join(digits[:3]) + "T" + "".join(digits[3:]) + f"Z-{id_}{suffix}"


def parse_timed_name(name: str, suffix: str) -> tuple[str, str]:
    """The compact time and the id that the name :func:`timed_name` wrote gives.

    Raises:
        LedgerFormatError: If ``name`` is not such a name with this suffix.
    """
    match = _TIMED_NAME.fullmatch(name)
    if match is None or match[3] != suffix:
        raise LedgerFormatError(None, f"not a {suffix[1:]} record name: {name!r:.80}")
    return match[1], match[2]


def numbered_name(number: int, tail: str, suffix: str) -> str:
    """The name of a record filed by number: ``00000012-<tail><suffix>``.

    Raises:
        ValueError: If the number cannot be written.
    """
    return f"{int(format_number(number)):08d}-{tail}{suffix}"


def parse_numbered_name(name: str, pattern: re.Pattern[str], kind: str) -> tuple[int, str]:
    """The number and the tail of a name :func:`numbered_name` wrote.

    Args:
        name: The file's name.
        pattern: Its kind's names: the number's digits, then the tail, as groups.
        kind: What it names (``snapshot``), for the message.

    Raises:
        LedgerFormatError: If ``name`` is not exactly such a name (the number written
            with at least 8 digits, no more zeros in front, below 2**63).
    """
    match = pattern.fullmatch(name)
    if match is None or int(match[1]) >= 2**63 or f"{int(match[1]):08d}" != match[1]:
        raise LedgerFormatError(None, f"not a {kind} file name: {name!r:.80}")
    return int(match[1]), match[2]
