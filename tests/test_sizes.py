"""A byte count as people read it: one spelling for the command line and the review page."""

from __future__ import annotations

import pytest

from snapline.sizes import format_bytes


@pytest.mark.parametrize(
    ("size", "spelled"),
    [
        (0, "0 bytes"),
        (1023, "1,023 bytes"),
        (1024, "1.0 KiB"),
        (1234567, "1.2 MiB"),
        (5 * 1024**3, "5.0 GiB"),
        (3 * 1024**4, "3072.0 GiB"),
    ],
)
def test_a_size_is_spelled_in_the_largest_unit_below_it(size: int, spelled: str) -> None:
    assert format_bytes(size) == spelled
