"""Line-mode deltas: exact in both directions, dmp-compatible, and honest about giving up."""

from __future__ import annotations

import diff_match_patch as dmp_module
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

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
