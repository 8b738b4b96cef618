"""I/O fault injection, as SQLite tests its I/O: the Nth write, rename, fsync or unlink fails.

For each operation that writes into the workspace, and each kind of system call that
snapline's atomic-write helper makes, the Nth call fails with EIO or ENOSPC, for
N = 1, 2, … until the operation gets through without reaching an Nth call. After every
failure: the error is raised (never swallowed), the workspace is byte for byte what it
was, the history validates and matches the disk, and a retry succeeds.
"""

from __future__ import annotations

import errno
import os
import shutil
import stat
import types
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

import pytest

from snapline import SnaplineError, Workspace, atomic
from snapline.snapshots.record.journal import DISCARD_OP
from tests.reliability import figures
from tests.reliability.helpers import assert_healthy, tree

_KINDS = ("write", "fsync", "rename", "unlink")
_MAX_N = 40  # far more calls than any operation here makes; reaching it is a failure


class InjectedFault(Exception):
    """Marks the errors this test raised, to tell them from real ones."""


class _Faults:
    """Counts the calls of one kind and fails the Nth."""

    def __init__(self, kind: str, n: int, code: int) -> None:
        self.kind = kind
        self.n = n
        self.code = code
        self.count = 0
        self.fired = False

    def tick(self, kind: str, target: object) -> None:
        if kind != self.kind:
            return
        self.count += 1
        if self.count == self.n:
            self.fired = True
            raise OSError(self.code, os.strerror(self.code), str(target))


class _FaultyFile:
    """A file object whose ``write`` goes through the fault counter."""

    def __init__(self, handle: IO[bytes], faults: _Faults) -> None:
        self._handle = handle
        self._faults = faults

    def write(self, data: bytes) -> int:
        self._faults.tick("write", self._handle.name)
        return self._handle.write(data)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._handle, name)

    def __enter__(self) -> _FaultyFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self._handle.close()


def _faulty_os(faults: _Faults) -> types.ModuleType:
    """``os`` as snapline.atomic sees it, with write, rename, fsync and unlink counted."""
    proxy = types.ModuleType("os")

    def fdopen(fd: int, *args: Any, **kwargs: Any) -> _FaultyFile:
        return _FaultyFile(os.fdopen(fd, *args, **kwargs), faults)

    def fsync(fd: int) -> None:
        faults.tick("fsync", fd)
        os.fsync(fd)

    def replace(source: Any, target: Any) -> None:
        faults.tick("rename", target)
        os.replace(source, target)

    def unlink(path: Any) -> None:
        faults.tick("unlink", path)
        os.unlink(path)

    proxy.__dict__.update(os.__dict__)
    proxy.__dict__.update(fdopen=fdopen, fsync=fsync, replace=replace, unlink=unlink)
    return proxy


# -- the workspace every run starts from ------------------------------------------------

_BIG = bytes(range(256)) * 40  # above the template's large-file limit: parked, not rebuilt


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("template") / "ws"
    root.mkdir()
    (root / "a.txt").write_text("a0\n")
    (root / "b.txt").write_bytes(b"b0\r\nmixed\nendings")
    (root / "dir").mkdir()
    (root / "dir/c.txt").write_text("c0\n")
    (root / "g").write_text("a file, later a directory\n")
    (root / "tool.sh").write_text("#!/bin/sh\n")
    (root / "tool.sh").chmod(0o755)
    with Workspace.init(root, large_file_limit=4096) as ws:
        ws.write_file("a.txt", "a1\n")  # 1
        ws.write_file("b.txt", "b2\n")  # 2
        ws.write_file("dir/c.txt", "c2\n")  # 3
        ws.milestones.create("first steps")  # 1..3
        ws.delete_file("g")  # 4
        ws.write_file("g/h.txt", "g is a directory now\n")  # 5
        (root / "big.bin").write_bytes(_BIG)
        ws.record(tool="edit")  # 6
        ws.write_file("tool.sh", "#!/bin/sh\necho changed\n", executable=False)  # 7
    return root


_OPERATIONS: dict[str, Callable[[Workspace], object]] = {
    "write_file": lambda ws: ws.write_file("a.txt", "a written under faults\n"),
    "write_new_dir": lambda ws: ws.write_file("new/deep/file.txt", "new\n"),
    "delete_file": lambda ws: ws.delete_file("dir/c.txt"),
    "move_file": lambda ws: ws.move_file("dir/c.txt", "elsewhere/c.txt"),
    "rollback": lambda ws: ws.rollback(0),
    "revert": lambda ws: ws.revert(2),
    "milestone_rollback": lambda ws: ws.milestones.rollback(1),
    "delete_parked": lambda ws: ws.delete_file("big.bin"),
}


def _runs() -> Iterator[tuple[str, str, int]]:
    for operation in _OPERATIONS:
        for kind in _KINDS:
            for code in (errno.EIO, errno.ENOSPC):
                yield operation, kind, code


@pytest.mark.parametrize(
    ("operation", "kind", "code"),
    list(_runs()),
    ids=[f"{o}-{k}-{errno.errorcode[c]}" for o, k, c in _runs()],
)
def test_nth_call_fails(
    template: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    operation: str,
    kind: str,
    code: int,
) -> None:
    run = _OPERATIONS[operation]
    for n in range(1, _MAX_N + 1):
        root = tmp_path / f"n{n}"
        shutil.copytree(template, root, symlinks=True)
        before = tree(root)
        faults = _Faults(kind, n, code)
        with Workspace.open(root) as ws:
            monkeypatch.setattr(atomic, "os", _faulty_os(faults))
            try:
                run(ws)
            except (OSError, SnaplineError) as error:
                assert faults.fired, f"an error the test did not cause: {error!r}"
                assert os.strerror(code) in str(error) or "store" in str(error), error
                failed = True
            else:
                # A fault that fired must surface: an operation that reports success
                # after a failed fsync or rename may not have reached the disk. The one
                # exception is removing a parked file after the commit, which the next
                # open finishes (its journal entry says so).
                if faults.fired:
                    assert [row.op for row in ws._store.journal.entries()] == [DISCARD_OP], (
                        f"the failed {kind} #{n} was swallowed"
                    )
                failed = False
            finally:
                monkeypatch.setattr(atomic, "os", os)
        if not faults.fired:
            figures.add("faults_injected", n - 1)
            assert n > 1 or kind in ("rename", "unlink", "write"), "the operation never fsyncs"
            return
        if not failed:
            assert_healthy(root)
            continue
        # The failure left everything as it was, and the same call now goes through.
        assert tree(root) == before, f"{kind} #{n} failing changed the workspace"
        assert_healthy(root)
        with Workspace.open(root) as ws:
            run(ws)
        assert_healthy(root)
        shutil.rmtree(root)
    pytest.fail(f"{operation} still reached a {kind} #{_MAX_N}")


def test_init_returns_only_once_the_store_name_is_durable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Regression: init renamed the finished store into place without syncing the
    directory, so a power cut after it returned could lose the whole store."""
    root = tmp_path / "ws"
    root.mkdir()
    (root / "a.txt").write_text("a\n")
    faults = _Faults("fsync", 1, errno.EIO)
    monkeypatch.setattr(atomic, "os", _faulty_os(faults))
    with pytest.raises(OSError, match=os.strerror(errno.EIO)):
        Workspace.init(root)
    monkeypatch.setattr(atomic, "os", os)
    assert faults.fired and not (root / ".snapline").exists()
    Workspace.init(root).close()
    assert_healthy(root)
    figures.add("faults_injected")


def test_a_directory_that_cannot_be_synced_at_all_is_tolerated(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Some filesystems refuse to fsync a directory (EINVAL): that is no write error.

    Every directory's fsync refuses, whoever asks (the workspace's writer, and the
    store's own writers of git's objects, refs and index), as such a filesystem does.
    """
    root = tmp_path / "ws"
    root.mkdir()
    (root / "a.txt").write_text("a\n")
    real_fsync = os.fsync
    refused: list[int] = []

    def fsync(fd: int) -> None:
        if stat.S_ISDIR(os.fstat(fd).st_mode):
            refused.append(fd)
            raise OSError(errno.EINVAL, os.strerror(errno.EINVAL))
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    with Workspace.init(root) as ws:
        ws.write_file("a.txt", "b\n")
    assert refused
    monkeypatch.setattr(os, "fsync", real_fsync)
    assert_healthy(root)
