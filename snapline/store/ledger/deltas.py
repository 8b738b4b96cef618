r"""A delta as op lines a reviewer can read in ``git diff``.

A delta text is diff-match-patch's ``diff_toDelta`` format: tokens joined by TAB,
``=N`` (keep N), ``-N`` (drop N) and ``+<quoted>`` (insert). In the ledger each token
is one or more lines, indented four spaces:

- ``=N`` and ``-N`` as they are;
- an insert, split after each LF: a piece that is a plain line (printable characters
  and TABs, then its LF) is written ``+`` and the line without its LF, so a changed
  line reads as itself; any other piece is ``~`` and the piece as ASCII JSON.

Consecutive ``+``/``~`` lines are one insert. A delta the op lines cannot spell exactly
(two inserts side by side, an empty token, a token of another shape) is one line, ``!``
and the whole delta text as ASCII JSON. Each delta has one spelling: the parser takes
only what the renderer would write.
"""

from __future__ import annotations

import json
import re
import threading
from collections import OrderedDict

from snapline.diffing import quote_insert, unquote_insert
from snapline.store.ledger.lines import LedgerFormatError

__all__ = ["INDENT", "parse_delta_lines", "render_delta_lines"]

INDENT = "    "
"""What starts every op line."""

_RUN = re.compile(r"[=-](?:0|[1-9][0-9]*)")


def render_delta_lines(delta: str) -> list[str]:
    """The op lines of a delta text, each with its indent and without its LF.

    Args:
        delta: A delta text (an empty text is no lines at all).

    Returns:
        The lines.
    """
    if not delta:
        return []
    with _RENDERED_LOCK:
        cached = _RENDERED.get(delta)
        if cached is not None:
            _RENDERED.move_to_end(delta)
            return list(cached)
    lines = _render(delta)
    if len(delta) <= _RENDERED_MAX_TEXT:
        with _RENDERED_LOCK:
            _RENDERED[delta] = tuple(lines)
            while len(_RENDERED) > _RENDERED_ENTRIES:
                _RENDERED.popitem(last=False)
    return lines


# A delta is often rendered twice in one process: undoing a change (a rollback and its
# rollback) records that change's deltas swapped (record/build.py). Rendering is a pure
# function of the text, so the last few renderings are kept (measured: a rollback of 100
# files spent 29% of its time rendering deltas rendered one snapshot before).
_RENDERED: OrderedDict[str, tuple[str, ...]] = OrderedDict()
_RENDERED_LOCK = threading.Lock()
_RENDERED_ENTRIES = 512
_RENDERED_MAX_TEXT = 8 << 10


def _render(delta: str) -> list[str]:
    lines: list[str] = []
    inserted = False
    for token in delta.split("\t"):
        if _RUN.fullmatch(token):
            lines.append(INDENT + token)
            inserted = False
            continue
        text = _insert_text(token) if not inserted else None
        if text is None:
            return [INDENT + "!" + json.dumps(delta, ensure_ascii=True)]
        lines.extend(INDENT + line for line in _insert_lines(text))
        inserted = True
    return lines


def parse_delta_lines(lines: list[str], first: int, limit: int) -> str:
    """The delta text that op lines spell, taking only the canonical spelling.

    Args:
        lines: The op lines, with their indent.
        first: The 1-based line number of ``lines[0]``, for messages.
        limit: The most bytes the delta text may have.

    Returns:
        The delta text.

    Raises:
        LedgerFormatError: If a line is malformed, the delta is larger than ``limit``,
            or the lines are not the canonical spelling of their delta.
    """
    if len(lines) == 1 and lines[0].startswith(INDENT + "!"):
        delta = _whole(lines[0][len(INDENT) + 1 :], first, limit)
        if render_delta_lines(delta) != lines:
            raise LedgerFormatError(first, "not in canonical form: a `!` delta the op lines spell")
        return delta
    tokens: list[str] = []
    pieces: list[str] = []
    size = -1
    for offset, line in enumerate(lines):
        number = first + offset
        op = line[len(INDENT) : len(INDENT) + 1]
        if not line.startswith(INDENT) or op not in ("=", "-", "+", "~"):
            raise LedgerFormatError(number, f"not an op line: {line!r:.80}")
        body = line[len(INDENT) + 1 :]
        if op in "+~":
            if pieces and not pieces[-1].endswith("\n"):
                raise LedgerFormatError(number, "not in canonical form: an insert goes on")
            pieces.append(_piece(op, body, number))
            continue
        if pieces:
            size += _close_insert(tokens, pieces, number - 1)
        if _RUN.fullmatch(line[len(INDENT) :]) is None:
            raise LedgerFormatError(number, f"not an op line: {line!r:.80}")
        tokens.append(line[len(INDENT) :])
        size += len(tokens[-1]) + 1
        if size > limit:
            raise LedgerFormatError(number, f"delta larger than {limit} bytes")
    if pieces:
        size += _close_insert(tokens, pieces, first + len(lines) - 1)
    if size > limit:
        raise LedgerFormatError(first + len(lines) - 1, f"delta larger than {limit} bytes")
    return "\t".join(tokens)


def _insert_text(token: str) -> str | None:
    """The text an insert token carries, if the op lines can spell the token exactly."""
    if not token.startswith("+") or len(token) < 2:
        return None
    try:
        text = unquote_insert(token[1:])
    except UnicodeDecodeError:
        return None
    # A token quoted another way (lower-case escapes, escaped safe characters) would
    # come back in quote_insert's spelling: write it whole instead.
    return text if quote_insert(text) == token[1:] else None


def _insert_lines(text: str) -> list[str]:
    pieces = text.split("\n")
    out = [piece + "\n" for piece in pieces[:-1]]
    if pieces[-1]:
        out.append(pieces[-1])
    return [
        "+" + piece[:-1] if _plain(piece) else "~" + json.dumps(piece, ensure_ascii=True)
        for piece in out
    ]


def _plain(piece: str) -> bool:
    """Whether a piece is a line that may be written as itself: printable, LF-ended."""
    # isprintable() is False for every line separator, control and surrogate, so a
    # plain line can neither split the file nor hide a character.
    return piece.endswith("\n") and piece[:-1].replace("\t", "").isprintable()


def _piece(op: str, body: str, number: int) -> str:
    if op == "+":
        piece = body + "\n"
        if not _plain(piece):
            raise LedgerFormatError(number, f"not in canonical form: {body!r:.80} is not plain")
        return piece
    piece = _json_string(body, number)
    if not piece or "\n" in piece[:-1] or _plain(piece):
        raise LedgerFormatError(number, f"not in canonical form: {body!r:.80}")
    return piece


def _json_string(body: str, number: int) -> str:
    # A string the ledger wrote as JSON: exactly as json.dumps(ensure_ascii=True) writes it.
    try:
        text = json.loads(body)
    except (ValueError, RecursionError):
        raise LedgerFormatError(number, f"not a JSON string: {body!r:.80}") from None
    if not isinstance(text, str) or json.dumps(text, ensure_ascii=True) != body:
        raise LedgerFormatError(number, f"not in canonical form: {body!r:.80}")
    return text


def _close_insert(tokens: list[str], pieces: list[str], number: int) -> int:
    """Turn the pieces read into one insert token; returns the bytes it adds."""
    try:
        quoted = quote_insert("".join(pieces))
    except UnicodeEncodeError:
        raise LedgerFormatError(number, "an insert holds a lone surrogate (not UTF-8)") from None
    pieces.clear()
    tokens.append("+" + quoted)
    return len(quoted) + 2


def _whole(body: str, number: int, limit: int) -> str:
    delta = _json_string(body, number)
    try:
        size = len(delta.encode("utf-8"))
    except UnicodeEncodeError:
        raise LedgerFormatError(number, "the delta holds a lone surrogate (not UTF-8)") from None
    if size > limit:
        raise LedgerFormatError(number, f"delta larger than {limit} bytes")
    return delta
