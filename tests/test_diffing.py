"""Line-mode deltas: exact in both directions, dmp-compatible, and honest about giving up."""

from __future__ import annotations

import random
import time
import urllib.parse

import diff_match_patch as dmp_module
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from snapline import diffing
from snapline.diffing import apply_delta, compute_deltas

_lines = st.lists(
    st.sampled_from(["a\n", "b\n", "c\r\n", "dd", "\n", "é\n", "😀\n", "x y z\n", ""]),
    max_size=30,
).map("".join)


@given(_lines, _lines)
@example("", "")
@example("a\nb", "a\nb\n")
@example("😀\nx\n", "😀\ny\n")
@example("line\r\n", "line\n")
def test_deltas_rebuild_both_directions_exactly(base: str, new: str) -> None:
    deltas = compute_deltas(base, new)
    if deltas is None:  # a delta that does not pay is allowed; a wrong one is not
        return
    assert apply_delta(base, deltas.forward) == new
    assert apply_delta(new, deltas.reverse) == base


@given(_lines, _lines)
def test_deltas_are_diff_match_patch_deltas(base: str, new: str) -> None:
    deltas = compute_deltas(base, new)
    if deltas is None:
        return
    engine = dmp_module.diff_match_patch()
    diffs = engine.diff_fromDelta(base, deltas.forward)
    assert engine.diff_text2(diffs) == new
    assert engine.diff_toDelta(diffs) == deltas.forward


def test_one_line_change_in_a_large_file_is_a_small_delta() -> None:
    base = "".join(f"line {i}\n" for i in range(100_000))
    new = base.replace("line 50000\n", "line fifty thousand\n")
    deltas = compute_deltas(base, new)
    assert deltas is not None
    assert len(deltas.forward) < 80
    assert "fifty thousand" in deltas.forward
    assert apply_delta(base, deltas.forward) == new


def test_timed_out_diff_is_reported_not_degenerate() -> None:
    base = "".join(f"{i}\n" for i in range(20_000))
    new = "".join(f"{i}\n" if i % 3 else f"changed {i}\n" for i in range(20_000))
    assert compute_deltas(base, new, deadline=0.0) is None


def test_a_rewrite_is_not_worth_a_delta() -> None:
    base = "".join(f"old line {i}\n" for i in range(500))
    new = "".join(f"completely different {i}\n" for i in range(500))
    assert compute_deltas(base, new) is None


@pytest.mark.parametrize("delta", ["=5", "=1\t-10", "?3", "=-1"])
def test_a_delta_that_does_not_fit_is_refused(delta: str) -> None:
    with pytest.raises(ValueError):
        apply_delta("abc", delta)


_some_lines = st.lists(st.sampled_from(["a\n", "b\n", "c\n", "}\n", "\n", "x = 1\n", "y\r\n"]),
                       max_size=40)  # fmt: skip


@given(_some_lines, _some_lines)
def test_anchored_diffs_are_exact_even_with_repeated_lines(a: list[str], b: list[str]) -> None:
    from snapline.diffing import _anchored_diffs

    diffs = _anchored_diffs(a, b, time.time() + 5)
    assert diffs is not None
    assert "".join(t for op, t in diffs if op <= 0) == "".join(a)  # equal and delete
    assert "".join(t for op, t in diffs if op >= 0) == "".join(b)  # equal and insert


def test_many_scattered_edits_in_a_large_file_still_give_a_delta() -> None:
    rng = random.Random(7)
    lines = [f"value_{i} = compute({i}, {rng.randint(0, 10**6)})\n" for i in range(100_000)]
    new = list(lines)
    for i in rng.sample(range(100_000), 10_000):
        new[i] = f"value_{i} = changed({i})\n"
    base_text, new_text = "".join(lines), "".join(new)
    deltas = compute_deltas(base_text, new_text)
    assert deltas is not None  # not a whole-file fallback
    assert apply_delta(base_text, deltas.forward) == new_text
    assert apply_delta(new_text, deltas.reverse) == base_text
    assert len(deltas.forward) < 0.2 * len(new_text)


def test_many_scattered_edits_take_the_anchored_diff(monkeypatch: pytest.MonkeyPatch) -> None:
    """1,200 changed lines of a 3,000-line file (issue 16): Myers' algorithm took over a
    second there; the anchored diff is exact too, and linear in the lines."""
    rng = random.Random(7)
    base = [f"line {i} {'x' * rng.randint(10, 60)}\n" for i in range(3000)]
    new = list(base)
    for i in rng.sample(range(3000), 1200):
        new[i] = f"changed {i} {'y' * rng.randint(10, 60)}\n"
    old_text, new_text = "".join(base), "".join(new)

    def myers(*_: object) -> None:
        raise AssertionError("Myers' diff ran on a change with many edits")

    monkeypatch.setattr(diffing, "_myers_lines", myers)
    deltas = compute_deltas(old_text, new_text)
    assert deltas is not None
    assert apply_delta(old_text, deltas.forward) == new_text
    assert apply_delta(new_text, deltas.reverse) == old_text


@given(st.text() | st.text(st.characters(max_codepoint=127)))
@example("".join(map(chr, range(128))))
def test_quote_insert_is_urllibs_quoting(text: str) -> None:
    # The ASCII fast path against urllib's own quoting, which diff_toDelta uses.
    try:
        expected = urllib.parse.quote(text.encode("utf-8"), "!~*'();/?:@&=+$,# ")
    except UnicodeEncodeError:
        with pytest.raises(UnicodeEncodeError):
            diffing.quote_insert(text)
        return
    assert diffing.quote_insert(text) == expected


_QUOTED = st.text(st.sampled_from("%%%%0123456789abcdefABCDEFxz \u00e9\u2713\U0001f600"))


@given(_QUOTED | st.text())
@example("%C3%A9%e2%9c%93")  # escapes of UTF-8 in either case
@example("%C3a%A9")  # a sequence cut by a literal character
@example("%ED%A0%80")  # an escaped surrogate
@example("%zz%4%41100%")  # what is no escape stays as it is
def test_unquote_insert_is_urllibs_strict_unquoting(quoted: str) -> None:
    # The one-pass decoding of runs of escapes against urllib's, strict and lenient
    # (apply_delta reads an insert as diff_fromDelta does, with urllib's replacements).
    token = "+" + quoted.replace("\t", "")
    try:
        expected = urllib.parse.unquote(quoted, errors="strict")
    except UnicodeDecodeError:
        with pytest.raises(UnicodeDecodeError):
            diffing.unquote_insert(quoted)
        assert apply_delta("", token) == urllib.parse.unquote(token[1:])
        return
    assert diffing.unquote_insert(quoted) == expected
    assert apply_delta("", token) == urllib.parse.unquote(token[1:])
