r"""Line-mode text deltas with diff-match-patch.

A delta is diff-match-patch's ``diff_toDelta`` format (``=keep\t-drop\t+insert``), an
exact edit script against a known base. We strip the common prefix and suffix on line
boundaries first, then diff the middle in line mode: one changed line in a 100k-line file
costs a couple of milliseconds instead of a full diff. When the diff does not pay
(deadline hit, or a delta larger than about half the new text) the caller stores the full
content instead; nothing here is fuzzy, and every rebuild is hash-checked by the caller.
"""

from __future__ import annotations

import bisect
import re
import time
import urllib.parse
from collections import Counter
from typing import NamedTuple

import diff_match_patch as dmp_module

__all__ = [
    "DEFAULT_DEADLINE",
    "Deltas",
    "apply_delta",
    "compute_deltas",
    "increasing_run",
    "invert_diffs",
    "quote_insert",
    "unquote_insert",
]

DEFAULT_DEADLINE = 1.0
"""Seconds a line diff may take before the caller falls back to full content."""

_MAX_DELTA_RATIO = 0.5
# Above this many lines (both sides together) a region is diffed by anchors first; Myers'
# algorithm stays the choice for ordinary edits, where it is fast and minimal.
_MYERS_LINES = 20_000
# Above this many lines changed (both sides together), the anchored diff goes first.
_MYERS_EDITS = 400
_EQUAL = dmp_module.diff_match_patch.DIFF_EQUAL
_INSERT = dmp_module.diff_match_patch.DIFF_INSERT
_DELETE = dmp_module.diff_match_patch.DIFF_DELETE
# diff_toDelta counts UTF-16 code units; for text without astral characters that is
# len(str), which lets us skip an O(n) re-encoding of every equal run.
_ASTRAL = re.compile("[\U00010000-\U0010ffff]")
# The characters diff_toDelta leaves unescaped in inserted text.
_SAFE = "!~*'();/?:@&=+$,# "
# urllib.parse.quote for ASCII text as one str.translate (a ledger read quotes every
# inserted line again: urllib's per-byte loop was a tenth of `verify --full`): the
# characters it leaves are its always-safe ones and _SAFE; every other one is %XX.
_URL_SAFE = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-~" + _SAFE
_QUOTE_ASCII = {c: f"%{c:02X}" for c in range(128) if chr(c) not in _URL_SAFE}
_ESCAPES = re.compile("(?:%[0-9A-Fa-f]{2})+")

Diff = tuple[int, str]


class Deltas(NamedTuple):
    """Forward (base → new) and reverse (new → base) deltas of one text change."""

    forward: str
    reverse: str


def compute_deltas(base: str, new: str, *, deadline: float = DEFAULT_DEADLINE) -> Deltas | None:
    """Diff two texts by lines and encode both directions as exact deltas.

    Args:
        base: The known content.
        new: The content to record.
        deadline: Seconds the line diff may take.

    Returns:
        The deltas, or ``None`` when a delta does not pay: the diff hit its deadline or
        the forward delta is larger than about half the new text. The caller then
        stores the full content.
    """
    diffs = _line_diffs(base, new, deadline)
    if diffs is None:
        return None
    astral = _has_astral(base) or _has_astral(new)
    forward = _to_delta(diffs, astral)
    if len(forward) > max(64, int(len(new) * _MAX_DELTA_RATIO)):
        return None
    return Deltas(forward=forward, reverse=_to_delta(invert_diffs(diffs), astral))


def apply_delta(base: str, delta: str) -> str:
    """Apply a delta made by :func:`compute_deltas` (or ``diff_toDelta``) to its base.

    Raises:
        ValueError: If the delta does not fit the base (wrong length or malformed).
    """
    if _has_astral(base):
        diffs = dmp_module.diff_match_patch().diff_fromDelta(base, delta)
        return "".join(text for op, text in diffs if op != _DELETE)
    pieces: list[str] = []
    pointer = 0
    for token in delta.split("\t"):
        if not token:
            continue
        op, param = token[0], token[1:]
        if op == "+":
            try:
                pieces.append(unquote_insert(param))
            except UnicodeDecodeError:  # as diff_fromDelta reads it: replaced, not refused
                pieces.append(urllib.parse.unquote(param))
        elif op in "=-":
            count = int(param)
            if count < 0 or pointer + count > len(base):
                raise ValueError(f"delta run of {count} does not fit the base")
            if op == "=":
                pieces.append(base[pointer : pointer + count])
            pointer += count
        else:
            raise ValueError(f"invalid delta operation {op!r}")
    if pointer != len(base):
        raise ValueError(f"delta covers {pointer} characters of a {len(base)}-character base")
    return "".join(pieces)


def quote_insert(text: str) -> str:
    """Quote inserted text as a delta's ``+`` token carries it (after the ``+``).

    Args:
        text: The inserted text.

    Returns:
        Its UTF-8 bytes percent-quoted, leaving the characters diff_toDelta leaves.

    Raises:
        UnicodeEncodeError: If ``text`` holds a lone surrogate (not UTF-8).
    """
    if text.isascii():
        return text.translate(_QUOTE_ASCII)
    return urllib.parse.quote(text.encode("utf-8"), _SAFE)


def unquote_insert(quoted: str) -> str:
    """Invert :func:`quote_insert`, strictly.

    Args:
        quoted: The text of a ``+`` token after the ``+``.

    Returns:
        The inserted text.

    Raises:
        UnicodeDecodeError: If the quoted bytes are not UTF-8.
    """
    # urllib's unquote rebuilds the text byte by byte in Python: 2.4x this per inserted
    # line, and a warm rollback's forked worker renders its record's 200 deltas anew
    # (row R5). A literal ASCII character can never sit inside a multi-byte UTF-8
    # sequence, so decoding each run of escapes on its own is decoding the whole.
    if "%" not in quoted:
        return quoted
    return _ESCAPES.sub(_decoded, quoted)


def _decoded(escapes: re.Match[str]) -> str:
    return bytes.fromhex(escapes.group().replace("%", "")).decode("utf-8")


def invert_diffs(diffs: list[Diff]) -> list[Diff]:
    """Swap insertions and deletions: the diff from the new text back to the base."""
    swap = {_INSERT: _DELETE, _DELETE: _INSERT, _EQUAL: _EQUAL}
    return [(swap[op], text) for op, text in diffs]


def _has_astral(text: str) -> bool:
    return not text.isascii() and _ASTRAL.search(text) is not None


def _line_diffs(base: str, new: str, deadline: float) -> list[Diff] | None:
    prefix = _common_line_prefix(base, new)
    base_rest, new_rest = base[prefix:], new[prefix:]
    suffix = _common_line_suffix(base_rest, new_rest)
    base_mid = base_rest[: len(base_rest) - suffix]
    new_mid = new_rest[: len(new_rest) - suffix]
    diffs: list[Diff] = []
    if prefix:
        diffs.append((_EQUAL, base[:prefix]))
    if base_mid or new_mid:
        if not base_mid:
            diffs.append((_INSERT, new_mid))
        elif not new_mid:
            diffs.append((_DELETE, base_mid))
        else:
            middle = _middle_diffs(base_mid, new_mid, deadline)
            if middle is None:
                return None
            diffs.extend(middle)
    if suffix:
        diffs.append((_EQUAL, base_rest[len(base_rest) - suffix :]))
    return diffs


def _middle_diffs(base: str, new: str, deadline: float) -> list[Diff] | None:
    stop = time.time() + deadline
    base_lines = base.splitlines(keepends=True)
    new_lines = new.splitlines(keepends=True)
    if len(base_lines) + len(new_lines) <= _MYERS_LINES and not _many_edits(base_lines, new_lines):
        diffs = _myers_lines(base, new, stop)
        if diffs is not None:
            return diffs
    return _anchored_diffs(base_lines, new_lines, stop)


def _many_edits(a: list[str], b: list[str]) -> bool:
    """Whether so many lines differ that Myers' algorithm would be slow.

    Its cost grows with the product of the size and the number of edits: 1,200
    scattered changed lines in a 3,000-line file took over a second, where the anchored
    diff takes milliseconds for a delta of the same size. Counting the lines one side
    has and the other lacks is linear.
    """
    count_a, count_b = Counter(a), Counter(b)
    changed = sum((count_a - count_b).values()) + sum((count_b - count_a).values())
    return changed > _MYERS_EDITS


def _myers_lines(base: str, new: str, stop: float) -> list[Diff] | None:
    """diff-match-patch's line-mode diff: minimal, but its cost grows with the edits."""
    engine = dmp_module.diff_match_patch()
    chars1, chars2, lines = engine.diff_linesToChars(base, new)
    diffs = engine.diff_main(chars1, chars2, False, stop)
    # diff_main gives up silently at its deadline and returns a whole-range
    # delete+insert for what it had left; that must never pass for a real diff.
    if time.time() >= stop:
        return None
    engine.diff_charsToLines(diffs, lines)
    return [(op, text) for op, text in diffs]


def _anchored_diffs(a: list[str], b: list[str], stop: float) -> list[Diff] | None:
    """A patience-style line diff for large inputs with many scattered edits.

    Lines that occur exactly once on each side are anchors; the longest run of anchors
    in the same order on both sides (an increasing subsequence, O(n log n)) is kept
    equal, and only the gaps between anchors are diffed. Ten thousand scattered edits in
    a 100k-line file cost a fraction of a second here, where Myers' algorithm runs out
    of time. The result is exact; it may be a little less minimal than Myers'.
    """
    count_a = Counter(a)
    count_b = Counter(b)
    where_b = {line: j for j, line in enumerate(b) if count_b[line] == 1}
    pairs = [
        (i, where_b[line]) for i, line in enumerate(a) if count_a[line] == 1 and line in where_b
    ]
    diffs: list[Diff] = []
    i0 = j0 = 0
    for i, j in [*increasing_run(pairs), (len(a), len(b))]:
        gap = _gap_diffs(a[i0:i], b[j0:j], stop)
        if gap is None:
            return None
        diffs.extend(gap)
        if i < len(a):
            diffs.append((_EQUAL, a[i]))
        i0, j0 = i + 1, j + 1
    return _merge(diffs)


def _gap_diffs(a: list[str], b: list[str], stop: float) -> list[Diff] | None:
    if not a and not b:
        return []
    if not b:
        return [(_DELETE, "".join(a))]
    if not a:
        return [(_INSERT, "".join(b))]
    if set(a).isdisjoint(b) or len(a) + len(b) > _MYERS_LINES:
        # Nothing in common (the usual case: lines replaced in place), or too large a
        # gap to diff minimally: replace it whole. Exact either way.
        return [(_DELETE, "".join(a)), (_INSERT, "".join(b))]
    if time.time() >= stop:
        return None
    return _myers_lines("".join(a), "".join(b), stop)


def increasing_run(pairs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The longest subsequence of ``pairs`` (sorted by first) increasing in second.

    Patience sorting, O(n log n): the anchors of a patience diff (here and in the
    three-way merge of ``snapshots/restore/merge3.py``).

    Args:
        pairs: Index pairs, sorted by their first value.

    Returns:
        The longest run of them whose second values increase, in order.
    """
    tails: list[int] = []  # tails[k]: second value ending the best run of length k+1
    tail_index: list[int] = []
    previous: list[int] = []
    for index, (_i, j) in enumerate(pairs):
        k = bisect.bisect_left(tails, j)
        if k == len(tails):
            tails.append(j)
            tail_index.append(index)
        else:
            tails[k] = j
            tail_index[k] = index
        previous.append(tail_index[k - 1] if k else -1)
    run = []
    index = tail_index[-1] if tail_index else -1
    while index != -1:
        run.append(pairs[index])
        index = previous[index]
    run.reverse()
    return run


def _merge(diffs: list[Diff]) -> list[Diff]:
    merged: list[Diff] = []
    for op, text in diffs:
        if merged and merged[-1][0] == op:
            merged[-1] = (op, merged[-1][1] + text)
        else:
            merged.append((op, text))
    return merged


def _common_line_prefix(a: str, b: str) -> int:
    """Length of the common prefix of a and b, cut back to just after a newline."""
    length = _common_prefix_length(a, b)
    if length == len(a) == len(b):
        return length
    cut = a.rfind("\n", 0, length)
    return cut + 1


def _common_line_suffix(a: str, b: str) -> int:
    """Length of the common suffix of a and b, cut forward to the start of a line."""
    length = _common_suffix_length(a, b)
    if length == len(a) == len(b):
        return length
    # The suffix must start right after a newline in both texts (or at their start).
    while length > 0:
        start_a = len(a) - length
        start_b = len(b) - length
        if (start_a == 0 or a[start_a - 1] == "\n") and (start_b == 0 or b[start_b - 1] == "\n"):
            return length
        # Drop the partial first line of the suffix.
        next_newline = a.find("\n", start_a)
        if next_newline == -1:
            return 0
        length = len(a) - (next_newline + 1)
    return 0


_BLOCK = 4096
"""Characters compared at a time before the binary search (see ``_common_prefix_length``)."""


def _common_prefix_length(a: str, b: str) -> int:
    # Equal blocks are skipped first, then a binary search on slice equality inside the
    # block that differs: each comparison is C-speed, and the slices copied add up to
    # about the prefix, not log2(n) times the text (one edit in a 10,000-line file).
    limit = min(len(a), len(b))
    start = 0
    while start + _BLOCK <= limit and a[start : start + _BLOCK] == b[start : start + _BLOCK]:
        start += _BLOCK
    low, high = start, min(limit, start + _BLOCK)
    while low < high:
        mid = (low + high + 1) // 2
        if a[start:mid] == b[start:mid]:
            low = mid
        else:
            high = mid - 1
    return low


def _common_suffix_length(a: str, b: str) -> int:
    # As _common_prefix_length, from the ends; ``done`` characters are known equal.
    limit = min(len(a), len(b))
    done = 0
    while done + _BLOCK <= limit and (
        a[len(a) - done - _BLOCK : len(a) - done] == b[len(b) - done - _BLOCK : len(b) - done]
    ):
        done += _BLOCK
    low, high = done, min(limit, done + _BLOCK)
    while low < high:
        mid = (low + high + 1) // 2
        if a[len(a) - mid : len(a) - done] == b[len(b) - mid : len(b) - done]:
            low = mid
        else:
            high = mid - 1
    return low


def _to_delta(diffs: list[Diff], astral: bool) -> str:
    out: list[str] = []
    for op, text in diffs:
        if op == _INSERT:
            out.append("+" + quote_insert(text))
        else:
            size = len(text.encode("utf-16-be")) // 2 if astral else len(text)
            out.append(("=" if op == _EQUAL else "-") + str(size))
    return "\t".join(out)
