"""The objects a snapshot writes itself (``store/refs/loose.py``), against git and libgit2.

A snapshot's objects are written as loose objects, synced together, no longer by
libgit2 one at a time: git must read each as it read libgit2's (``git cat-file``,
``git fsck``), the same snapshot must make the same commit id as libgit2 made it (a
snapshot written twice, before and after the change, is one commit), and an object
git already holds is freshened, not written again.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from snapline.store.refs.git import MissingObjectError, open_repository
from snapline.store.refs.loose import ObjectBatch, commit_bytes
from snapline.store.refs.objects import tree_bytes
from snapline.store.refs.values import Entry
from tests.store.refs.lines import git, git_bytes, make_repo


def test_objects_are_git_s_and_a_commit_is_the_one_libgit2_writes(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", {"a.txt": b"a\n"})
    repo = open_repository(root)
    batch = ObjectBatch(repo)
    data = "é, not ASCII\n".encode() * 1000
    blob = batch.add(b"blob", data)
    tree = batch.add(b"tree", tree_bytes({b"f.txt": Entry(blob, 0o100644)}))
    head = git(root, "rev-parse", "HEAD").strip()
    message = "snapline 1: edit: é\n\nSnapline-Id: x\n"
    commit = batch.add(b"commit", commit_bytes(tree, [head, head], message, 1_700_000_000))
    batch.write()

    assert git_bytes(root, "cat-file", "blob", blob) == data
    assert git(root, "ls-tree", tree) == f"100644 blob {blob}\tf.txt\n"
    assert repo.write_commit(tree, [head, head], message, 1_700_000_000) == commit
    git(root, "fsck", "--strict", "--no-dangling")
    objects = root / ".git" / "objects"
    assert not [p for p in objects.rglob("tmp_*")], "a temporary file was left"


def test_an_object_git_holds_is_freshened_not_written_again(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo", {"a.txt": b"a\n", "b.txt": b"b\n"})
    repo = open_repository(root)
    loose = root / ".git" / "objects"
    blob = git(root, "rev-parse", "HEAD:a.txt").strip()
    path = loose / blob[:2] / blob[2:]
    os.utime(path, (1_000_000, 1_000_000))
    batch = ObjectBatch(repo)
    assert batch.add(b"blob", b"a\n") == blob
    batch.write()
    assert path.stat().st_mtime > 1_000_000, "a loose object git holds was not freshened"

    git(root, "gc", "-q", "--prune=now")  # b.txt's blob only in a pack now
    packed = git(root, "rev-parse", "HEAD:b.txt").strip()
    batch = ObjectBatch(repo)
    assert batch.add(b"blob", b"b\n") == packed
    batch.write()
    assert not (loose / packed[:2] / packed[2:]).exists(), "a packed blob was written again"


def test_a_parent_that_is_no_commit_is_refused_before_anything_is_written(
    tmp_path: Path,
) -> None:
    root = make_repo(tmp_path / "repo", {"a.txt": b"a\n"})
    batch = ObjectBatch(open_repository(root))
    blob = git(root, "rev-parse", "HEAD:a.txt").strip()
    with pytest.raises(MissingObjectError):
        batch.check_commits([blob])
    with pytest.raises(MissingObjectError):
        batch.check_commits(["0" * 40])
    batch.check_commits([git(root, "rev-parse", "HEAD").strip()])
