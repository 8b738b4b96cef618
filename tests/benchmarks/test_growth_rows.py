"""Rows G1-G6 (issue 30): the plumbing on tiny histories and trees.

The rows run, compare what they say (a long history with a short one, snapline with
git or with a hashing walk) and report their figures; speed is never checked.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from benchmarks.cases import ORDER
from benchmarks.growth import (
    GROWTH_ROWS,
    HASH_WALK,
    Sizes,
    copy_clone,
    directory_bytes,
    row_growth,
)
from tests.benchmarks.test_issue16_rows import _bench

TINY = Sizes(short=2, mid=3, long=6, history_files=40, tree_files=60)


def test_every_growth_row_is_measured_with_its_reference(tmp_path: Path) -> None:
    bench = _bench(tmp_path / "work")

    rows = {row.number: row for row in row_growth(bench, sizes=TINY)}

    assert set(rows) == set(GROWTH_ROWS) <= set(ORDER)
    assert all(row.skipped is None and row.met is not None for row in rows.values())
    for number in ("G1", "G2"):
        long, short = rows[number].snapline, rows[number].extra[0]
        assert long is not None and long.stats is not None and short.stats is not None
        assert "6 snapshots" in long.label and "2 snapshots" in short.label
    assert "3 snapshots" in rows["G4a"].title and "6 snapshots" in rows["G4b"].title
    for number in ("G3", "G4a", "G4b"):
        git = rows[number].git
        assert git is not None and git.stats is not None and rows[number].ratio is not None
    memory = rows["G5"]
    assert memory.snapline is not None and (memory.snapline.value or 0) > 1 << 20
    size = rows["G6"]
    assert size.snapline is not None and size.git is not None
    assert size.ratio == (size.snapline.value or 0) / (size.git.value or 1)
    # The default layout (issue 37): the history on the tree's refs, nothing in the tree;
    # G6 counts the refs' pack and the local index.
    tree = bench.config.workdir / "growth-tree"
    assert not (tree / ".snapline").exists() and (tree / ".git" / "snapline").is_dir()
    pack, index = (figure.value or 0 for figure in size.extra)
    assert pack > 0 and index > 0 and size.snapline.value == pack + index
    assert "after `snapline fetch`" in (rows["G3"].snapline.label if rows["G3"].snapline else "")
    # The clones are gone after the row.
    assert not list(bench.config.workdir.glob("growth-clone-*"))


def test_only_the_rows_asked_for_are_run(tmp_path: Path) -> None:
    bench = _bench(tmp_path / "work")

    rows = row_growth(bench, only={"G6"}, sizes=TINY)

    assert [row.number for row in rows] == ["G6"]
    assert not (bench.config.workdir / "growth-2").exists()


def test_the_hashing_walk_reads_every_listed_file(tmp_path: Path) -> None:
    (tmp_path / "a").write_bytes(b"x" * 3)
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b").write_bytes(b"y" * 5)
    listing = tmp_path / "list"
    listing.write_bytes(b"a\0sub/b")

    run = subprocess.run(
        [sys.executable, "-c", HASH_WALK, str(listing)],
        cwd=tmp_path,
        capture_output=True,
        check=True,
    )

    assert int(run.stdout) == 8
    assert directory_bytes(tmp_path / "sub") == 5


def test_a_copied_clone_links_its_files_and_keeps_its_symlinks(tmp_path: Path) -> None:
    clone = tmp_path / "clone"
    (clone / "src").mkdir(parents=True)
    (clone / "src" / "a.py").write_text("a\n")
    os.symlink("src/a.py", clone / "link")

    copy = copy_clone(clone, tmp_path / "copy")

    assert os.stat(copy / "src" / "a.py").st_ino == os.stat(clone / "src" / "a.py").st_ino
    assert os.readlink(copy / "link") == "src/a.py"
    assert (copy / "src").is_dir() and not (copy / "src").is_symlink()
