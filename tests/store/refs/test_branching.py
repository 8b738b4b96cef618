"""Lines that fork and merge, a cache's mark read from, and the lines listed."""

from __future__ import annotations

from pathlib import Path

import pytest

from snapline.store.refs.layout import line_ref
from snapline.store.refs.reading import LineRewrittenError, list_lines, read_line
from tests.store.refs.lines import Line, git, make_repo

FILES = {"app.py": b"v = 0\n", "lib.py": b"w = 0\n"}


def _main(root: Path) -> Line:
    line = Line.at(root)
    line.snapshot(dict(FILES), tool="init")
    line.snapshot({"app.py": b"v = 1\n"})
    line.snapshot({"app.py": b"v = 2\n"})
    return line


def _fork(main: Line, at: int) -> Line:
    """A second line forking after snapshot ``at`` of ``main`` (another agent's)."""
    side = Line(main.repo)
    side.rows = list(main.rows[: at + 1])
    side.changes = list(main.changes[: at + 1])
    side.files = {"app.py": b"v = %d\n" % at, "lib.py": FILES["lib.py"]}
    side.snapshot({"lib.py": b"w = 1\n"}, description="the other agent", fork=main.commits[at])
    return side


def test_a_forked_line_reads_from_its_first_snapshot(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", FILES)
    main = _main(root)
    side = _fork(main, 1)
    side.snapshot({"lib.py": b"w = 2\n"})
    assert side.line == side.rows[2].id != main.line
    snapshots = read_line(side.repo, side.line or "")
    assert [s.record.row.number for s in snapshots] == [2, 3]
    assert snapshots[0].parents == (main.commits[1],)
    # git log walks through the fork into the main line's first snapshots.
    subjects = git(root, "log", "--format=%s", line_ref(side.line or "")).splitlines()
    assert subjects[-2:] == ["snapline 1: edit: an edit", "snapline 0: init: an edit"]
    assert side.repo.read_path(snapshots[-1].state, "app.py") == b"v = 1\n"
    assert list_lines(side.repo) == {main.line: main.tip, side.line: side.tip}


def test_a_merge_snapshot_names_the_heads_it_joins(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", FILES)
    main = _main(root)
    side = _fork(main, 1)
    merge = main.tip
    main.snapshot({"lib.py": b"w = 1\n"}, tool="merge", merges=[side.tip or ""])
    last = read_line(main.repo, main.line or "")[-1]
    assert last.parents == (merge, side.tip)
    assert git(root, "rev-list", "--count", line_ref(main.line or "")).strip() == "5"


def test_reading_on_from_a_mark(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", FILES)
    main = _main(root)
    whole = read_line(main.repo, main.line or "")
    assert read_line(main.repo, main.line or "", after=main.commits[0]) == whole[1:]
    assert read_line(main.repo, main.line or "", after=main.tip) == []
    # A line rewritten (as a forget will) no longer holds the mark: read it whole.
    git(root, "update-ref", line_ref(main.line or ""), main.commits[1])
    with pytest.raises(LineRewrittenError):
        read_line(main.repo, main.line or "", after=main.commits[2])


def test_only_lines_named_by_a_snapshot_id_are_listed(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", FILES)
    main = _main(root)
    git(root, "update-ref", "refs/snapline/lines/not-an-id", main.tip or "")
    git(root, "update-ref", "refs/snapline/milestones/" + (main.line or ""), main.tip or "")
    assert list_lines(main.repo) == {main.line: main.tip}


def test_a_commit_joining_heads_its_record_does_not_name_is_refused(tmp_path: Path) -> None:
    from snapline.store.refs.reading import DamagedLineError

    root = make_repo(tmp_path / "repo", FILES)
    main = _main(root)
    side = _fork(main, 1)
    repo = main.repo
    tip = repo.read_commit(main.tip or "")
    # The tip's own tree, as a commit that also claims to join the other line.
    crafted = repo.write_commit(tip.tree, [*tip.parents, side.tip or ""], tip.message, 0)
    git(root, "update-ref", line_ref(main.line or ""), crafted)
    with pytest.raises(DamagedLineError, match="its commit joins"):
        read_line(repo, main.line or "")
