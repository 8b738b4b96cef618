"""``sweep``: every tracked file's own ``lstat`` against the one that vouches for it.

What a warm check adds to the monitor's journal: a write through a hard link made from
outside the tree comes with no event in the tree, but the file's ctime moves.
"""

from __future__ import annotations

import os
from pathlib import Path

from snapline.scanning.tracked import sweep


def _stamp(path: Path) -> tuple[int, int]:
    info = os.lstat(path)
    return info.st_ino, info.st_ctime_ns


def test_sweep_names_what_moved_and_what_has_other_names(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    (root / "d").mkdir(parents=True)
    for name in ["same", "written", "gone", "untrusted", "linked", "replaced", "d/deep", "file"]:
        (root / name).write_text("v1\n")
    rows = [(name, *_stamp(root / name)) for name in
            ["same", "written", "gone", "linked", "replaced", "d/deep"]]  # fmt: skip
    rows += [("untrusted", None, None), ("file/below", 1, 1)]  # a parent that is a file now
    os.utime(root / "written", ns=(0, 0))  # the ctime moves whatever the content
    (root / "gone").unlink()
    os.link(root / "linked", tmp_path / "outside-name")
    os.link(root / "same", tmp_path / "same-outside")
    os.unlink(tmp_path / "same-outside")  # back to one link, but the ctime moved
    (root / "replaced.new").write_text("v1\n")
    os.replace(root / "replaced.new", root / "replaced")
    moved, linked = sweep(root, rows)
    assert moved == {"same", "written", "gone", "linked", "replaced", "untrusted", "file/below"}
    assert linked == {"linked"}
    # Unchanged files and one name each: nothing to look at.
    rows = [(name, *_stamp(root / name)) for name in ["same", "linked", "d/deep"]]
    assert sweep(root, rows) == (set(), {"linked"})
    # Another inode alone, or another ctime alone, is another file.
    ino, ctime = _stamp(root / "d/deep")
    assert sweep(root, [("d/deep", ino + 1, ctime)]) == ({"d/deep"}, set())
    assert sweep(root, [("d/deep", ino, ctime + 1)]) == ({"d/deep"}, set())
