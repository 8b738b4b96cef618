"""Issue 37.2 and 37.7: content stored once, in git's objects, never copied into the index.

The refs store keeps every version's bytes in a git object database (the user's
repository, or outside git the private one under ``.snapline/repo``): the local index
under ``.git/snapline/`` or ``.snapline/`` names those blobs and holds no second copy,
so the history after ``init`` is not the tree's size twice (bench row G6). Every read
(``show``, ``diff``, ``rollback``, ``verify --full``) still gets the exact bytes.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from tests.history_refs.gitrepo import Repo

_FILES = 60
_SIZE = 16 << 10


def _content(n: int) -> bytes:
    # Incompressible: the index's zlib copy would be about the files' own size.
    return random.Random(n).randbytes(_SIZE)


def _tree(root: Path) -> int:
    for n in range(_FILES):
        (root / "data").mkdir(exist_ok=True)
        (root / "data" / f"f{n:03}.bin").write_bytes(_content(n))
    return _FILES * _SIZE


def _index_bytes(state: Path) -> int:
    # The index and its journal files; the private repository beside it is the history.
    return sum(p.stat().st_size for p in state.iterdir() if p.name.startswith("index.db"))


@pytest.mark.parametrize("in_git", [True, False], ids=["git-repository", "private-store"])
def test_the_index_holds_no_copy_of_the_contents_git_keeps(root: Path, in_git: bool) -> None:
    repo = Repo(root)
    total = _tree(root)
    if in_git:
        repo.git("init", "-q")
        repo.git("add", "-A")
        repo.git("commit", "-q", "-m", "tree")
    repo.ok("init")
    state = root / ".git" / "snapline" if in_git else root / ".snapline"
    assert _index_bytes(state) < total // 8, "the index copies the baseline's content"

    # A new whole version (binary: stored in full) is kept in git, not in the index.
    (root / "data" / "f000.bin").write_bytes(_content(1000))
    (root / "data" / "new.bin").write_bytes(_content(1001))
    repo.ok("record", "-m", "two binaries")
    assert _index_bytes(state) < total // 8

    # Every read gets the exact bytes back from git's blobs.
    repo.ok("verify", "--full")  # every content read and hash-checked
    repo.ok("rollback", "--to", "0")
    assert (root / "data" / "f000.bin").read_bytes() == _content(0)
    assert not (root / "data" / "new.bin").exists()
    repo.ok("rollback", "--to", "1")
    assert (root / "data" / "f000.bin").read_bytes() == _content(1000)
    assert (root / "data" / "new.bin").read_bytes() == _content(1001)
    for n in range(1, _FILES):
        assert (root / "data" / f"f{n:03}.bin").read_bytes() == _content(n)
