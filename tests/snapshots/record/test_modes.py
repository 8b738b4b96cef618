"""Issue 14, items 8 and 17: writes keep a file's permission bits; content never becomes a link.

Item 8: ``write_file`` on a 0600 ``.env`` left it 0644, a 0700 script became 0755.
Every write into the workspace (edits, rollback, revert, recovery) goes through
``atomic.write_file``, which now keeps the bits of the file it replaces; only the
executable bits follow the history's git mode. Item 17: ``write_file`` over a tracked
symlink replaces the link by a regular file, recorded as mode 100644.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from snapline import Workspace
from snapline.atomic import write_file

_FILE = 0o100644
_EXEC = 0o100755


def _bits(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


@pytest.fixture
def umask_022() -> Iterator[None]:
    old = os.umask(0o022)
    yield
    os.umask(old)


# (bits before, git mode written, bits expected after)
_CASES = [
    (0o600, _FILE, 0o600),
    (0o640, _FILE, 0o640),
    (0o644, _FILE, 0o644),
    (0o400, _FILE, 0o400),
    (0o700, _EXEC, 0o700),
    (0o750, _EXEC, 0o750),
    (0o755, _EXEC, 0o755),
    (0o711, _EXEC, 0o711),
    # The history says the bit flips: only the executable bits change.
    (0o600, _EXEC, 0o700),
    (0o640, _EXEC, 0o750),
    (0o700, _FILE, 0o600),
    (0o750, _FILE, 0o640),
    (0o755, _FILE, 0o644),
]


@pytest.mark.parametrize(("before", "mode", "after"), _CASES)
def test_replacing_a_file_keeps_its_bits(
    tmp_path: Path, umask_022: None, before: int, mode: int, after: int
) -> None:
    path = tmp_path / "f"
    path.write_bytes(b"old\n")
    os.chmod(path, before)
    write_file(path, b"new\n", mode)
    assert path.read_bytes() == b"new\n"
    assert oct(_bits(path)) == oct(after)


@pytest.mark.parametrize(
    ("umask", "mode", "after"),
    [(0o022, _FILE, 0o644), (0o077, _FILE, 0o600), (0o027, _EXEC, 0o750), (0o022, _EXEC, 0o755)],
)
def test_a_new_file_gets_the_umask_defaults(
    tmp_path: Path, umask: int, mode: int, after: int
) -> None:
    old = os.umask(umask)
    try:
        write_file(tmp_path / "new", b"x\n", mode)
    finally:
        os.umask(old)
    assert oct(_bits(tmp_path / "new")) == oct(after)


@pytest.mark.parametrize("bits", [0o600, 0o640, 0o700, 0o750, 0o755])
def test_edits_rollback_and_revert_keep_the_bits(
    tmp_path: Path, umask_022: None, bits: int
) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    path = root / ".env"
    path.write_text("one\n")
    os.chmod(path, bits)
    with Workspace.init(root) as ws:
        ws.write_file(".env", "two\n")
        assert _bits(path) == bits
        ws.write_file(".env", "three\n")
        ws.rollback(1)
        assert path.read_text() == "two\n" and _bits(path) == bits
        ws.revert(1)
        assert path.read_text() == "one\n" and _bits(path) == bits
        assert ws.check_sync().ok


@pytest.mark.parametrize("content", ["text for a file\n", b"\x00\x01binary\xff\xfe"])
def test_write_file_over_a_tracked_symlink_replaces_the_link(
    tmp_path: Path, content: str | bytes
) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "target.txt").write_text("target\n")
    (root / "link").symlink_to("target.txt")
    with Workspace.init(root) as ws:
        snapshot = ws.write_file("link", content)
        assert snapshot is not None
        [change] = snapshot.files
        assert (change.path, change.base_mode, change.result_mode) == ("link", 0o120000, _FILE)
        data = content.encode() if isinstance(content, str) else content
        assert not (root / "link").is_symlink()
        assert (root / "link").read_bytes() == data
        assert (root / "target.txt").read_text() == "target\n"
        assert ws.content_at("link") == data
        assert ws.check_sync().ok
        ws.rollback(0)
        assert os.readlink(root / "link") == "target.txt"
