"""The atomic-write primitive: all or nothing, modes exact, no temp files left."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from snapline import atomic


def test_write_replaces_content_and_sets_mode(tmp_path: Path) -> None:
    target = tmp_path / "d" / "f.sh"
    atomic.write_file(target, b"#!/bin/sh\n", 0o100755)
    assert target.read_bytes() == b"#!/bin/sh\n"
    assert os.stat(target).st_mode & stat.S_IXUSR
    atomic.write_file(target, b"plain", 0o100644)
    assert not os.stat(target).st_mode & stat.S_IXUSR
    assert sorted(p.name for p in target.parent.iterdir()) == ["f.sh"]


def test_failed_write_leaves_old_content_and_no_temp_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "f"
    target.write_bytes(b"old")

    def broken_replace(src: object, dst: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(atomic.os, "replace", broken_replace)
    with pytest.raises(OSError):
        atomic.write_file(target, b"new", 0o100644)
    assert target.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["f"]


def test_symlink_is_written_as_a_link(tmp_path: Path) -> None:
    target = tmp_path / "link"
    atomic.write_file(target, b"somewhere/else", 0o120000)
    assert os.readlink(target) == "somewhere/else"


def test_remove_prunes_empty_directories_up_to_the_root(tmp_path: Path) -> None:
    target = tmp_path / "a" / "b" / "f"
    atomic.write_file(target, b"x", 0o100644)
    atomic.remove_file(target, root=tmp_path)
    assert not (tmp_path / "a").exists()
    assert tmp_path.exists()
