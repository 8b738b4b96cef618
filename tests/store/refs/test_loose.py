"""A record's loose objects wait for the disk together, and none is named before it is durable.

Each object of a snapshot (the file's blob, its record, the trees on its path, the
commit) is fsynced, then named, then its folder fsynced, before the line's ref moves
(``store/refs/loose.py``). One after the other, those waits were most of a library
record's time (row R8); in a batch each round runs at once. Seen here through the
system calls themselves: ``os.fsync`` watched in the process, git as the oracle of what
was written.
"""

from __future__ import annotations

import os
import random
import threading
from pathlib import Path

import pytest

from snapline import Workspace
from snapline.store.refs.git import open_repository
from snapline.store.refs.values import Entry
from tests.store.refs.lines import git, git_bytes, make_repo

_WAIT = 60.0  # seconds one object's fsync waits for another's: reached only by a failure


class _Overlap:
    """``os.fsync`` that notes whether two objects' files were being synced at once.

    The first object's fsync waits (up to ``_WAIT``) for a second to start: one after
    the other, none does.
    """

    def __init__(self, fsync: object) -> None:
        self._fsync = fsync
        self._lock = threading.Lock()
        self._inside = 0
        self.together = threading.Event()
        self.objects: list[str] = []

    def __call__(self, fd: int) -> None:
        path = os.readlink(f"/proc/self/fd/{fd}")
        if "/objects/tmp_obj_" not in path:
            return self._fsync(fd)  # type: ignore[operator, no-any-return]
        with self._lock:
            self.objects.append(path)
            self._inside += 1
            first = len(self.objects) == 1
            if self._inside > 1:
                self.together.set()
        try:
            if first:
                self.together.wait(_WAIT)
            return self._fsync(fd)  # type: ignore[operator, no-any-return]
        finally:
            with self._lock:
                self._inside -= 1


def _workspace(root: Path) -> Workspace:
    make_repo(root, {"src/app/main.py": b"one\n", "README.md": b"hi\n"})
    return Workspace.init(root)


def test_a_records_objects_are_synced_together(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = _workspace(tmp_path / "work")
    (ws.root / "src/app/main.py").write_text("two\n")
    watch = _Overlap(os.fsync)
    monkeypatch.setattr(os, "fsync", watch)
    ws.record(["src/app/main.py"])
    monkeypatch.undo()
    # the blob, the record, src/app, src, state, the root tree and the commit
    assert len(watch.objects) >= 7, watch.objects
    assert watch.together.is_set(), "each object's fsync waited for the one before"
    git(ws.root, "fsck", "--strict", "--no-dangling")
    assert ws.latest == 1
    shown = git(ws.root, "show", "refs/snapline/lines/" + _line(ws.root) + ":state/src/app/main.py")
    assert shown == "two\n"


def _line(root: Path) -> str:
    return (root / ".git" / "snapline" / "line").read_text().strip()


def test_a_batch_names_its_objects_only_once_they_are_durable(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo")
    repo = open_repository(root)
    objects = root / ".git" / "objects"
    with repo.batch():
        blob = repo.write_blob(b"kept\n")
        # Not named yet; read, and not written twice, from its temporary file.
        assert not (objects / blob[:2] / blob[2:]).exists()
        assert repo.read_blob(blob) == b"kept\n"
        assert repo.has_object(blob)
        assert repo.write_blob(b"kept\n") == blob
    assert (objects / blob[:2] / blob[2:]).exists()
    assert git_bytes(root, "cat-file", "blob", blob) == b"kept\n"
    assert not list(objects.glob("tmp_obj_*"))


def test_a_batch_that_fails_leaves_no_object_and_no_temporary_file(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo")
    repo = open_repository(root)
    objects = root / ".git" / "objects"
    with pytest.raises(RuntimeError), repo.batch():
        blob = repo.write_blob(b"lost\n")
        raise RuntimeError("the snapshot failed")
    assert not (objects / blob[:2] / blob[2:]).exists()
    assert not list(objects.glob("tmp_obj_*"))
    assert not repo.has_object(blob)


def _large(seed: int) -> bytes:
    return random.Random(seed).randbytes(200_000)  # as large compressed


def test_a_large_object_is_written_and_synced_on_a_thread_while_the_batch_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Row R8: the edited file's blob (zlib of ~432 KB, then the longest fsync) ran before
    # everything else the record writes; on a thread it runs beside them.
    root = make_repo(tmp_path / "repo")
    repo = open_repository(root)
    synced = threading.Event()
    threads: list[str] = []
    fsync = os.fsync

    def watched(fd: int) -> None:
        fsync(fd)
        if os.fstat(fd).st_size > 50_000:
            threads.append(threading.current_thread().name)
            synced.set()

    monkeypatch.setattr(os, "fsync", watched)
    data = _large(1)
    with repo.batch():
        blob = repo.write_blob(data)
        tree = repo.tree({"big.txt": Entry(blob, 0o100644)})
        # Before the batch settles: synced already, by another thread than this one.
        assert synced.wait(_WAIT), "the large object waited for the batch's end"
        assert repo.read_blob(blob) == data  # read back from its temporary file
        assert repo.write_blob(data) == blob  # not written twice
    monkeypatch.undo()
    assert threads and threads[0] != threading.current_thread().name
    assert git_bytes(root, "cat-file", "blob", blob) == data
    assert git(root, "ls-tree", tree).split() == ["100644", "blob", blob, "big.txt"]
    git(root, "fsck", "--strict")
    assert not list((root / ".git" / "objects").glob("tmp_obj_*"))


def test_a_failed_batch_removes_the_large_object_written_on_a_thread(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "repo")
    repo = open_repository(root)
    objects = root / ".git" / "objects"
    with pytest.raises(RuntimeError), repo.batch():
        blob = repo.write_blob(_large(2))
        other = repo.write_blob(_large(3))  # the first one is taken in before it starts
        raise RuntimeError("the snapshot failed")
    for id_ in (blob, other):
        assert not (objects / id_[:2] / id_[2:]).exists()
        assert not repo.has_object(id_)
    assert not list(objects.glob("tmp_obj_*"))


def test_a_large_object_the_system_refuses_fails_the_batch_and_leaves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_repo(tmp_path / "repo")
    repo = open_repository(root)
    fsync = os.fsync

    def refused(fd: int) -> None:
        if os.fstat(fd).st_size > 50_000:
            raise OSError(5, "Input/output error")
        fsync(fd)

    monkeypatch.setattr(os, "fsync", refused)
    with pytest.raises(Exception, match="Input/output error"), repo.batch():
        blob = repo.write_blob(_large(4))
    monkeypatch.undo()
    objects = root / ".git" / "objects"
    assert not (objects / blob[:2] / blob[2:]).exists()
    assert not list(objects.glob("tmp_obj_*"))


def test_a_record_reads_back_what_the_record_before_wrote_from_memory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Row R8: each record read its line's tip commit and the trees on the file's path
    # back from git's files (inflated, hashed), though the record before wrote them.
    from snapline.store.refs.filedb import FileDatabase

    ws = _workspace(tmp_path / "work")
    (ws.root / "src/app/main.py").write_text("two\n")
    ws.record(["src/app/main.py"])
    before = set(git(ws.root, "rev-list", "--objects", "--all").split())
    read: list[str] = []
    raw = FileDatabase._raw

    def watched(self: FileDatabase, binary: bytes) -> tuple[int, bytes]:
        read.append(binary.hex())
        return raw(self, binary)

    monkeypatch.setattr(FileDatabase, "_raw", watched)
    (ws.root / "src/app/main.py").write_text("three\n")
    ws.record(["src/app/main.py"])
    monkeypatch.undo()
    wrote_last = {id_ for id_ in read if id_ in before}
    assert not wrote_last - _written_by_baseline(ws.root), sorted(wrote_last)
    git(ws.root, "fsck", "--strict", "--no-dangling")
    shown = git(ws.root, "show", "refs/snapline/lines/" + _line(ws.root) + ":state/src/app/main.py")
    assert shown == "three\n"


def _written_by_baseline(root: Path) -> set[str]:
    """The objects of the line's first commit (the baseline: written by init, not here)."""
    first = git(root, "rev-list", "--max-parents=0", "refs/snapline/lines/" + _line(root))
    return set(git(root, "rev-list", "--objects", "-n1", first.split()[0]).split())
