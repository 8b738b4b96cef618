"""The forget record: one spelling per record, every damage refused at its line."""

from __future__ import annotations

import contextlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from snapline.store.ledger.forget_format import (
    ForgetRecord,
    ForgottenVersion,
    forget_name,
    parse_forget,
    parse_forget_name,
    render_forget,
)
from snapline.store.ledger.lines import LedgerFormatError

HASH = "sha256:" + "ab" * 32
TIME = "2026-11-23T06:30:00.123456+00:00"
RECORD = ForgetRecord(
    time=TIME,
    reason="an API key recorded by mistake",
    forgot=(ForgottenVersion(1, ".env", HASH), ForgottenVersion(3, ".env", "sha256:" + "cd" * 32)),
    kept=(ForgottenVersion(4, ".env", "sha256:" + "ef" * 32),),
)


def test_a_record_reads_as_documented() -> None:
    data = render_forget(RECORD)
    assert data == (
        b"snapline forget 1\n"
        b"time " + TIME.encode() + b"\n"
        b'reason "an API key recorded by mistake"\n'
        b"forgot 1 " + HASH.encode() + b' ".env"\n'
        b"forgot 3 sha256:" + b"cd" * 32 + b' ".env"\n'
        b"kept 4 sha256:" + b"ef" * 32 + b' ".env"\n'
    )
    assert parse_forget(data) == RECORD


_PATHS = st.sampled_from(["a", ".env", "dir/with space/é.txt", "x\udcff"])


@given(
    reason=st.text(max_size=20),
    forgot=st.sets(st.tuples(st.integers(0, 2**63 - 1), _PATHS), min_size=1, max_size=4),
    kept=st.sets(st.tuples(st.integers(0, 99), _PATHS), max_size=3),
)
def test_records_round_trip(
    reason: str, forgot: set[tuple[int, str]], kept: set[tuple[int, str]]
) -> None:
    record = ForgetRecord(
        TIME,
        reason,
        tuple(sorted(ForgottenVersion(n, p, HASH) for n, p in forgot)),
        tuple(sorted(ForgottenVersion(n, p, HASH) for n, p in kept)),
    )
    data = render_forget(record)
    assert parse_forget(data) == record
    assert render_forget(parse_forget(data)) == data


@pytest.mark.parametrize(
    ("old", "new", "line"),
    [
        (b"snapline forget 1", b"snapline forget 2", 1),
        (b"time 2026", b"time yesterday 2026", 2),
        (b'reason "an', b"reason 'an", 3),
        (b"forgot 1 sha256:ab", b"forgot 01 sha256:ab", 4),
        (b'ab ".env"\nforgot 3', b'ab "../etc/passwd"\nforgot 3', 4),
        (b"forgot 3 sha256:cd", b"forgot 3 sha256:CD", 5),
        (b"kept 4", b"kept -4", 6),
        (b'".env"\nkept', b'".env"\nforgot 2 ' + HASH.encode() + b' ".env"\nkept', 6),
    ],
)
def test_damage_is_refused_at_its_line(old: bytes, new: bytes, line: int) -> None:
    data = render_forget(RECORD)
    assert old in data
    with pytest.raises(LedgerFormatError) as caught:
        parse_forget(data.replace(old, new, 1))
    assert caught.value.line == line


def test_a_record_names_a_version() -> None:
    with pytest.raises(LedgerFormatError, match="no version"):
        parse_forget(b"snapline forget 1\ntime " + TIME.encode() + b'\nreason ""\n')
    with pytest.raises(ValueError, match="at least one"):
        render_forget(ForgetRecord(TIME, "", ()))


@given(st.binary(max_size=200))
def test_any_bytes_are_a_record_or_a_format_error(data: bytes) -> None:
    with contextlib.suppress(LedgerFormatError):
        parse_forget(data)


def test_names_are_time_then_id() -> None:
    name = forget_name(TIME, "0" * 32)
    assert name == "20261123T063000Z-" + "0" * 32 + ".forget"
    assert parse_forget_name(name) == ("20261123T063000Z", "0" * 32)
    for bad in (name + "x", name.replace("T", "t"), "20261123T063000Z-abc.forget"):
        with pytest.raises(LedgerFormatError):
            parse_forget_name(bad)
