"""A line of snapshots on git's refs: written, read back, and seen by plain git."""

from __future__ import annotations

from pathlib import Path

from snapline.store.ledger.format import SnapshotRecord, render_snapshot
from snapline.store.refs.git import open_repository
from snapline.store.refs.layout import line_ref
from snapline.store.refs.reading import read_line
from snapline.store.refs.writing import StateEdit, append_snapshot
from tests.store.refs.lines import Line, git, git_bytes, make_repo

APP = b"def f():\n    return 1\n"
FILES = {
    "src/app.py": APP,
    "src/util/strings.py": b"NAME = 'x'\n",
    "README.md": b"# project\n",
    "data/blob.bin": bytes(range(256)) * 4,
}


def _chain(root: Path) -> Line:
    line = Line.at(root)
    line.snapshot(dict(FILES), tool="init", description="baseline")
    line.snapshot({"src/app.py": b"def f():\n    return 2\n"}, description="fix the parser")
    line.snapshot({"src/new.py": b"print('new')\n"}, tool="write")
    line.snapshot({"README.md": None}, tool="delete", description="drop the readme")
    line.snapshot(
        {"src/app.py": b"def f():\n    return 3\n", "data/blob.bin": b"\x00\xff" * 9},
        description="two files\nand a second line of description",
    )
    return line


def test_a_chain_is_read_back_as_written(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", FILES)
    line = _chain(root)
    assert line.line is not None
    snapshots = read_line(line.repo, line.line)
    assert [s.commit for s in snapshots] == line.commits
    assert [s.record for s in snapshots] == [
        SnapshotRecord(row, changes) for row, changes in zip(line.rows, line.changes, strict=True)
    ]
    assert [s.record.row.number for s in snapshots] == [0, 1, 2, 3, 4]
    # The last state is the workspace the line describes, file by file.
    listed = git(root, "ls-tree", "-r", "--name-only", f"{snapshots[-1].state}").split()
    assert sorted(listed) == sorted(line.files)
    for path, data in line.files.items():
        assert line.repo.read_path(snapshots[-1].state, path) == data
    assert line.repo.read_path(snapshots[0].state, "README.md") == FILES["README.md"]
    assert line.repo.read_path(snapshots[-1].state, "README.md") is None


def test_plain_git_shows_the_line(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", FILES)
    line = _chain(root)
    assert line.line is not None
    ref = line_ref(line.line)
    assert ref.startswith("refs/snapline/lines/")
    subjects = git(root, "log", "--format=%s", ref).splitlines()
    assert subjects == [
        "snapline 4: edit: two files",
        "snapline 3: delete: drop the readme",
        "snapline 2: write: an edit",
        "snapline 1: edit: fix the parser",
        "snapline 0: init: baseline",
    ]
    record = git_bytes(root, "show", f"{ref}:record")
    assert record == render_snapshot(line.rows[-1], line.changes[-1])
    assert record.startswith(b"snapline snapshot 2\nnumber 4\n")
    assert git_bytes(root, "show", f"{ref}~3:state/src/app.py") == b"def f():\n    return 2\n"
    assert git(root, "for-each-ref", "--format=%(refname)").split() == ["refs/heads/main", ref]
    git(root, "fsck", "--strict", "--no-dangling")


def test_the_state_holds_the_users_own_blobs(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", FILES)
    line = _chain(root)
    assert line.line is not None
    ref = line_ref(line.line)
    # The baseline's state is the user's commit's tree itself: the same files, the same ids.
    assert git(root, "rev-parse", f"{ref}~4:state") == git(root, "rev-parse", "HEAD^{tree}")
    for path in FILES:
        user = git(root, "rev-parse", f"HEAD:{path}")
        assert git(root, "rev-parse", f"{ref}~4:state/{path}") == user
        assert git(root, "hash-object", path) == user
    # A later version is git's blob of that content, whoever wrote it.
    (root / "src/app.py").write_bytes(b"def f():\n    return 3\n")
    assert git(root, "hash-object", "src/app.py") == git(
        root, "rev-parse", f"{ref}:state/src/app.py"
    )


def test_nothing_appears_in_the_work_tree(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", FILES)
    before = sorted(p.relative_to(root) for p in root.rglob("*") if ".git" not in p.parts)
    _chain(root)
    after = sorted(p.relative_to(root) for p in root.rglob("*") if ".git" not in p.parts)
    assert after == before
    assert git(root, "status", "--porcelain", "--untracked-files=all", "--ignored") == ""
    assert git(root, "rev-parse", "HEAD") == git(root, "rev-parse", "main")
    assert len(git(root, "log", "--format=%H", "main").split()) == 1


def test_a_snapshot_written_twice_is_one_commit(tmp_path: Path) -> None:
    first = Line.at(make_repo(tmp_path / "one", FILES))
    first.snapshot(dict(FILES), tool="init")
    other = open_repository(make_repo(tmp_path / "two"))
    row, changes = first.rows[0], first.changes[0]
    edits = [StateEdit(path, FILES[path]) for path in sorted(FILES)]
    assert append_snapshot(other, row.id, row, changes, edits, tip=None) == first.commits[0]


def test_one_module_alone_speaks_to_the_git_library() -> None:
    import ast

    package = Path(__file__).resolve().parents[3] / "snapline"
    speaking = []
    for path in sorted(package.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [alias.name for alias in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            if any(name.split(".")[0] in {"pygit2", "dulwich"} for name in names):
                speaking.append(path.relative_to(package).as_posix())
    # git.py for the refs store (imported where used, once per function); gitlines.py for
    # blame's line diff (plain tuples out).
    assert sorted(set(speaking)) == ["store/refs/git.py", "store/refs/gitlines.py"]


def test_trees_are_gits_own_for_awkward_names(tmp_path: Path) -> None:
    latin = b"caf\xe9.txt".decode("utf-8", "surrogateescape")  # not UTF-8: a surrogate escape
    files = {
        "a-b": b"1\n",
        "a.txt": b"2\n",
        "a/b": b"3\n",
        "a0": b"4\n",
        latin: b"5\n",
        "dir with space/\u00e9t\u00e9.md": b"6\n",
    }
    root = tmp_path / "repo"
    root.mkdir()
    for name, data in files.items():
        target = root / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    make_repo(root, {})
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "awkward names")
    line = Line.at(root)
    line.snapshot(dict(files), tool="init")
    line.snapshot({latin: b"55\n", "a/b": None})
    assert line.line is not None
    ref = line_ref(line.line)
    # git's own tree of the same files: the same id, so the same order and encoding.
    assert git(root, "rev-parse", f"{ref}~1:state") == git(root, "rev-parse", "HEAD^{tree}")
    last = read_line(line.repo, line.line)[-1]
    assert line.repo.read_path(last.state, latin) == b"55\n"
    assert line.repo.read_path(last.state, "a/b") is None
    assert dict(line.repo.walk(last.state)).keys() == set(files) - {"a/b"}
    assert [
        change.path
        for change in line.repo.changes(read_line(line.repo, line.line)[0].state, last.state)
    ] == sorted([latin, "a/b"])


def test_a_directory_becomes_a_file_and_a_file_a_directory(tmp_path: Path) -> None:
    root = make_repo(
        tmp_path / "repo", {"was_dir/a": b"1\n", "was_dir/b": b"2\n", "was_file": b"3\n"}
    )
    line = Line.at(root)
    line.snapshot({"was_dir/a": b"1\n", "was_dir/b": b"2\n", "was_file": b"3\n"}, tool="init")
    line.snapshot(
        {
            "was_dir/a": None,
            "was_dir/b": None,
            "was_dir": b"now a file\n",
            "was_file": None,
            "was_file/x": b"now below\n",
        }
    )
    # git's tree of the same files after the same change, made by git itself.
    git(root, "rm", "-q", "-r", "was_dir", "was_file")
    (root / "was_dir").write_bytes(b"now a file\n")
    (root / "was_file").mkdir()
    (root / "was_file/x").write_bytes(b"now below\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "swap")
    ref = line_ref(line.line or "")
    assert git(root, "rev-parse", f"{ref}:state") == git(root, "rev-parse", "HEAD^{tree}")
    assert len(read_line(line.repo, line.line or "")) == 2
