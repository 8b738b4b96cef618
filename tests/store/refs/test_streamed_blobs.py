"""A file above the large-file limit goes into git as it is read, never whole in memory.

Both ways of writing git's objects (git's files, libgit2) stream it into a blob of its
exact bytes, as ``git hash-object --no-filters`` stores them (no end-of-line filter,
however the repository sets one), and the SHA-256 taken of the very bytes the blob
holds lets the store refuse a file that changed since it was recorded. The memory bound
itself is ``tests/reliability/test_workspace_oddities.py``'s 200 MB file.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from snapline.hashing import hash_bytes
from snapline.store.refs.edits import UnpublishableError
from snapline.store.refs.git import open_repository
from snapline.store.refs.layout import STATE, line_ref
from snapline.store.refs.store import RefsStore
from snapline.store.refs.streamed import HashedReader
from snapline.store.sqlite import SqliteStore
from tests.store.refs.lines import git, git_bytes, make_repo
from tests.store.refs.recording import CONFIG, Writer

LEAN, LIBRARY = "lean", "library"
WAYS = pytest.mark.parametrize("way", [LEAN, LIBRARY])
# Text that an end-of-line filter would change, then more than one piece (1 MiB) of noise.
_DATA = b"one\ntwo\r\n" * 50_000 + os.urandom(3 << 20)


def _filtering_repo(path: Path) -> Path:
    root = make_repo(path, {".gitattributes": b"* text eol=crlf\n"})
    git(root, "config", "core.autocrlf", "true")
    return root


def _temporaries(root: Path) -> list[str]:
    objects = root / ".git" / "objects"
    return [str(p) for p in objects.rglob("tmp_*")]


@WAYS
def test_a_file_streams_into_gits_blob_of_its_exact_bytes(tmp_path: Path, way: str) -> None:
    root = _filtering_repo(tmp_path / "r")
    (root / "big.txt").write_bytes(_DATA)
    expected = git(root, "hash-object", "--no-filters", "big.txt").strip()
    assert expected != git(root, "hash-object", "big.txt").strip()  # a filter would apply
    repo = open_repository(root, library=way == LIBRARY)
    for _ in range(2):  # the second time the object is there already
        with open(root / "big.txt", "rb") as file:
            source = HashedReader(file, len(_DATA))
            assert repo.write_blob_stream(source) == expected
        assert source.complete and source.hash == hash_bytes(_DATA)
    assert git_bytes(root, "cat-file", "blob", expected) == _DATA
    git(root, "fsck", "--strict")
    assert _temporaries(root) == []


@WAYS
def test_a_file_that_ends_sooner_than_its_size_leaves_no_blob(tmp_path: Path, way: str) -> None:
    root = make_repo(tmp_path / "r", {"README.md": b"hello\n"})
    (root / "big.bin").write_bytes(_DATA)
    repo = open_repository(root, library=way == LIBRARY)
    objects = git(root, "count-objects")
    with open(root / "big.bin", "rb") as file, pytest.raises(ValueError, match="ended"):
        repo.write_blob_stream(HashedReader(file, len(_DATA) + 1))  # as if it shrank
    assert _temporaries(root) == []
    if way == LEAN:  # libgit2 stores what it read before it is told: unreferenced, as git's
        assert git(root, "count-objects") == objects


@pytest.fixture(params=[LEAN, LIBRARY])
def store(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[RefsStore]:
    root = make_repo(tmp_path / "work", {"README.md": b"# a project\n"})
    repo = open_repository(root, library=request.param == LIBRARY)
    path = repo.git_dir / "snapline" / "index.db"
    path.parent.mkdir()
    opened = RefsStore(repo, SqliteStore.create(path, CONFIG))
    yield opened
    opened.close()


def _work_tree(store: RefsStore) -> Path:
    return store.repo.git_dir.parent


def test_a_version_kept_by_hash_only_is_streamed_into_the_state(store: RefsStore) -> None:
    writer = Writer(store)
    baseline = writer.snapshot({"README.md": b"# a project\n"})
    (_work_tree(store) / "big.bin").write_bytes(_DATA)
    writer.snapshot({"big.bin": _DATA}, hash_only=("big.bin",))
    tip = store.repo.ref(line_ref(baseline.id))
    assert tip is not None
    shown = git_bytes(_work_tree(store), "cat-file", "blob", f"{tip}:{STATE}/big.bin")
    assert shown == _DATA
    (change,) = store.changes.of(1)
    assert change.storage == "hash-only" and change.content is None


@pytest.mark.parametrize(
    ("changed", "said"),
    [
        (_DATA[:-1] + b"!", hash_bytes(_DATA[:-1] + b"!")),  # read, then held to the hash
        (_DATA + b"!", f"is {len(_DATA) + 1} bytes on disk"),  # another size: not read
    ],
    ids=["same-size", "other-size"],
)
def test_a_version_kept_by_hash_only_that_changed_on_disk_is_refused(
    store: RefsStore, changed: bytes, said: str
) -> None:
    writer = Writer(store)
    baseline = writer.snapshot({"README.md": b"# a project\n"})
    tip = store.tip()
    # Recorded as _DATA, then edited before it was published.
    (_work_tree(store) / "big.bin").write_bytes(changed)
    with pytest.raises(UnpublishableError) as caught:
        writer.snapshot({"big.bin": _DATA}, hash_only=("big.bin",))
    assert caught.value.file == "big.bin"
    assert said in str(caught.value) and "record it again" in str(caught.value)
    assert store.snapshots.latest_number() == 0
    assert store.repo.ref(line_ref(baseline.id)) == tip
