"""The inotify wrapper against the kernel: the events it reads, the errors it raises."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from snapline.scanning.inotify import (
    IN_CREATE,
    IN_IGNORED,
    IN_ISDIR,
    IN_MOVED_FROM,
    IN_MOVED_TO,
    IN_ONLYDIR,
    Event,
    Inotify,
)


@pytest.fixture
def inotify() -> Inotify:
    opened = Inotify.open()
    assert opened is not None and opened.fd >= 0
    return opened


def test_events_are_read_whole_and_in_order(tmp_path: Path, inotify: Inotify) -> None:
    assert inotify.read() == []
    mask = IN_CREATE | IN_MOVED_FROM | IN_MOVED_TO
    wd = inotify.add_watch(tmp_path, mask)
    assert inotify.add_watch(tmp_path, mask) == wd  # the same directory, the same watch
    (tmp_path / "a-long-name-padded-to-sixteen-bytes-X").write_text("x")
    (tmp_path / "d").mkdir()
    os.rename(tmp_path / "d", tmp_path / "e")
    events = inotify.read()
    assert [(e.wd, e.mask, e.name) for e in events] == [
        (wd, IN_CREATE, b"a-long-name-padded-to-sixteen-bytes-X"),
        (wd, IN_CREATE | IN_ISDIR, b"d"),
        (wd, IN_MOVED_FROM | IN_ISDIR, b"d"),
        (wd, IN_MOVED_TO | IN_ISDIR, b"e"),
    ]
    assert events[0].cookie == events[1].cookie == 0
    assert events[2].cookie == events[3].cookie != 0  # one rename, both halves
    assert inotify.read() == []
    inotify.rm_watch(wd)
    assert inotify.read() == [Event(wd, IN_IGNORED, 0, b"")]
    inotify.close()


def test_a_watch_that_cannot_be_made_says_why(tmp_path: Path, inotify: Inotify) -> None:
    missing = tmp_path / "missing"
    with pytest.raises(OSError) as caught:
        inotify.add_watch(missing, IN_CREATE)
    assert (caught.value.errno, caught.value.filename) == (errno.ENOENT, os.fspath(missing))
    assert caught.value.strerror == os.strerror(errno.ENOENT)
    (tmp_path / "file").write_text("x")
    with pytest.raises(OSError) as caught:
        inotify.add_watch(tmp_path / "file", IN_CREATE | IN_ONLYDIR)
    assert caught.value.errno == errno.ENOTDIR
    inotify.close()


def test_closing_is_idempotent_and_ends_reading(inotify: Inotify) -> None:
    fd = inotify.fd
    inotify.close()
    assert inotify.fd == -1
    with pytest.raises(OSError):
        os.fstat(fd)
    inotify.close()
    with pytest.raises(OSError):
        inotify.read()
