"""The exact three-way line merge behind revert (issue 14, item 5)."""

from __future__ import annotations

from hypothesis import example, given
from hypothesis import strategies as st

from snapline.snapshots.restore.merge3 import merge3, split_lines

# Few distinct lines, so look-alike blocks and repeats are common.
_LINE = st.sampled_from([b"a\n", b"b\n", b"c\n", b"}\n", b"\n", b"x\r\n", b"\xff\n"])
_LINES = st.lists(_LINE, max_size=20)
_DATA = st.builds(lambda lines, tail: b"".join(lines) + tail, _LINES, st.sampled_from([b"", b"z"]))


@given(_DATA)
@example(b"")
@example(b"no newline")
@example(b"\n\n")
def test_split_lines_is_exact(data: bytes) -> None:
    lines = split_lines(data)
    assert b"".join(lines) == data
    assert all(line.endswith(b"\n") for line in lines[:-1])


@given(base=_DATA, other=_DATA)
def test_no_concurrent_edit_reproduces_the_other_side_exactly(base: bytes, other: bytes) -> None:
    assert merge3(base, base, other).content == other
    assert merge3(base, other, base).content == other
    assert merge3(base, other, other).content == other


def _unique(prefix: str, count: int) -> list[bytes]:
    return [f"{prefix}{i}\n".encode() for i in range(count)]


@given(
    size=st.integers(min_value=4, max_value=30),
    data=st.data(),
)
def test_disjoint_edits_both_apply(size: int, data: st.DataObject) -> None:
    """Two edits with an unchanged line between them: both land, wherever they are."""
    base = _unique("line ", size)
    first = data.draw(st.integers(min_value=0, max_value=size - 3))
    first_end = data.draw(st.integers(min_value=first, max_value=size - 3))
    second = data.draw(st.integers(min_value=first_end + 1, max_value=size - 1))
    second_end = data.draw(st.integers(min_value=second, max_value=size))
    ours_new = data.draw(st.lists(st.sampled_from(_unique("ours ", 5)), max_size=3))
    theirs_new = data.draw(st.lists(st.sampled_from(_unique("theirs ", 5)), max_size=3))
    if data.draw(st.booleans()):
        ours = base[:first] + ours_new + base[first_end:]
        theirs = base[:second] + theirs_new + base[second_end:]
        expected = base[:first] + ours_new + base[first_end:second] + theirs_new
    else:
        theirs = base[:first] + theirs_new + base[first_end:]
        ours = base[:second] + ours_new + base[second_end:]
        expected = base[:first] + theirs_new + base[first_end:second] + ours_new
    expected += base[second_end:]
    merged = merge3(b"".join(base), b"".join(ours), b"".join(theirs))
    assert merged.content == b"".join(expected)


@given(
    size=st.integers(min_value=1, max_value=20),
    data=st.data(),
)
def test_overlapping_different_edits_conflict(size: int, data: st.DataObject) -> None:
    base = _unique("line ", size)
    start = data.draw(st.integers(min_value=0, max_value=size - 1))
    end = data.draw(st.integers(min_value=start + 1, max_value=size))
    ours = [*base[:start], b"ours\n", *base[end:]]
    theirs = [*base[:start], b"theirs\n", *base[end:]]
    merged = merge3(b"".join(base), b"".join(ours), b"".join(theirs))
    assert merged.content is None and merged.conflicts == 1


def test_the_change_is_found_by_position_not_by_look_alike() -> None:
    block = b"def f():\n    return 1\n"
    base = b"head\n" + block + b"tail\n"
    reverted = b"head\ndef f():\n    return 0\ntail\n"
    # The look-alike pasted before and after the original: only the original moves back.
    for ours in (base + b"\n" + block, block + b"\n" + base):
        merged = merge3(base, ours, reverted)
        assert merged.content == ours.replace(b"head\n" + block, b"head\ndef f():\n    return 0\n")
        assert merged.content.count(block) == 1


def test_identical_changes_on_both_sides_are_not_a_conflict() -> None:
    merged = merge3(b"a\nb\nc\n", b"a\nB\nc\n", b"a\nB\nc\n")
    assert merged.content == b"a\nB\nc\n" and merged.conflicts == 0
