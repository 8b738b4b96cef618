"""The files on disk as git's tree, computed without writing: git's own ids, git's scope."""

from __future__ import annotations

import os
from pathlib import Path

from snapline.store.refs.disk import disk_tree, scoped_tree
from snapline.store.refs.git import open_repository
from tests.store.refs.agents import git_fails, write
from tests.store.refs.lines import git, make_repo

FILES = {
    "src/app.py": b"print('app')\n",
    "src/deep/er/x.txt": b"",
    "README.md": b"# r\n",
    "a b/c d.txt": b"spaces\n",
    ".gitignore": b"*.log\nbuild/\n",
}


def test_the_disk_tree_is_what_git_write_tree_makes(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", FILES)
    (root / "run.sh").write_bytes(b"#!/bin/sh\n")
    (root / "run.sh").chmod(0o755)
    os.symlink("src/app.py", root / "link")
    name = os.fsdecode(b"caf\xe9.txt")  # not UTF-8: git's names are bytes
    (root / name).write_bytes(b"latin-1\n")
    write(root, {"out.log": b"ignored\n", "build/x.o": b"ignored\n"})
    git(root, "add", "-A")
    expected = git(root, "write-tree").strip()
    found = disk_tree(root)
    assert found.tree == expected
    # Nothing of it was written by snapline: only git's own add wrote these objects.
    assert not git_fails(root, "cat-file", "-e", expected)
    (root / "README.md").write_bytes(b"# changed on disk\n")
    changed = disk_tree(root)
    assert changed.tree != expected
    assert git_fails(root, "cat-file", "-e", changed.tree)


def test_a_commits_tree_is_scoped_by_the_same_rules(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", FILES)
    write(root, {"debug.log": b"forced in\n"})
    git(root, "add", "-f", "debug.log")
    git(root, "commit", "-q", "-m", "a file git tracks and the rules ignore")
    head = git(root, "rev-parse", "HEAD^{tree}").strip()
    repo = open_repository(root)
    scoped = scoped_tree(repo, head, root)
    assert scoped.tree == disk_tree(root).tree != head
    # A path snapline tracks is in scope whatever the rules say.
    assert scoped_tree(repo, head, root, {"debug.log"}).tree == head
    assert disk_tree(root, {"debug.log"}).tree == head
