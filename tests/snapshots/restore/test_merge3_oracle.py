"""merge3 against oracles: a model of disjoint edits, brute force, and SequenceMatcher.

The examples in test_merge3.py check results their author worked out; these check the
merge and its alignment against answers that follow from how the input was built (the
model), from exhaustive search (the longest run of anchors), or from difflib itself.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from difflib import SequenceMatcher

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from snapline.hashing import hash_bytes
from snapline.snapshots.restore import merge3 as merge3_module
from snapline.snapshots.restore.merge3 import (
    _GAP_LIMIT,
    MergeCheckError,
    _anchors,
    _check,
    _gap_blocks,
    _matching_blocks,
    merge3,
)

_KINDS = ("unchanged", "ours", "theirs", "same", "conflict")


@st.composite
def _disjoint_edits(draw: st.DrawFn) -> tuple[bytes, bytes, bytes, bytes | None, int, int]:
    """Base, ours and theirs as edits of segments of base kept apart by anchor lines.

    Every line is unique, and the anchors are unchanged on all three sides, so each
    segment is one region of the merge and what the merge must do with it is known from
    the construction: the expected content, how many regions were taken from theirs and
    how many conflict.
    """
    fresh = itertools.count()

    def new_lines(least: int) -> list[bytes]:
        return [b"line %d\n" % next(fresh) for _ in range(draw(st.integers(least, 3)))]

    base: list[bytes] = []
    ours: list[bytes] = []
    theirs: list[bytes] = []
    expected: list[bytes] = []
    taken = conflicts = 0
    for index in range(draw(st.integers(1, 6))):
        if index:
            anchor = [b"anchor %d\n" % index]
            base, ours, theirs, expected = (
                base + anchor,
                ours + anchor,
                theirs + anchor,
                expected + anchor,
            )
        segment = new_lines(0)
        kind = draw(st.sampled_from(_KINDS))
        # A change is fresh lines (or none, when the segment had some): never the segment.
        ours_segment = (
            new_lines(0 if segment else 1) if kind in ("ours", "same", "conflict") else segment
        )
        if kind == "theirs":
            theirs_segment = new_lines(0 if segment else 1)
        elif kind == "conflict":
            theirs_segment = new_lines(0 if segment and ours_segment else 1)
        else:
            theirs_segment = ours_segment if kind == "same" else segment
        base, ours, theirs = base + segment, ours + ours_segment, theirs + theirs_segment
        expected += theirs_segment if kind == "theirs" else ours_segment
        taken += kind == "theirs"
        conflicts += kind == "conflict"
    if draw(st.booleans()):  # a last line without its line feed, on all three sides
        base, ours, theirs, expected = ([*side, b"end"] for side in (base, ours, theirs, expected))
    content = None if conflicts else b"".join(expected)
    return b"".join(base), b"".join(ours), b"".join(theirs), content, taken, conflicts


@settings(max_examples=200)
@given(_disjoint_edits())
def test_merge_follows_the_model_of_disjoint_edits(
    case: tuple[bytes, bytes, bytes, bytes | None, int, int],
) -> None:
    base, ours, theirs, content, taken, conflicts = case
    assert merge3(base, ours, theirs) == merge3_module.Merged(content, conflicts, taken)


def _lines(letters: Sequence[int]) -> list[bytes]:
    return [bytes([letter]) + b"\n" for letter in letters]


_SHORT = st.lists(st.sampled_from(b"abcdefg"), max_size=10).map(_lines)


def _increasing(pairs: Sequence[tuple[int, int]]) -> bool:
    return all(i < k and j < m for (i, j), (k, m) in itertools.pairwise(pairs))


@settings(max_examples=300)
@given(_SHORT, _SHORT)
def test_anchors_are_a_longest_run_of_unique_lines_in_order(a: list[bytes], b: list[bytes]) -> None:
    unique = [(i, b.index(line)) for i, line in enumerate(a) if a.count(line) == b.count(line) == 1]
    run = _anchors(a, b)
    assert set(run) <= set(unique)
    assert _increasing(run)
    # Brute force: the longest subsequence of the unique pairs increasing on both sides.
    longest = max(
        size
        for size in range(len(unique) + 1)
        for chosen in itertools.combinations(unique, size)
        if _increasing(chosen)
    )
    assert len(run) == longest


def _common_head(x: Sequence[bytes], y: Sequence[bytes]) -> int:
    return next(
        (n for n, (p, q) in enumerate(zip(x, y, strict=False)) if p != q), min(len(x), len(y))
    )


def _assert_matching_blocks(base: Sequence[bytes], other: Sequence[bytes]) -> None:
    """What the docstring promises, and that nothing matchable is left between blocks."""
    blocks = _matching_blocks(base, other)
    for i, j, n in blocks:
        assert n >= 1 and base[i : i + n] == other[j : j + n]
    head = _common_head(base, other)
    tail = min(_common_head(base[::-1], other[::-1]), min(len(base), len(other)) - head)
    if head:
        assert blocks[0] == (0, 0, head)
    if tail:
        assert blocks[-1] == (len(base) - tail, len(other) - tail, tail)
    # In order and apart on both sides; between two blocks (and before the first, after
    # the last) the two sides share no line, or a line that could be aligned was not.
    edges = [(0, 0, 0), *blocks, (len(base), len(other), 0)]
    for (i, j, n), (k, m, _) in itertools.pairwise(edges):
        assert i + n <= k and j + n <= m
        assert not set(base[i + n : k]) & set(other[j + n : m]), (blocks, i + n, k, j + n, m)


@settings(max_examples=300)
@given(_SHORT, _SHORT)
def test_matching_blocks_keep_order_and_leave_nothing_matchable(
    base: list[bytes], other: list[bytes]
) -> None:
    _assert_matching_blocks(base, other)


def test_a_line_repeated_in_a_long_file_still_aligns() -> None:
    # difflib's autojunk would drop a line this frequent in 200 lines or more.
    brace = b"}\n"
    _assert_matching_blocks([brace] * 210 + [b"a\n"], [b"b\n"] + [brace] * 210 + [b"c\n"])


def _gap(size: int, name: bytes) -> list[bytes]:
    # Distinct lines, and one repeated line each side shares (no anchor: not unique).
    lines = [b"%s %d\n" % (name, n) for n in range(size - 2)]
    return [b"shared\n", *lines, b"shared\n"]


def test_gap_blocks_align_up_to_the_limit_and_not_past_it() -> None:
    a, b = _gap(1000, b"a"), _gap(_GAP_LIMIT // 1000, b"b")
    assert len(a) * len(b) == _GAP_LIMIT
    matcher = SequenceMatcher(None, a, b, autojunk=False)
    expected = [(m.a, m.b, m.size) for m in matcher.get_matching_blocks() if m.size]
    assert expected and _gap_blocks(a, b) == expected
    assert _gap_blocks([*a, b"one more\n"], b) == []
    assert _gap_blocks([], b) == _gap_blocks(a, []) == []


def test_check_accepts_the_certain_result_and_refuses_any_other() -> None:
    base, edited, other = b"base\n", b"edited\n", b"other\n"
    # (base, ours, theirs, the certain result)
    for certain_case in [
        (base, base, edited, edited),
        (base, edited, base, edited),
        (base, edited, edited, edited),
    ]:
        _check(*certain_case)
        with pytest.raises(MergeCheckError) as caught:
            _check(*certain_case[:3], other)
        error = caught.value
        assert (error.expected, error.actual) == (hash_bytes(certain_case[3]), hash_bytes(other))
        assert error.exit_code == 3
        assert str(error) == (
            f"a three-way merge produced {hash_bytes(other)}, not the certain "
            f"{hash_bytes(certain_case[3])}; nothing was written; report it"
        )
    _check(base, edited, other, b"anything\n")  # both sides changed: nothing is certain


@pytest.mark.parametrize(
    ("base", "ours", "theirs"),
    [
        (b"base\n", b"base\n", b"theirs\n"),
        (b"base\n", b"ours\n", b"base\n"),
        (b"base\n", b"same\n", b"same\n"),
    ],
)
def test_a_wrong_merge_is_caught_before_it_is_returned(
    monkeypatch: pytest.MonkeyPatch, base: bytes, ours: bytes, theirs: bytes
) -> None:
    # A fault in the region walk, injected: merge3's own check must refuse its result.
    def wrong(*_: object) -> list[tuple[object, list[bytes]]]:
        return [(merge3_module._Region.SAME, [b"wrong\n"])]

    monkeypatch.setattr(merge3_module, "_regions", wrong)
    with pytest.raises(MergeCheckError):
        merge3(base, ours, theirs)
