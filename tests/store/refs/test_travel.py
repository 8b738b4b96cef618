"""The refs travel with git: push, fetch, clone (shallow too), linked work trees."""

from __future__ import annotations

from pathlib import Path

from snapline.store.refs.git import open_repository
from snapline.store.refs.layout import line_ref
from snapline.store.refs.reading import read_line
from tests.store.refs.lines import Line, git, make_repo

FILES = {"src/app.py": b"x = 1\n", "docs/guide.md": b"# guide\n"}
REFSPEC = "refs/snapline/*:refs/snapline/*"


def _history(root: Path) -> Line:
    line = Line.at(root)
    line.snapshot(dict(FILES), tool="init")
    for n in range(2, 6):
        line.snapshot({"src/app.py": b"x = %d\n" % n}, description=f"x is {n}")
    line.snapshot({"docs/new.md": b"new\n"}, tool="write")
    return line


def _summary(root: Path, line: str) -> list[tuple[str, int, str, dict[str, bytes]]]:
    repo = open_repository(root)
    found = []
    for snapshot in read_line(repo, line):
        files = {path: repo.read_blob(entry.id) for path, entry in repo.walk(snapshot.state)}
        found.append((snapshot.commit, snapshot.record.row.number, snapshot.record.row.id, files))
    return found


def test_pushed_and_fetched_into_a_fresh_clone(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "work", FILES)
    line = _history(root)
    assert line.line is not None
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(remote))
    git(root, "push", "-q", str(remote), "main", REFSPEC)
    assert git(remote, "for-each-ref", "--format=%(refname)").split() == [
        "refs/heads/main",
        line_ref(line.line),
    ]
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(remote), str(clone))
    # A plain clone brings the branches only: the history is fetched by its refspec.
    assert (clone / "src/app.py").read_bytes() == FILES["src/app.py"]
    assert read_line(open_repository(clone), line.line) == []
    git(clone, "fetch", "-q", "origin", REFSPEC)
    assert _summary(clone, line.line) == _summary(root, line.line)
    assert git(clone, "status", "--porcelain") == ""


def test_a_linked_work_tree_sees_and_extends_the_same_line(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "work", FILES)
    line = _history(root)
    assert line.line is not None
    linked = tmp_path / "linked"
    git(root, "worktree", "add", "-q", "-b", "agent-2", str(linked))
    other = open_repository(linked)
    assert other.common_dir == open_repository(root).common_dir
    assert other.git_dir != other.common_dir
    assert _summary(linked, line.line) == _summary(root, line.line)
    # A snapshot written from the linked work tree is on the line the main one reads.
    more = Line(other, line.line, line.tip)
    more.rows, more.changes, more.files = list(line.rows), list(line.changes), dict(line.files)
    more.snapshot({"src/app.py": b"x = 99\n"}, description="from the linked tree")
    assert [s.record.row.description for s in read_line(open_repository(root), line.line)][
        -1
    ] == "from the linked tree"
    assert git(linked, "status", "--porcelain") == ""
    assert git(root, "status", "--porcelain") == ""


def test_a_shallow_clone_reads_the_whole_history_after_one_fetch(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "work", FILES)
    for n in range(3):
        (root / "src/app.py").write_bytes(b"user %d\n" % n)
        git(root, "commit", "-q", "-am", f"user commit {n}")
    line = _history(root)
    assert line.line is not None
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(remote))
    git(root, "push", "-q", str(remote), "main", REFSPEC)
    clone = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{remote}", str(clone))
    assert git(clone, "rev-parse", "--is-shallow-repository").strip() == "true"
    assert len(git(clone, "log", "--format=%H").split()) == 1
    git(clone, "fetch", "-q", "origin", REFSPEC)
    assert _summary(clone, line.line) == _summary(root, line.line)
    assert len(_summary(clone, line.line)) == 6
