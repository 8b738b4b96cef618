"""The ledger's text files: rows round-trip exactly, one spelling per value, only format errors."""

from __future__ import annotations

import hashlib
import io
import json
from collections.abc import Callable
from datetime import datetime, timezone

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from snapline.content import pack, tombstone, unpack
from snapline.diffing import compute_deltas, quote_insert, unquote_insert
from snapline.store.ledger.fields import dump_string, parse_string
from snapline.store.ledger.format import (
    LedgerFormatError,
    MilestoneRecord,
    SnapshotRecord,
    milestone_name,
    parse_milestone,
    parse_milestone_name,
    parse_snapshot,
    parse_snapshot_lines,
    parse_snapshot_name,
    render_milestone,
    render_snapshot,
    snapshot_name,
)
from snapline.store.ledger.lines import check_canonical, decode_lines, split_lines
from snapline.store.rows import ChangeRow, MilestoneRow, SnapshotRow

ID = "3f2a9c0b5d6e4f718293a4b5c6d7e8f9"
PARENT = "9c1b0a2d3e4f56789abcdef012345678"
HASH_A = "sha256:" + "a" * 64
HASH_B = "sha256:" + "b" * 64
TIME = "2026-11-23T05:48:11.123456+00:00"

BASE = "def f():\n    x = 1\n    return 1\n"
NEW = "def f():\n    x = 1\n    return 2\n"


def _deltas(base: str, new: str) -> tuple[bytes, bytes]:
    deltas = compute_deltas(base, new)
    assert deltas is not None
    return pack(deltas.forward.encode("utf-8")), pack(deltas.reverse.encode("utf-8"))


def _row(number: int = 12, **changes: object) -> SnapshotRow:
    fields: dict[str, object] = {
        "number": number,
        "id": ID,
        "parent_id": PARENT if number else None,
        "time": TIME,
        "tool": "agent",
        "description": "return 2",
        "session": "s1",
        "metadata": '{"turn":1}',
        "skipped": '[["big.iso","large"]]',
        "version": 2,
        "chain_hash": HASH_A,
    }
    fields.update(changes)
    return SnapshotRow(**fields)  # type: ignore[arg-type]


def _change(path: str = "src/app.py", **changes: object) -> ChangeRow:
    forward, reverse = _deltas(BASE, NEW)
    fields: dict[str, object] = {
        "snapshot": 12,
        "path": path,
        "kind": "modified",
        "old_path": None,
        "base_hash": HASH_A,
        "result_hash": HASH_B,
        "base_mode": 0o100644,
        "result_mode": 0o100644,
        "size": len(NEW),
        "storage": "delta",
        "forward": forward,
        "reverse": reverse,
        "content": None,
        "chain": 1,
        "chain_bytes": 43,
    }
    fields.update(changes)
    return ChangeRow(**fields)  # type: ignore[arg-type]


EXAMPLE = render_snapshot(_row(), [_change()])


def _round_trip(record: SnapshotRecord) -> None:
    data = render_snapshot(record.row, record.changes)
    again = parse_snapshot(data)
    assert again == record
    assert render_snapshot(again.row, again.changes) == data


# --- the readable example --------------------------------------------------------------


def test_a_one_line_edit_reads_as_the_changed_line() -> None:
    assert b"\n    +    return 2\n" in EXAMPLE
    assert b"\n    +    return 1\n" in EXAMPLE
    assert len(EXAMPLE) < 1024
    assert EXAMPLE.startswith(b"snapline snapshot 2\nnumber 12\nid " + ID.encode() + b"\n")
    assert EXAMPLE.endswith(b"\n") and b"\r" not in EXAMPLE
    assert parse_snapshot(EXAMPLE) == SnapshotRecord(_row(), (_change(),))


def test_the_baseline_and_a_merge_have_their_own_lines() -> None:
    baseline = render_snapshot(_row(0, merges="[]"), [])
    assert b"parent" not in baseline and b"merges" not in baseline
    assert b"\n\n" not in baseline  # no changes, no blank line
    merge = _row(5, merges=json.dumps([PARENT, ID]))
    data = render_snapshot(merge, [])
    assert f"\nmerges {PARENT} {ID}\n".encode() in data
    assert parse_snapshot(data).row == merge


def test_names_are_canonical() -> None:
    assert snapshot_name(12, ID) == f"00000012-{ID}.snap"
    assert parse_snapshot_name(f"00000012-{ID}.snap") == (12, ID)
    assert parse_snapshot_name(snapshot_name(10**9, ID)) == (10**9, ID)
    name = milestone_name(3, b"x")
    assert name.startswith("00000003-") and name.endswith(".mile") and len(name) == 30
    assert parse_milestone_name(name) == (3, name[9:25])
    for bad in (
        f"0000012-{ID}.snap",
        f"000000012-{ID}.snap",
        f"00000012-{ID.upper()}.snap",
        f"00000012-{ID}.snap.tmp",
        f"00000012-{ID[:-1]}.snap",
        f"٠٠٠٠٠٠١٢-{ID}.snap",
        f"{'9' * 20}-{ID}.snap",
    ):
        with pytest.raises(LedgerFormatError):
            parse_snapshot_name(bad)
    for bad in ("0000003-0123456789abcdef.mile", "00000003-0123456789abcdeF.mile", "x.mile"):
        with pytest.raises(LedgerFormatError):
            parse_milestone_name(bad)


# --- round trips ------------------------------------------------------------------------

_LINES = st.lists(
    st.sampled_from(
        ["a\n", "b\n", "c\r\n", "dd", "\n", "é\n", "😀\n", "\tx\ty\n", "\u2028\n", "z", "%41\n"]
    ),
    max_size=12,
).map("".join)
_HEX = st.binary(min_size=16, max_size=16).map(bytes.hex)
_HASH = st.binary(min_size=32, max_size=32).map(lambda b: "sha256:" + b.hex())
_TEXT = st.one_of(
    st.text(max_size=20),
    st.sampled_from(["", "a\u2028b", "tab\there", 'quote"\\', "\udcff\udc80", "😀", "\r\n"]),
)
_PART = st.one_of(
    st.text(st.characters(blacklist_characters="/\x00"), min_size=1, max_size=8),
    st.binary(min_size=1, max_size=6).map(lambda b: b.decode("utf-8", "surrogateescape")),
).filter(lambda part: "/" not in part and "\x00" not in part and part not in (".", ".."))
_PATH = (
    st.lists(_PART, min_size=1, max_size=3)
    .map("/".join)
    .filter(lambda path: not path.startswith(".snapline"))
)
_TIMES = st.datetimes(timezones=st.just(timezone.utc)).map(datetime.isoformat)
_RAW_DELTAS = st.sampled_from(
    ["", "=3", "+a\t+b", "=1\t", "\t", "+", "x", "+%zz", "+%c3%a9", "+é", "=01", "-0\t+%0A"]
)
_JSON = st.recursive(
    st.none() | st.integers() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner),
    max_leaves=6,
)


@st.composite
def _delta_pair(draw: st.DrawFn) -> tuple[str | None, str | None]:
    if draw(st.booleans()):
        deltas = compute_deltas(draw(_LINES), draw(_LINES))
        if deltas is not None:
            return deltas.forward, deltas.reverse
    return draw(st.none() | _RAW_DELTAS), draw(st.none() | _RAW_DELTAS)


@st.composite
def _records(draw: st.DrawFn) -> SnapshotRecord:
    number = draw(st.integers(0, 2**63 - 1) | st.integers(0, 3))
    merges = draw(st.lists(_HEX, max_size=2)) if number else []
    row = SnapshotRow(
        number=number,
        id=draw(_HEX),
        parent_id=draw(_HEX) if number else None,
        time=draw(_TIMES | st.just("2026-01-02T03:04:05Z")),
        tool=draw(_TEXT),
        description=draw(_TEXT),
        session=draw(st.none() | _TEXT),
        metadata=json.dumps(draw(st.dictionaries(st.text(max_size=4), _JSON, max_size=3))),
        skipped=json.dumps(draw(st.lists(st.tuples(_PATH, st.text(max_size=5)), max_size=2))),
        version=2,
        chain_hash=draw(_HASH),
        merges=json.dumps(merges),
    )
    changes = []
    for path in sorted(set(draw(st.lists(_PATH, max_size=4)))):
        if draw(st.booleans()):
            # A baseline's block (added, stored in full), which the parser reads in one
            # step when it is spelled the common way: half the blocks, so the mutations
            # below reach that path as often as the line-by-line one.
            result = draw(_HASH)
            changes.append(
                ChangeRow(
                    snapshot=number, path=path, kind="added", old_path=None,
                    base_hash=None, result_hash=result, base_mode=None,
                    result_mode=draw(st.sampled_from([0o100644, 0o100755, 0o120000])),
                    size=draw(st.integers(0, 2**63 - 1)), storage="full", forward=None,
                    reverse=None, content=result, chain=draw(st.integers(0, 3)),
                    chain_bytes=draw(st.integers(0, 2**63 - 1)),
                )
            )  # fmt: skip
            continue
        forward, reverse = draw(_delta_pair())
        has_base, has_result = draw(st.booleans()), draw(st.booleans())
        packed = [
            None if delta is None else pack(delta.encode("utf-8")) for delta in (forward, reverse)
        ]
        for i, delta in enumerate(packed):
            if delta is not None and draw(st.booleans()):
                packed[i] = tombstone(hashlib.sha256(delta).hexdigest())
        changes.append(
            ChangeRow(
                snapshot=number,
                path=path,
                kind=draw(st.sampled_from(["added", "modified", "deleted", "renamed"])),
                old_path=draw(st.none() | _PATH),
                base_hash=draw(_HASH) if has_base else None,
                result_hash=draw(_HASH) if has_result else None,
                base_mode=draw(st.sampled_from([0o100644, 0o100755, 0o120000, 0]))
                if has_base
                else None,
                result_mode=draw(st.sampled_from([0o100644, 0o100755, 0o120000]))
                if has_result
                else None,
                size=draw(st.integers(0, 2**63 - 1)) if has_result else None,
                storage=draw(st.sampled_from(["delta", "full", "none", "hash-only"])),
                forward=packed[0],
                reverse=packed[1],
                content=draw(st.none() | _HASH),
                chain=draw(st.integers(0, 100)),
                chain_bytes=draw(st.integers(0, 2**63 - 1)),
            )
        )
    return SnapshotRecord(row, tuple(changes))


@given(_records())
def test_snapshot_records_round_trip(record: SnapshotRecord) -> None:
    _round_trip(record)


@given(_LINES, _LINES)
@example("a\nb", "a\nc")
@example("x\r\ny\r\n", "x\r\nz\r\n")
@example("😀\n\té\n", "😀\n\tü\u2028\n")
@example("", "only\n")
def test_computed_deltas_round_trip_exactly(base: str, new: str) -> None:
    deltas = compute_deltas(base, new)
    if deltas is None:
        return
    forward, reverse = pack(deltas.forward.encode()), pack(deltas.reverse.encode())
    record = SnapshotRecord(
        _row(), (_change(forward=forward, reverse=reverse),)
    )  # fmt: skip
    _round_trip(record)
    (change,) = parse_snapshot(render_snapshot(record.row, record.changes)).changes
    assert change.forward is not None
    assert unpack(change.forward, limit=1 << 20).decode() == deltas.forward


@pytest.mark.parametrize(
    ("delta", "spelled"),
    [
        ("", []),
        ("=3\t-2", ["    =3", "    -2"]),
        ("+a%0Ab", ["    +a", '    ~"b"']),
        ("+%0D%0A", ['    ~"\\r\\n"']),
        ("+%E2%80%A8%0A", ['    ~"\\u2028\\n"']),
        ("+a\t+b", ['    !"+a\\t+b"']),  # two inserts side by side
        ("=1\t", ['    !"=1\\t"']),  # an empty token
        ("+%c3%a9", ['    !"+%c3%a9"']),  # quoted another way
    ],
)
def test_deltas_have_one_spelling(delta: str, spelled: list[str]) -> None:
    change = _change(forward=pack(delta.encode()), reverse=None)
    data = render_snapshot(_row(), [change])
    lines = data.decode().split("\n")
    start = lines.index("  forward") + 1
    assert lines[start : start + len(spelled)] == spelled
    assert lines[start + len(spelled)] == ""
    assert parse_snapshot(data).changes == (change,)


def test_forgotten_deltas_are_tombstones() -> None:
    change = _change(forward=tombstone("ab" * 32))
    data = render_snapshot(_row(), [change])
    assert b"\n  forward forgotten sha256:" + b"ab" * 32 + b"\n  reverse\n" in data
    assert parse_snapshot(data).changes == (change,)


@pytest.mark.parametrize(
    "line", ["  forward forgotten", "  forward forgotten sha256:AB", "  forward forgotten sha256:"]
)
def test_tombstones_need_a_digest(line: str) -> None:
    data = render_snapshot(_row(), [_change(forward=tombstone("ab" * 32))])
    crafted = data.replace(b"  forward forgotten sha256:" + b"ab" * 32, line.encode())
    with pytest.raises(LedgerFormatError, match="forgotten"):
        parse_snapshot(crafted)


def test_a_tombstone_without_a_digest_is_not_written() -> None:
    with pytest.raises(ValueError, match="tombstone"):
        render_snapshot(_row(), [_change(forward=tombstone("nope"))])


def test_quote_insert_is_the_quoting_of_computed_deltas() -> None:
    deltas = compute_deltas("a\n", "a\nb é 😀\t%\n")
    assert deltas is not None
    token = deltas.forward.split("\t")[-1]
    assert token == "+" + quote_insert("b é 😀\t%\n")
    assert unquote_insert(token[1:]) == "b é 😀\t%\n"


@pytest.mark.parametrize(
    ("row", "changes"),
    [
        (_row(version=1), []),
        (_row(parent_id=None), []),
        (_row(0), [_change(snapshot=12)]),
        (_row(merges='["x"]'), []),
        (_row(merges=f'["{ID}","{PARENT}"]'), []),
        (_row(metadata="[]"), []),
        (_row(metadata='{"a":\n1}'), []),
        (_row(skipped="{}"), []),
        (_row(time="yesterday"), []),
        (_row(chain_hash="sha256:" + "A" * 64), []),
        (_row(), [_change(), _change()]),
        (_row(), [_change(base_mode=None)]),
        (_row(), [_change(size=None)]),
        (_row(), [_change(kind="moved")]),
        (_row(), [_change(storage="zip")]),
        (_row(), [_change(path="../x")]),
        (_row(), [_change(chain=-1)]),
        (_row(), [_change(forward=b"z-not-zlib")]),
        (_row(), [_change(forward=tombstone("AB" * 32))]),
    ],
)
def test_rows_the_ledger_cannot_write_are_refused(
    row: SnapshotRow, changes: list[ChangeRow]
) -> None:
    with pytest.raises(ValueError):
        render_snapshot(row, changes)


# --- crafted damage: each refused at its line -------------------------------------------

Edit = Callable[[list[str]], list[str]]


def _at(index: int, new: str) -> Edit:
    return lambda lines: [*lines[:index], new, *lines[index + 1 :]]


def _drop(index: int) -> Edit:
    return lambda lines: [*lines[:index], *lines[index + 1 :]]


def _example_lines() -> list[str]:
    lines = EXAMPLE.decode().split("\n")
    assert lines[:2] == ["snapline snapshot 2", "number 12"]
    assert lines[12:14] == ['modified "src/app.py"', "  base " + HASH_A + " 100644"]
    assert lines[17:21] == ["    =19", "    -13", "    +    return 2", "  reverse"]
    return lines


CRAFTED: list[tuple[str, Edit, int, str]] = [
    ("version", _at(0, "snapline snapshot 3"), 1, "version 3 is not known"),
    ("magic", _at(0, "snapline snapshots 2"), 1, "expected `snapline snapshot 2`"),
    ("key", _at(1, "numbr 12"), 2, "expected `number N`, found 'numbr 12'"),
    ("leading zero", _at(1, "number 012"), 2, "not a canonical number"),
    ("sign", _at(1, "number +12"), 2, "not a canonical number"),
    ("too big", _at(1, f"number {2**63}"), 2, "not a canonical number"),
    ("id", _at(2, "id " + ID.upper()), 3, "not a snapshot id"),
    ("no parent", _drop(3), 4, "expected `parent ID`"),
    ("baseline parent", _at(1, "number 0"), 4, "the baseline (snapshot 0) has no parent"),
    ("merges", _at(3, f"parent {PARENT}\nmerges {ID}  {ID}"), 5, "not a snapshot id"),
    ("time", _at(4, "time 2026-11-23 05:48:11"), 5, "not a UTC time"),
    ("arabic digits", _at(4, "time ٢٠٢٦-11-23T05:48:11Z"), 5, "not a UTC time"),
    ("json", _at(5, "tool agent"), 6, "not a JSON string"),
    ("escape", _at(5, 'tool "\\u0061gent"'), 6, "not in canonical form"),
    ("ascii", _at(7, 'description "\\u00e9"'), 8, "not in canonical form"),
    ("not object", _at(8, "metadata []"), 9, "not a JSON object"),
    ("not list", _at(9, "skipped {}"), 10, "not a JSON list"),
    ("hash", _at(10, "chain sha256:" + "A" * 64), 11, "not a sha256 hash"),
    ("no blank", _drop(11), 12, "expected a blank line"),
    ("kind", _at(12, 'moved "src/app.py"'), 13, "expected a change"),
    ("escapes", _at(12, 'modified "../x"'), 13, "path '../x' is unsafe"),
    ("store", _at(12, 'modified ".snapline/x"'), 13, "is unsafe"),
    ("mode", _at(13, "  base " + HASH_A + " 0100644"), 14, "not a canonical octal mode"),
    ("mode digits", _at(13, "  base " + HASH_A + " 100648"), 14, "not a canonical octal mode"),
    ("result", _at(14, "  result " + HASH_B + " 100644"), 15, "expected `HASH MODE SIZE`"),
    # Lines that the common-case matcher does not take: the field parsers say why.
    ("base hash", _at(13, "  base sha256:" + "A" * 64 + " 100644"), 14, "not a sha256 hash"),
    ("result hash", _at(14, "  result sha256:" + "b" * 63 + " 100644 32"), 15, "not a sha256"),
    ("size", _at(14, "  result " + HASH_B + " 100644 032"), 15, "not a canonical number"),
    ("big size", _at(14, f"  result {HASH_B} 100644 {2**63}"), 15, "not a canonical number"),
    ("chain", _at(15, "  storage delta 01 43"), 16, "not a canonical number"),
    ("spaced", _at(15, "  storage delta  1 43"), 16, "expected `delta|full|none|hash-only"),
    ("content", _at(15, "  storage delta 1 43\n  content sha256:x"), 17, "not a sha256 hash"),
    ("quoted escapes", _at(12, 'modified "src\\\\..\\/x"'), 13, "not in canonical form"),
    ("storage", _at(15, "  storage zip 1 43"), 16, "expected `delta|full|none|hash-only"),
    ("op", _at(17, "    *20"), 18, "not an op line"),
    ("op number", _at(17, "    =020"), 18, "not an op line"),
    ("not plain", _at(19, "    +\x7f"), 20, "not in canonical form"),
    ("tilde plain", _at(19, '    ~"    return 2\\n"'), 20, "not in canonical form"),
    ("bang", _at(17, '    !"=19\\t-13\\t+    return 2%0A"'), 18, "not an op line"),
    ("reordered", lambda ls: [*ls[:16], *ls[20:24], *ls[16:20], ""], 21, "expected a change"),
    ("trailing", lambda ls: [*ls[:-1], "extra", ""], 25, "expected a change"),
    ("deep json", _at(8, "metadata " + "[" * 100_000), 9, "it is not JSON"),
    ("deep string", _at(5, "tool " + "[" * 100_000), 6, "not a JSON string"),
    ("deep insert", _at(19, "    ~" + "[" * 100_000), 20, "not a JSON string"),
    ("surrogate insert", _at(19, '    ~"\\ud800"'), 20, "lone surrogate"),
    ("surrogate delta", lambda ls: [*ls[:17], '    !"\\ud800"', *ls[20:]], 18, "lone surrogate"),
    ("deep delta", lambda ls: [*ls[:17], "    !" + "[" * 100_000, *ls[20:]], 18, "not a JSON"),
]


@pytest.mark.parametrize(
    ("edit", "line", "what"), [c[1:] for c in CRAFTED], ids=[c[0] for c in CRAFTED]
)
def test_crafted_damage_is_refused_at_its_line(edit: Edit, line: int, what: str) -> None:
    data = "\n".join(edit(_example_lines())).encode()
    with pytest.raises(LedgerFormatError) as caught:
        parse_snapshot(data)
    assert caught.value.line == line, str(caught.value)
    assert what in caught.value.what
    assert str(caught.value) == f"line {line}: {caught.value.what}"


def test_a_blank_line_without_changes_after_it_is_refused() -> None:
    # The renderer writes the blank line only before the first change; the parser is
    # what refuses anything else, with no render to compare with.
    header = render_snapshot(_row(), [])
    assert not header.endswith(b"\n\n")
    with pytest.raises(LedgerFormatError, match="a blank line with no change after it"):
        parse_snapshot(header + b"\n")
    assert parse_snapshot(header).changes == ()


def _baseline_block(path: str) -> list[str]:
    return [
        f"added {path}",
        f"  result {HASH_B} 100644 32",
        "  storage full 0 0",
        f"  content {HASH_B}",
    ]


@pytest.mark.parametrize(
    ("block", "line", "what"),
    [
        (_baseline_block('"../x"'), 13, "path '../x' is unsafe"),
        (_baseline_block('".snapline/index.db"'), 13, "is unsafe"),
        (_baseline_block('"a//b"'), 13, "is unsafe"),
        ([*_baseline_block('"a"')[:3], f"  content {HASH_B.upper()}"], 16, "not a sha256"),
        ([*_baseline_block('"a"'), "  content " + HASH_B], 17, "expected a change"),
    ],
    ids=["escapes", "store", "empty part", "upper hash", "twice"],
)
def test_a_baseline_block_read_in_one_step_refuses_what_the_lines_refuse(
    block: list[str], line: int, what: str
) -> None:
    # The block a baseline is made of is matched whole; an unsafe path or any line
    # after it that belongs to a change (a delta, a second content) is read line by line.
    head = render_snapshot(_row(), []).decode().split("\n")[:-1]
    data = "\n".join([*head, "", *block, ""]).encode()
    with pytest.raises(LedgerFormatError) as caught:
        parse_snapshot(data)
    assert caught.value.line == line, str(caught.value)
    assert what in caught.value.what


@pytest.mark.parametrize(
    ("tail", "forward", "reverse"),
    [(["  forward"], b"", None), (["  reverse", "    =1"], None, b"=1")],
    ids=["forward", "reverse"],
)
def test_a_baseline_shaped_block_with_a_delta_is_read_with_it(
    tail: list[str], forward: bytes | None, reverse: bytes | None
) -> None:
    head = render_snapshot(_row(), []).decode().split("\n")[:-1]
    data = "\n".join([*head, "", *_baseline_block('"a"'), *tail, ""]).encode()
    (change,) = parse_snapshot(data).changes
    assert change.forward is None if forward is None else unpack(change.forward, limit=9) == forward
    assert change.reverse is None if reverse is None else unpack(change.reverse, limit=9) == reverse
    assert render_snapshot(_row(), [change]) == data


def test_changes_out_of_order_or_twice_are_refused() -> None:
    data = render_snapshot(_row(), [_change("a"), _change("b")]).decode()
    a_block, b_block = data.split("\nmodified ")[1:]
    head = data.split("\nmodified ")[0]
    swapped = f"{head}\nmodified {b_block.rstrip()}\nmodified {a_block}\n"
    with pytest.raises(LedgerFormatError, match="changes out of order: 'a' after 'b'"):
        parse_snapshot(swapped.encode())
    twice = f"{head}\nmodified {a_block}\nmodified {a_block}\n"
    with pytest.raises(LedgerFormatError, match="'a' listed twice"):
        parse_snapshot(twice.encode())


def test_a_bang_where_op_lines_would_do_is_refused() -> None:
    lines = _example_lines()
    data = "\n".join([*lines[:17], '    !"=19\\t-13\\t+    return 2%0A"', *lines[20:]])
    with pytest.raises(LedgerFormatError, match="line 18: not in canonical form: a `!`"):
        parse_snapshot(data.encode())


def test_the_canonical_check_names_the_first_line_that_differs() -> None:
    check_canonical(["a", "b"], lambda: b"a\nb\n")
    with pytest.raises(LedgerFormatError, match="line 2: not in canonical form: expected 'c'"):
        check_canonical(["a", "b"], lambda: b"a\nc\n")
    with pytest.raises(LedgerFormatError, match="line 3: not in canonical form"):
        check_canonical(["a", "b", "c"], lambda: b"a\nb\n")


def test_the_bytes_that_are_not_text_are_refused() -> None:
    with pytest.raises(LedgerFormatError, match="line 3: not UTF-8"):
        parse_snapshot(EXAMPLE.replace(b"id ", b"id \xff", 1))
    with pytest.raises(LedgerFormatError, match="does not end with a line end"):
        parse_snapshot(EXAMPLE[:-1])
    with pytest.raises(LedgerFormatError, match="line 1: expected `snapline snapshot 2`"):
        parse_snapshot(EXAMPLE.replace(b"\n", b"\r\n"))


def test_a_delta_larger_than_the_limit_is_refused() -> None:
    with pytest.raises(LedgerFormatError, match="line 20: delta larger than 10 bytes"):
        parse_snapshot(EXAMPLE, max_delta_bytes=10)
    big = _change(forward=pack(b"+a\t+b" * 10), reverse=None)
    with pytest.raises(LedgerFormatError, match="line 18: delta larger than 20 bytes"):
        parse_snapshot(render_snapshot(_row(), [big]), max_delta_bytes=20)


# --- fuzz: nothing but LedgerFormatError escapes ----------------------------------------


def _parses_or_refuses(data: bytes) -> None:
    try:
        record = parse_snapshot(data)
    except LedgerFormatError:
        return
    assert render_snapshot(record.row, record.changes) == data


@given(st.binary(max_size=200))
def test_random_bytes_are_refused(data: bytes) -> None:
    _parses_or_refuses(data)
    with pytest.raises(LedgerFormatError):
        parse_milestone(data)


_NOISE = st.one_of(
    st.text(max_size=12),
    st.sampled_from(
        ["", " ", "    ", "    +", '    ~""', "    !", "  forward", "[" * 3000, '"\\ud800"']
    ),
)


@given(_records(), st.data())
def test_mutated_files_parse_back_exactly_or_are_refused(
    record: SnapshotRecord, data: st.DataObject
) -> None:
    lines = render_snapshot(record.row, record.changes).split(b"\n")
    index = data.draw(st.integers(0, len(lines) - 1))
    how = data.draw(st.sampled_from(["replace", "insert", "drop", "edit", "truncate", "swap"]))
    noise = data.draw(_NOISE).encode("utf-8", "surrogatepass")
    if how == "replace":
        lines[index] = noise
    elif how == "insert":
        lines.insert(index, noise)
    elif how == "drop":
        del lines[index]
    elif how == "edit":
        at = data.draw(st.integers(0, len(lines[index])))
        lines[index] = lines[index][:at] + noise + lines[index][at + 1 :]
    elif how == "swap":
        other = data.draw(st.integers(0, len(lines) - 1))
        lines[index], lines[other] = lines[other], lines[index]
    mutated = b"\n".join(lines)
    if how == "truncate":
        mutated = mutated[: data.draw(st.integers(0, len(mutated)))]
    _parses_or_refuses(mutated)


# --- milestones -------------------------------------------------------------------------

MILESTONE = MilestoneRow(3, "second", "", '["v1"]', "2026-11-23T05:48:11Z", 4, 7, 1, HASH_A)


@given(
    st.builds(
        MilestoneRow,
        number=st.integers(0, 2**63 - 1),
        title=_TEXT,
        description=_TEXT,
        tags=st.lists(_TEXT, max_size=3).map(json.dumps),
        time=_TIMES,
        first=st.integers(0, 10),
        last=st.integers(10, 2**63 - 1),
        version=st.just(1),
        chain_hash=_HASH,
    ),
    _HEX,
)
def test_milestones_round_trip(row: MilestoneRow, last_id: str) -> None:
    data = render_milestone(row, last_id)
    record = parse_milestone(data)
    assert record == MilestoneRecord(row, last_id)
    assert render_milestone(record.row, record.last_id) == data


def test_a_milestone_file_reads_as_specified() -> None:
    data = render_milestone(MILESTONE, ID)
    assert data.decode().split("\n") == [
        "snapline milestone 1",
        "number 3",
        "first 4",
        "last 7",
        f"last-id {ID}",
        "time 2026-11-23T05:48:11Z",
        'title "second"',
        'description ""',
        'tags ["v1"]',
        f"chain {HASH_A}",
        "",
    ]


@pytest.mark.parametrize(
    ("index", "new", "what"),
    [
        (0, "snapline milestone 2", "version 2 is not known"),
        (3, "last 3", "the milestone ends (3) before it starts (4)"),
        (4, "last-id x", "not a snapshot id"),
        (6, "title second", "not a JSON string"),
        (8, 'tags ["v1", 2]', "not a JSON list of strings"),
        (9, "chain sha256:", "not a sha256 hash"),
        (10, "extra", "unexpected line"),
    ],
)
def test_damaged_milestones_are_refused_at_their_line(index: int, new: str, what: str) -> None:
    lines = render_milestone(MILESTONE, ID).decode().split("\n")
    lines[index:index + 1] = [new, ""] if index == 10 else [new]  # fmt: skip
    with pytest.raises(LedgerFormatError) as caught:
        parse_milestone("\n".join(lines).encode())
    assert (caught.value.line, what in caught.value.what) == (index + 1, True), caught.value


@pytest.mark.parametrize(
    "row",
    [
        MilestoneRow(3, "t", "", "[]", TIME, 8, 7, 1, HASH_A),
        MilestoneRow(3, "t", "", "[1]", TIME, 4, 7, 1, HASH_A),
        MilestoneRow(3, "t", "", "[]", TIME, 4, 7, 2, HASH_A),
        MilestoneRow(-1, "t", "", "[]", TIME, 4, 7, 1, HASH_A),
    ],
)
def test_milestones_the_ledger_cannot_write_are_refused(row: MilestoneRow) -> None:
    with pytest.raises(ValueError):
        render_milestone(row, ID)


@given(st.binary(max_size=100), st.integers(0, 400))
def test_mutated_milestones_parse_back_exactly_or_are_refused(noise: bytes, at: int) -> None:
    data = render_milestone(MILESTONE, ID)
    mutated = data[:at] + noise + data[at + len(noise) :]
    try:
        record = parse_milestone(mutated)
    except LedgerFormatError:
        return
    assert render_milestone(record.row, record.last_id) == mutated


@pytest.mark.parametrize(
    ("data", "line", "what"),
    [
        (b"one\ntwo\nth\xffree\nfour\n", 3, "not UTF-8"),
        (b"one\n\xe2\x82\ntwo\n", 2, "not UTF-8"),
        (b"one\ntwo", 2, "does not end with a line end"),
        (b"one", 1, "does not end with a line end"),
    ],
)
def test_split_lines_names_the_line_it_refuses(data: bytes, line: int, what: str) -> None:
    with pytest.raises(LedgerFormatError) as caught:
        split_lines(data)
    assert (caught.value.line, what in caught.value.what) == (line, True)


def test_split_lines_splits_at_lf_only() -> None:
    assert split_lines(b"") == []
    assert split_lines(b"\n") == [""]
    assert split_lines(b"a\rb\n\xc3\xa9\x0bc\n") == ["a\rb", "\xe9\x0bc"]


@given(st.text() | st.text(st.characters(min_codepoint=32, max_codepoint=127)).map(json.dumps))
@example('"plain"')
@example('"a\\u0041"')
@example('"\x7f"')
def test_a_string_field_is_read_as_json_reads_its_one_spelling(text: str) -> None:
    # parse_string reads a plain string in one step; json.loads and the canonical
    # spelling are the oracle for every text.
    try:
        value = json.loads(text)
    except ValueError:
        value = None
    if isinstance(value, str) and dump_string(value) == text:
        assert parse_string(text, 1) == value
    else:
        with pytest.raises(LedgerFormatError):
            parse_string(text, 1)


def _streamed(data: bytes, limit: int = 1 << 20) -> SnapshotRecord:
    return parse_snapshot_lines(decode_lines(io.BytesIO(data), limit))


@given(_records())
def test_a_file_read_line_by_line_parses_as_one_read_whole(record: SnapshotRecord) -> None:
    data = render_snapshot(record.row, record.changes)
    assert _streamed(data, len(data)) == parse_snapshot(data) == record


@pytest.mark.parametrize(
    ("edit", "line", "what"), [c[1:] for c in CRAFTED], ids=[c[0] for c in CRAFTED]
)
def test_a_file_read_line_by_line_is_refused_at_the_same_line(
    edit: Edit, line: int, what: str
) -> None:
    data = "\n".join(edit(_example_lines())).encode()
    with pytest.raises(LedgerFormatError) as caught:
        _streamed(data)
    assert caught.value.line == line, str(caught.value)
    assert what in caught.value.what


def test_a_file_read_line_by_line_refuses_what_is_not_text_or_too_large() -> None:
    with pytest.raises(LedgerFormatError, match="line 3: not UTF-8"):
        _streamed(EXAMPLE.replace(b"id ", b"id \xff", 1))
    with pytest.raises(LedgerFormatError, match="does not end with a line end"):
        _streamed(EXAMPLE[:-1])
    with pytest.raises(LedgerFormatError, match="larger than 100 bytes"):
        _streamed(EXAMPLE, 100)
