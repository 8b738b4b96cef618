"""A snapshot of this work tree's own line, newer than a reader's view: drift, never "unmerged".

A reader (``verify``, ``status``) reads the index at one moment; a writer of the same
work tree may record the next snapshot before the reader looks at the files. The
files then match a snapshot that the reader's view does not hold yet. That snapshot is
on this work tree's own line: the reader must call the file drift (a writer caught
between its write and its commit), never "another line's recorded work" to ``snapline
merge``. Found by tests/reliability/test_concurrency.py in CI, whose readers
sometimes said ``unmerged``.
"""

from __future__ import annotations

from pathlib import Path

from snapline import Workspace
from snapline.snapshots.check.merged import unmerged_paths
from tests.history_refs.gitrepo import new_repo


def _race(root: Path) -> frozenset[str]:
    """The unmerged paths a reader whose view predates the latest snapshot finds."""
    with Workspace.open(root) as reader:
        store = reader._store
        with store.read():
            assert store.index.snapshots.get(1) is not None  # the view is fixed here
            with Workspace.open(root) as writer:
                writer.write_file("a.txt", "two\n")
            assert store.index.snapshots.get(2) is None  # the reader's view is behind
            return unmerged_paths(root, store, ["a.txt"])


def test_a_private_repository_reader_behind_its_own_line_finds_no_merge(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "a.txt").write_text("one\n")
    Workspace.init(root).close()
    with Workspace.open(root) as ws:
        ws.write_file("a.txt", "one and a half\n")
    assert _race(root) == frozenset()


def test_a_git_work_tree_reader_behind_its_own_line_finds_no_merge(tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "work", {"a.txt": "one\n"})
    repo.ok("init")
    with Workspace.open(repo.path) as ws:
        ws.write_file("a.txt", "one and a half\n")
    assert _race(repo.path) == frozenset()
