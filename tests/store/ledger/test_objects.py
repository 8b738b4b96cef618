"""Ledger objects in both forms: keyed bytes as documented, raw ones read forever."""

from __future__ import annotations

import zlib
from pathlib import Path

import pytest

from snapline.store.ledger.check import read_back
from snapline.store.ledger.files import Ledger, LedgerFileError
from tests.object_form import keyed_bytes, object_file, raw_object_file, sha256

ATTRIBUTES_1 = (
    "# Written by snapline: ledger files are compared byte for byte, never converted.\n* -text\n"
)


def _ledger(tmp_path: Path, format_line: str = "snapline ledger 2\n") -> Ledger:
    path = tmp_path / "ledger"
    path.mkdir()
    (path / "FORMAT").write_text(format_line)
    return Ledger(path)


@pytest.mark.parametrize(
    "content",
    [b"", b"a", b"line\n" * 10, bytes(1 << 20), bytes(range(256)) * 4097 + b"tail"],
    ids=["empty", "one-byte", "text", "one-mib-of-zeros", "over-one-block"],
)
def test_a_keyed_object_is_the_documented_bytes_and_reads_back(
    tmp_path: Path, content: bytes
) -> None:
    ledger = _ledger(tmp_path)
    ledger.write_object(sha256(content), content)
    (written,) = ledger.path.glob("objects/*/*")
    assert written == object_file(ledger.path, content)
    assert written.read_bytes() == keyed_bytes(content)
    assert ledger.read_object(sha256(content), 1 << 30) == content
    assert ledger.object_hashes() == {sha256(content)}
    assert [entry.problem for entry in read_back(ledger)] == [None]


TEXT = Path(__file__).read_bytes()
"""A real text file: this test module's own source."""


@pytest.mark.parametrize(
    "content",
    [TEXT, bytes(3 << 20), bytes(range(256)) * 64, b"\n" * 200],
    ids=["text", "three-mib-of-zeros", "every-byte-value", "newlines"],
)
def test_every_byte_of_a_keyed_object_differs_from_the_content_at_its_offset(
    tmp_path: Path, content: bytes
) -> None:
    ledger = _ledger(tmp_path)
    ledger.write_object(sha256(content), content)
    body = object_file(ledger.path, content).read_bytes().partition(b"\n")[2]
    assert len(body) == len(content)
    assert [j for j, (a, b) in enumerate(zip(content, body, strict=True)) if a == b] == []


@pytest.mark.parametrize("content", [TEXT, bytes(300_000)], ids=["text", "zeros"])
def test_zlib_compresses_a_keyed_object_as_well_as_its_content(
    tmp_path: Path, content: bytes
) -> None:
    # git deflates every blob it stores: an object costs about what the content would.
    ledger = _ledger(tmp_path)
    ledger.write_object(sha256(content), content)
    written = object_file(ledger.path, content).read_bytes()
    packed, alone = len(zlib.compress(written, 6)), len(zlib.compress(content, 6))
    assert alone < len(content) / 3  # the content itself compresses well
    assert packed <= alone * 1.05 + 100  # and so does its object (the header: 90 bytes)


def test_a_raw_object_reads_as_it_is_beside_a_keyed_one(tmp_path: Path) -> None:
    ledger = _ledger(tmp_path)
    content = b"written by ledger 1\n"
    raw = raw_object_file(ledger.path, content)
    raw.parent.mkdir(parents=True)
    raw.write_bytes(content)
    assert ledger.has_object(sha256(content))
    assert ledger.read_object(sha256(content), 1 << 30) == content
    ledger.write_object(sha256(content), content)  # two branches met: both forms
    assert ledger.object_hashes() == {sha256(content)}
    assert [entry.problem for entry in read_back(ledger)] == [None, None]


def test_a_keyed_object_under_another_name_or_edited_is_named_as_damage(tmp_path: Path) -> None:
    ledger = _ledger(tmp_path)
    one, two = b"one\n", b"two\n"
    ledger.write_object(sha256(one), one)
    ledger.write_object(sha256(two), two)
    # Another object's bytes under this name: its header names the other content.
    object_file(ledger.path, two).write_bytes(keyed_bytes(one))
    with pytest.raises(LedgerFileError, match="first line"):
        ledger.read_object(sha256(two), 1 << 30)
    # The header kept, one body byte flipped: decoded, it is not the named content.
    edited = bytearray(keyed_bytes(one))
    edited[-1] ^= 1
    object_file(ledger.path, one).write_bytes(bytes(edited))

    problems = {Path(entry.location).name: entry.problem for entry in read_back(ledger)}

    assert problems[object_file(ledger.path, one).name] == (
        "its content does not match its name (edited)"
    )
    assert "first line" in str(problems[object_file(ledger.path, two).name])


def test_only_object_names_count_as_objects(tmp_path: Path) -> None:
    ledger = _ledger(tmp_path)
    content = b"kept\n"
    ledger.write_object(sha256(content), content)
    hex_ = sha256(content)[len("sha256:") :]
    fan = ledger.path / "objects" / hex_[:2]
    for junk in (f".{hex_[2:]}.x.snapline-tmp-0123456789abcdef", "README", hex_[2:] + ".y"):
        (fan / junk).write_bytes(b"junk")
    (ledger.path / "objects" / "zz").mkdir()
    (ledger.path / "objects" / "zz" / hex_[2:]).write_bytes(b"junk")
    (ledger.path / "objects" / "loose").write_bytes(b"junk")

    assert ledger.object_hashes() == {sha256(content)}
    assert [entry.problem for entry in read_back(ledger)] == [None]
