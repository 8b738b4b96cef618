"""One file read and hashed as found on disk: its mode, its content, and never torn content.

``read_disk_file`` is what every record, check and baseline reads a file with: the hash
it returns is the one stored, so it must be the hash of bytes that were on disk whole.
A writer racing the read is made with an ``open`` that rewrites the file mid-read.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from snapline.hashing import hash_bytes
from snapline.scanning import fingerprint
from snapline.scanning.fingerprint import (
    MODE_EXECUTABLE,
    MODE_FILE,
    MODE_SYMLINK,
    DiskFile,
    FileChangingError,
    read_disk_file,
    same_stat,
)

_LIMIT = 1000


def _read(path: Path, *, want_content: bool = True, limit: int = _LIMIT) -> DiskFile:
    return read_disk_file(
        path, path.name, os.lstat(path), large_limit=limit, want_content=want_content
    )


def test_a_file_its_mode_content_and_stat(tmp_path: Path) -> None:
    plain = tmp_path / "plain.txt"
    plain.write_bytes(b"hello\n")
    assert _read(plain) == DiskFile(
        path="plain.txt", hash=hash_bytes(b"hello\n"), mode=MODE_FILE, size=6,
        content=b"hello\n", stat=os.lstat(plain), large=False,
    )  # fmt: skip
    assert _read(plain, want_content=False).content is None
    script = tmp_path / "run.sh"
    script.write_bytes(b"#!/bin/sh\n")
    script.chmod(0o744)  # the owner's x bit alone makes it executable, as in git
    assert _read(script).mode == MODE_EXECUTABLE
    script.chmod(0o655)
    assert _read(script).mode == MODE_FILE
    link = tmp_path / "link"
    link.symlink_to("plain.txt")
    assert _read(link) == DiskFile(
        path="link", hash=hash_bytes(b"plain.txt"), mode=MODE_SYMLINK, size=9,
        content=b"plain.txt", stat=os.lstat(link), large=False,
    )  # fmt: skip


def test_above_the_large_file_limit_only_the_hash_is_kept(tmp_path: Path) -> None:
    big = tmp_path / "big.bin"
    data = bytes(range(256)) * 8
    big.write_bytes(data)
    found = _read(big, limit=len(data) - 1)
    assert (found.hash, found.size, found.content, found.large) == (
        hash_bytes(data), len(data), None, True,
    )  # fmt: skip
    at_the_limit = _read(big, limit=len(data))
    assert (at_the_limit.content, at_the_limit.large) == (data, False)
    # A symlink's target is small whatever the limit says.
    (tmp_path / "link").symlink_to("big.bin")
    assert _read(tmp_path / "link", limit=0).large is False


def test_what_is_not_a_file_is_not_found(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "fifo")
    with pytest.raises(FileNotFoundError, match=r"^fifo$"):
        _read(tmp_path / "fifo")


class _Writer:
    """An ``open`` that rewrites the file while it is read, ``times`` times."""

    def __init__(self, versions: list[bytes]) -> None:
        self.versions = versions
        self.opened = 0

    def open(self, path: Any, mode: str = "r") -> Any:
        handle = open(path, mode)  # noqa: SIM115 - handed to the caller
        if self.opened < len(self.versions):
            data = handle.read()  # the reader got the old bytes...
            handle.close()
            Path(path).write_bytes(self.versions[self.opened])  # ...and the file changed
            self.opened += 1
            handle = _Bytes(data)
        else:
            self.opened += 1
        return handle


class _Bytes:
    def __init__(self, data: bytes) -> None:
        self._data = data

    def read(self, *args: Any) -> bytes:
        data, self._data = self._data, b""
        return data

    def __enter__(self) -> _Bytes:
        return self

    def __exit__(self, *exc: object) -> None:
        pass


def _old(path: Path, data: bytes) -> None:
    path.write_bytes(data)
    os.utime(path, ns=(1_000_000_000, 1_000_000_000))  # long before any rewrite


def test_a_file_rewritten_while_read_is_read_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    busy = tmp_path / "busy.txt"
    _old(busy, b"old old\n")
    # Rewritten with the same size: only its times tell the read was torn.
    writer = _Writer([b"new new\n"])
    monkeypatch.setattr(fingerprint, "open", writer.open, raising=False)
    found = _read(busy)
    assert writer.opened == 2
    assert (found.content, found.hash) == (b"new new\n", hash_bytes(b"new new\n"))
    assert found.stat == os.lstat(busy)


def test_a_file_that_never_holds_still_is_refused_by_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    busy = tmp_path / "log.txt"
    _old(busy, b"line 1\n")
    writer = _Writer([b"line 1\nline 2\n", b"line 1\nline 2\nline 3\n", b"again\n"])
    monkeypatch.setattr(fingerprint, "open", writer.open, raising=False)
    with pytest.raises(FileChangingError) as caught:
        _read(busy)
    assert writer.opened == 3
    assert str(caught.value) == (
        "log.txt changed while it was being read; wait for the writer to finish and record again"
    )
    assert caught.value.path == "log.txt"


def test_the_same_stat_is_every_field_the_same(tmp_path: Path) -> None:
    (tmp_path / "f").write_text("x")
    base = os.lstat(tmp_path / "f")
    assert same_stat(base, os.lstat(tmp_path / "f"))
    fields = list(base)
    for name, index in [("st_mode", 0), ("st_ino", 1), ("st_size", 6)]:
        changed = fields.copy()
        changed[index] += 1
        assert not same_stat(base, os.stat_result(changed)), name
    for name in ("st_mtime_ns", "st_ctime_ns"):
        extra = {n: getattr(base, n) for n in ("st_atime_ns", "st_mtime_ns", "st_ctime_ns")}
        extra[name] += 1
        other = os.stat_result(fields[:10], extra)
        assert (other.st_size, getattr(other, name)) == (base.st_size, getattr(base, name) + 1)
        assert not same_stat(base, other), name
