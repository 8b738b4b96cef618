"""Which inserted lines the ledger writes as themselves (``+``) rather than quoted (``~``)."""

from __future__ import annotations

import pytest
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


def test_a_delta_rendered_again_is_taken_from_the_last_renderings(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[str] = []
    real = deltas._insert_text

    def counting(token: str) -> str | None:
        calls.append(token)
        return real(token)

    monkeypatch.setattr(deltas, "_insert_text", counting)
    delta = "=3\t-1\t+a new line%0A\t=7"
    first = deltas.render_delta_lines(delta)
    assert calls == ["+a new line%0A"]
    first.append("changed by the caller")
    again = deltas.render_delta_lines(delta)
    assert calls == ["+a new line%0A"]  # not rendered a second time
    assert again == first[:-1] == ["    =3", "    -1", "    +a new line", "    =7"]
    assert deltas.parse_delta_lines(again, 1, 1 << 20) == delta
