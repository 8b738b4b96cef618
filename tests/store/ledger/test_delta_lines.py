"""Which inserted lines the ledger writes as themselves (``+``) rather than quoted (``~``)."""

from __future__ import annotations

from hypothesis import example, given
from hypothesis import strategies as st

from snapline.store.ledger import deltas


@given(st.text())
@example("plain\ttext\n")
@example("a line separator \u2028 inside\n")
@example("no newline at the end")
@example("\x1b[31m escape\n")
@example("\n")
def test_a_plain_line_is_printable_but_for_tabs_and_ends_with_lf(piece: str) -> None:
    expected = piece.endswith("\n") and all(c.isprintable() or c == "\t" for c in piece[:-1])
    assert deltas._plain(piece) == expected
