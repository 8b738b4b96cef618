"""Workspaces as they really are: links, odd names, odd content, unreadable and busy files.

Each case is recorded, rebuilt from the store, rolled back and validated, and must come
back byte for byte, or be refused (or skipped and named) by an explicit policy:

- symlinks are recorded as links (mode 120000, content = the target) and restored as
  links; nothing is ever read or written through one;
- a file that cannot be read (permission denied) or never holds still while it is read
  is *skipped and named* by recordings and by ``init`` (``snapshot.skipped``, and an
  ``unreadable`` problem in ``check_sync``), and *refused* by calls that must read it
  (``write_file`` over it raises, ``rollback`` reports a conflict); a snapshot never
  holds a partial or torn file;
- the stat cache never hides an edit made within the same timestamp tick ("racy git");
- order and validation come from snapshot numbers, never from times.
"""

from __future__ import annotations

import json
import os
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import pytest

from snapline import (
    FileChangingError,
    RollbackConflictError,
    StateMismatchError,
    Workspace,
)
from snapline.hashing import hash_bytes
from snapline.scanning import fingerprint
from snapline.store import StatRow
from tests.reliability import figures
from tests.reliability.helpers import STRESS, assert_healthy, cli, python, tree

# -- symlinks ---------------------------------------------------------------------------


@pytest.fixture
def outside(tmp_path: Path) -> Iterator[Path]:
    directory = tmp_path / "outside"
    directory.mkdir()
    (directory / "secret.txt").write_text("outside the root\n")
    before = (directory / "secret.txt").stat().st_mtime_ns
    yield directory
    assert (directory / "secret.txt").read_text() == "outside the root\n"
    assert (directory / "secret.txt").stat().st_mtime_ns == before
    assert sorted(p.name for p in directory.iterdir()) == ["secret.txt"]


def test_symlinks_are_recorded_and_restored_as_links(root: Path, outside: Path) -> None:
    (root / "target.txt").write_text("inside\n")
    (root / "plain.txt").write_text("a regular file\n")
    links = {
        "inside": "target.txt",
        "outside": str(outside / "secret.txt"),
        "dangling": "nowhere/at/all",
        "dirlink": str(outside),
        "relative-out": "../outside/secret.txt",
    }
    with Workspace.init(root) as ws:
        for name, target in links.items():
            (root / name).symlink_to(target)
        snapshot = ws.record(tool="edit")
        assert snapshot is not None
        for change in snapshot.files:
            assert change.result_mode == 0o120000, change
            assert ws.content_at(change.path) == os.fsencode(links[change.path])
        # Gone from disk, then rolled back: links again, with the same targets.
        for name in links:
            (root / name).unlink()
        ws.resync(description="links removed")
        ws.rollback(1)
        for name, target in links.items():
            assert (root / name).is_symlink() and os.readlink(root / name) == target
        # A tracked file replaced by a link out of the root, then rolled back: the link
        # is replaced, never written through.
        (root / "plain.txt").unlink()
        (root / "plain.txt").symlink_to(outside / "secret.txt")
        with pytest.raises(RollbackConflictError):
            ws.rollback(1)
        ws.rollback(1, force=True)
        assert not (root / "plain.txt").is_symlink()
        assert (root / "plain.txt").read_text() == "a regular file\n"
        # Writing to a tracked link replaces the link by a regular file (issue 14, item
        # 17), never the file behind it.
        secret = (outside / "secret.txt").read_bytes()
        ws.write_file("outside", "elsewhere")
        assert not (root / "outside").is_symlink()
        assert (root / "outside").read_text() == "elsewhere"
        assert (outside / "secret.txt").read_bytes() == secret
        ws.delete_file("dirlink")
        assert (outside / "secret.txt").exists()
    assert_healthy(root)
    figures.add("oddities")


# -- a file replaced by a directory, and back ---------------------------------------------


def test_file_and_directory_swap_places(root: Path) -> None:
    (root / "x").write_text("x is a file\n")
    (root / "d").mkdir()
    (root / "d" / "e.txt").write_text("d is a directory\n")
    with Workspace.init(root) as ws:
        # On disk, then recorded.
        (root / "x").unlink()
        (root / "x").mkdir()
        (root / "x" / "y.txt").write_text("now x is a directory\n")
        (root / "d" / "e.txt").unlink()
        (root / "d").rmdir()
        (root / "d").write_text("now d is a file\n")
        swapped = ws.record(tool="edit")
        assert swapped is not None and swapped.number == 1
        assert {(f.path, f.kind.value) for f in swapped.files} == {
            ("x", "deleted"),
            ("x/y.txt", "added"),
            ("d/e.txt", "deleted"),
            ("d", "added"),
        }
        after = tree(root)
        ws.rollback(0)
        assert (root / "x").read_text() == "x is a file\n"
        assert (root / "d" / "e.txt").read_text() == "d is a directory\n"
        ws.rollback(1)
        assert tree(root) == after
        # And through the library calls, which refuse to write into a tracked file.
        ws.delete_file("d")
        ws.write_file("d/new.txt", "d is a directory again\n")
        ws.rollback(1)
        assert tree(root) == after
    assert_healthy(root)
    figures.add("oddities")


def test_no_state_ever_holds_a_file_and_a_directory_of_one_name(root: Path) -> None:
    """Found by the state machine (deep profile). Regression: a tracked file ``g``
    deleted outside snapline left room on disk for ``write_file("g/h.txt")``, which
    recorded a state holding both ``g`` and ``g/h.txt``; rolling back to it then failed
    half way, and a forced rollback over it was refused for ever."""
    (root / "g").write_text("g is a file\n")
    (root / "d").mkdir()
    (root / "d" / "e.txt").write_text("d is a directory\n")
    (root / "src.txt").write_text("moved below g\n")
    with Workspace.init(root) as ws:
        (root / "g").unlink()
        for write in (
            lambda: ws.write_file("g/h.txt", "below a deleted tracked file\n"),
            lambda: ws.move_file("src.txt", "g/h.txt"),
        ):
            with pytest.raises(StateMismatchError) as caught:
                write()
            assert caught.value.path == "g"
        (root / "d" / "e.txt").unlink()
        (root / "d").rmdir()
        with pytest.raises(StateMismatchError) as caught:
            ws.write_file("d", "a file named like a tracked directory\n")
        assert caught.value.path == "d/e.txt"
        assert ws.latest == 0 and not (root / "g").exists() and not (root / "d").exists()
        # Recorded first, the outside deletions make room, and every state can be restored.
        ws.resync(description="deleted by hand")
        ws.write_file("g/h.txt", "below\n")
        ws.write_file("d", "now a file\n")
        for number in (0, 3, 1, 3):
            ws.rollback(number)
            assert ws.check_sync().ok
    assert_healthy(root)
    figures.add("oddities")


def test_case_only_renames(root: Path) -> None:
    (root / "File.txt").write_text("case matters\n")
    (root / "README").write_text("readme\n")
    with Workspace.init(root) as ws:
        moved = ws.move_file("File.txt", "file.txt")
        assert [(f.path, f.old_path, f.kind.value) for f in moved.files] == [
            ("file.txt", "File.txt", "renamed")
        ]
        os.rename(root / "README", root / "ReadMe")
        recorded = ws.record(tool="edit")
        assert recorded is not None
        assert [(f.path, f.old_path) for f in recorded.files] == [("ReadMe", "README")]
        ws.rollback(0)
        assert sorted(p.name for p in root.iterdir() if p.name != ".snapline") == [
            "File.txt",
            "README",
        ]
        ws.rollback(2)
        assert (root / "file.txt").read_text() == "case matters\n"
    assert_healthy(root)
    figures.add("oddities")


# -- unreadable files and files that never hold still ----------------------------------------


def _deny(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    """Reading ``name`` raises PermissionError (tests run as root, so chmod cannot)."""

    def guarded_open(path: Any, *args: Any, **kwargs: Any) -> IO[bytes]:
        if os.path.basename(os.fsdecode(path)) == name:
            raise PermissionError(13, "Permission denied", os.fsdecode(path))
        return open(path, *args, **kwargs)

    monkeypatch.setattr(fingerprint, "open", guarded_open, raising=False)


def test_unreadable_files_are_named_and_never_half_recorded(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (root / "secret.txt").write_text("secret\n")
    (root / "open.txt").write_text("open\n")
    _deny(monkeypatch, "secret.txt")
    with Workspace.init(root) as ws:
        baseline = ws.snapshot(0)
        assert [f.path for f in baseline.files] == ["open.txt"]
        assert [(s.path, s.reason) for s in baseline.skipped] == [
            ("secret.txt", "unreadable (permission denied)")
        ]
        monkeypatch.undo()
        ws.resync(description="now readable")  # 1: secret.txt tracked
        _deny(monkeypatch, "secret.txt")
        (root / "secret.txt").write_text("secret, edited\n")
        (root / "open.txt").write_text("open, edited\n")
        snapshot = ws.record()
        assert snapshot is not None
        assert [f.path for f in snapshot.files] == ["open.txt"]
        assert [(s.path, s.reason) for s in snapshot.skipped] == [
            ("secret.txt", "unreadable (permission denied)")
        ]
        assert [(p.kind, p.path) for p in ws.check_sync().problems] == [
            ("unreadable", "secret.txt")
        ]
        with pytest.raises(PermissionError):
            ws.write_file("secret.txt", "overwrite what we cannot read\n")
        with pytest.raises(RollbackConflictError) as caught:
            ws.rollback(0)
        assert [(c.path, c.kind) for c in caught.value.conflicts] == [("secret.txt", "unreadable")]
        assert (root / "secret.txt").read_text() == "secret, edited\n"
        monkeypatch.undo()
        ws.resync(description="readable again")
    assert_healthy(root)
    figures.add("oddities")


class _Racing:
    """Opens that let a writer change the file while it is being read.

    ``torn`` says what the read returns: half old and half new bytes, the worst a
    reader can see. ``times`` is how many reads are raced (``None``: every one).
    """

    def __init__(self, name: str, new: bytes, times: int | None) -> None:
        self.name = name
        self.new = new
        self.times = times
        self.raced = 0

    def open(self, path: Any, *args: Any, **kwargs: Any) -> Any:
        handle = open(path, *args, **kwargs)  # noqa: SIM115 - handed to the caller
        if os.path.basename(os.fsdecode(path)) != self.name:
            return handle
        if self.times is not None and self.raced >= self.times:
            return handle
        self.raced += 1
        return _TornReader(handle, path, self)


class _TornReader:
    def __init__(self, handle: IO[bytes], path: Any, race: _Racing) -> None:
        self._handle = handle
        self._path = path
        self._race = race

    def read(self, *args: Any) -> bytes:
        old = self._handle.read(*args)
        new = self._race.new + b"#" * (self._race.raced % 7)  # a new size every time
        Path(os.fsdecode(self._path)).write_bytes(new)
        return old[: len(old) // 2] + new[len(new) // 2 :]

    def __enter__(self) -> _TornReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self._handle.close()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._handle, name)


def test_a_file_rewritten_while_hashed_is_never_stored_torn(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (root / "busy.txt").write_text("old content, " * 50)
    with Workspace.init(root) as ws:
        race = _Racing("busy.txt", b"new content, " * 60, times=1)
        monkeypatch.setattr(fingerprint, "open", race.open, raising=False)
        snapshot = ws.record()
        monkeypatch.undo()
        assert race.raced == 1 and snapshot is not None
        disk = (root / "busy.txt").read_bytes()
        (change,) = snapshot.files
        assert change.result_hash == hash_bytes(disk)  # the second, consistent read
        assert ws.content_at("busy.txt") == disk
    assert_healthy(root)
    figures.add("oddities")


def test_a_file_that_never_holds_still_is_skipped_and_named(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Regression: init failed as a whole where every later recording skips the file."""
    (root / "log.txt").write_text("appended to all the time\n")
    (root / "calm.txt").write_text("calm\n")
    race = _Racing("log.txt", b"appended again\n", times=None)
    monkeypatch.setattr(fingerprint, "open", race.open, raising=False)
    monkeypatch.setattr(fingerprint.time, "sleep", lambda _: None)
    with Workspace.init(root) as ws:
        baseline = ws.snapshot(0)
        assert [f.path for f in baseline.files] == ["calm.txt"]
        assert [(s.path, s.reason) for s in baseline.skipped] == [
            ("log.txt", "kept changing while being read")
        ]
        (root / "calm.txt").write_text("calm, edited\n")
        snapshot = ws.record()
        assert snapshot is not None and [f.path for f in snapshot.files] == ["calm.txt"]
        assert [s.path for s in snapshot.skipped] == ["log.txt"]
        with pytest.raises(FileChangingError):
            ws.write_file("log.txt", "replace it\n")
        monkeypatch.undo()
        ws.resync(description="it settled")
        assert ws.content_at("log.txt") == (root / "log.txt").read_bytes()
    assert_healthy(root)
    figures.add("oddities")


# -- racy git ------------------------------------------------------------------------------


def test_an_edit_within_the_same_mtime_tick_is_seen(root: Path) -> None:
    path = root / "racy.txt"
    path.write_text("version one\n")
    with Workspace.init(root) as ws:
        assert ws.check_sync().ok  # the stat cache now holds racy.txt
        before = os.stat(path)
        with open(path, "r+b") as handle:  # same inode, same size
            handle.write(b"version two\n")
        os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
        assert os.stat(path).st_mtime_ns == before.st_mtime_ns
        assert [p.kind for p in ws.check_sync().problems] == ["modified"]
        snapshot = ws.record()
        assert snapshot is not None and ws.content_at("racy.txt") == b"version two\n"
    assert_healthy(root)
    figures.add("oddities")


@pytest.mark.parametrize("hashed_after_ns", [0, 1_000_000_000, 60_000_000_000])
def test_the_stat_cache_is_trusted_only_when_safely_older(root: Path, hashed_after_ns: int) -> None:
    """A cache entry that matches the file's stat exactly, but was hashed in the same
    tick as the file's last change (as on a coarse-timestamp filesystem), is not trusted.
    """
    path = root / "racy.txt"
    path.write_text("version one\n")
    with Workspace.init(root) as ws:
        old_hash = ws.tracked()["racy.txt"]
        path.write_text("version TWO\n")
        st = os.lstat(path)
        forged = StatRow(
            "racy.txt",
            st.st_size,
            st.st_mtime_ns,
            st.st_ino,
            st.st_ctime_ns,
            0o100644,
            old_hash,
            max(st.st_mtime_ns, st.st_ctime_ns) + hashed_after_ns,
        )
        with ws._store.write():
            ws._store.stat_cache.put([forged])
        kinds = [p.kind for p in ws.check_sync().problems]
    if hashed_after_ns < fingerprint.RACY_WINDOW_NS:
        assert kinds == ["modified"]
    else:
        # Only an entry made well after the file's last change is trusted: this one
        # lies, which is exactly what a stat cache must be able to rely on not happening.
        assert kinds == []
    figures.add("oddities")


# -- names and contents -------------------------------------------------------------------


def test_non_utf8_file_names(root: Path) -> None:
    """Regression: the chain hash followed the store's row order, in which SQLite puts a
    non-UTF-8 name (a BLOB) after every TEXT path, so ``validate`` called such a store
    corrupt; and ``write_file`` failed storing its default description."""
    odd_file = os.fsdecode(b"caf\xe9.txt")
    odd_dir = os.fsdecode(b"d\xff")
    with open(os.path.join(os.fsencode(root), b"caf\xe9.txt"), "wb") as handle:
        handle.write(b"latin-1 name\n")
    os.mkdir(os.path.join(os.fsencode(root), b"d\xff"))
    (root / odd_dir / "x.txt").write_text("in an odd directory\n")
    (root / "plain.txt").write_text("plain\n")
    with Workspace.init(root) as ws:
        assert set(ws.tracked()) == {odd_file, f"{odd_dir}/x.txt", "plain.txt"}
        assert ws.validate().ok
        ws.write_file(odd_file, "edited\n")
        moved = os.fsdecode(b"moved\xfe.txt")
        ws.move_file(f"{odd_dir}/x.txt", moved)
        ws.delete_file("plain.txt")
        assert ws.snapshot(1).description == "write caf\\udce9.txt"
        assert ws.validate(deep=True).ok
        ws.rollback(0)
        assert ws.content_at(odd_file) == b"latin-1 name\n"
        ws.milestones.create(os.fsdecode(b"title \xff"), tags=[os.fsdecode(b"t\xfe")])
    assert (root / odd_dir / "x.txt").read_text() == "in an odd directory\n"
    assert_healthy(root)
    for argv in (("log", "--json"), ("status", "--json"), ("show", "1"), ("verify",)):
        result = cli(root, *argv)
        assert result.returncode == 0, (argv, result.stderr)
    listed = json.loads(cli(root, "log", "--json").stdout)
    assert odd_file in {f["path"] for entry in listed for f in entry["files"]}
    figures.add("oddities")


def test_non_utf8_names_inside_a_recorded_directory(root: Path) -> None:
    """Regression: looking up the tracked files under a directory failed on a non-UTF-8
    directory name, and missed non-UTF-8 names under a UTF-8 one (SQLite keeps them as
    BLOBs, outside a TEXT range), so their deletion went unrecorded."""
    base = os.fsencode(root)
    os.makedirs(os.path.join(base, b"plain"))
    os.makedirs(os.path.join(base, b"odd\xff"))
    for name in (b"plain/caf\xe9.txt", b"plain/ok.txt", b"odd\xff/y.txt"):
        with open(os.path.join(base, name), "wb") as handle:
            handle.write(name + b"\n")
    with Workspace.init(root) as ws:
        os.unlink(os.path.join(base, b"plain/caf\xe9.txt"))
        os.unlink(os.path.join(base, b"odd\xff/y.txt"))
        snapshot = ws.record(["plain"], tool="edit")
        assert snapshot is not None
        assert [(f.path, f.kind.value) for f in snapshot.files] == [
            (os.fsdecode(b"plain/caf\xe9.txt"), "deleted")
        ]
        snapshot = ws.record([os.fsdecode(b"odd\xff")], tool="edit")
        assert snapshot is not None
        assert [f.path for f in snapshot.files] == [os.fsdecode(b"odd\xff/y.txt")]
        ws.rollback(0)
    assert os.path.exists(os.path.join(base, b"plain/caf\xe9.txt"))
    assert_healthy(root)
    figures.add("oddities")


_CONTENTS = {
    "empty": b"",
    "bom-only": b"\xef\xbb\xbf",
    "bom-crlf": b"\xef\xbb\xbfwith a BOM\r\nand CRLF\r\n",
    "mixed-endings": b"unix\nwindows\r\nold mac\rno newline at the end",
    "only-newlines": b"\r\n\n\r\n\r",
    "utf16-bom": "utf-16 text\n".encode("utf-16"),
    "latin1": "caf\xe9 na\xefve\n".encode("latin-1"),
    "nul": b"binary\x00with a NUL\n",
    "long-line": b"x" * 100_000 + b"\n",
}


@pytest.mark.parametrize("kind", sorted(_CONTENTS))
def test_odd_contents_round_trip(root: Path, kind: str) -> None:
    content = _CONTENTS[kind]
    (root / "seed.txt").write_text("seed\n")
    with Workspace.init(root) as ws:
        ws.write_file("f", content)  # 1
        edited = content + b"\r\nan added line\n" if content else b"\n"
        ws.write_file("f", edited)  # 2
        ws.write_file("f", content)  # 3: back again
        assert [ws.content_at("f", n) for n in (1, 2, 3)] == [content, edited, content]
        ws.rollback(2)
        assert (root / "f").read_bytes() == edited
        ws.rollback(1)
        assert (root / "f").read_bytes() == content
        assert ws.validate(deep=True).ok
    assert_healthy(root)
    figures.add("oddities")


# -- a very large file ----------------------------------------------------------------------

_BIG_MB = 1024 if STRESS else 200  # 200 MB takes about 1.5 s here (a sparse file)
_BOUND_MB = 64  # the peak above the process before init, whatever the file's size
_BIG_DRIVER = textwrap.dedent(
    """
    import json, os, sys, time
    from snapline import Workspace
    from snapline.hashing import hash_bytes
    root, megabytes = sys.argv[1], int(sys.argv[2])
    def status(field):
        with open("/proc/self/status") as handle:
            return next(int(l.split()[1]) for l in handle if l.startswith(field + ":"))
    big = os.path.join(root, "big.bin")
    with open(big, "wb") as handle:  # sparse: written at both ends, a hole between
        handle.write(b"start")
        handle.truncate(megabytes << 20)
        handle.seek((megabytes << 20) - 3)
        handle.write(b"end")
    # The operation's own peak, as the bench measures it: the high-water mark reset to
    # the resident set now (a process started by pytest inherits pytest's ru_maxrss).
    with open("/proc/self/clear_refs", "w") as handle:
        handle.write("5")
    idle = status("VmRSS")
    started = time.monotonic()
    ws = Workspace.init(root)
    with open(big, "r+b") as handle:  # one byte changed in the middle
        handle.seek(megabytes << 19)
        handle.write(b"!")
    snapshot = ws.record(tool="edit")
    sync = ws.check_sync().ok
    # Undo of a write that a crash interrupted re-hashes the file on disk, streaming.
    entry = {"path": "big.bin", "before_hash": None, "before_mode": None,
             "after_hash": hash_bytes(b"x"), "after_mode": 0o100644}
    with ws._store.write():
        ws._store.journal.add("write", "t", json.dumps([entry]))
    ws.close()
    ws = Workspace.open(root)
    assert ws._store.journal.entries() == []
    deleted = ws.delete_file("big.bin")  # parked, then discarded
    try:
        ws.rollback(snapshot.number)
        refused = []
    except Exception as error:  # it cannot be rebuilt: refused, not lost
        refused = [c.kind for c in error.conflicts]
    print(json.dumps({
        "idle_kb": idle,
        "peak_kb": status("VmHWM"),
        "seconds": time.monotonic() - started,
        "storage": [f.storage.value for f in snapshot.files],
        "skipped": [s.reason for s in ws.snapshot(0).skipped],
        "sync": sync,
        "deleted": deleted.number,
        "refused": refused,
    }))
    """
)


def test_a_200mb_file_is_tracked_by_hash_in_bounded_memory(root: Path) -> None:
    result = python(_BIG_DRIVER, str(root), str(_BIG_MB), timeout=300)
    report = _big_report(result.stdout, result.stderr)
    assert sys.platform.startswith("linux")  # /proc/self/status and clear_refs
    above_idle_mb = (report["peak_kb"] - report["idle_kb"]) / 1024
    figures.add("big_file_mb", _BIG_MB)
    figures.add("big_file_peak_rss_above_idle_mb", round(above_idle_mb))
    assert report["storage"] == ["hash-only"]
    assert report["skipped"] == ["above the large-file limit: tracked by hash only"]
    assert report["sync"] and report["deleted"] == 2
    assert report["refused"] == ["unavailable"]
    # Far below the file's size: read whole, it alone would be 200 MB (imports and the
    # rest take about 30 MB).
    assert above_idle_mb < _BOUND_MB, report
    with Workspace.open(root) as ws:
        assert ws.validate(deep=True).ok and ws.check_sync().ok
        parked = root / ".snapline" / "parked"
        assert not parked.exists() or list(parked.iterdir()) == []


def _big_report(stdout: str, stderr: str) -> dict[str, Any]:
    lines = [line for line in stdout.splitlines() if line.startswith("{")]
    assert lines, stderr
    report: dict[str, Any] = json.loads(lines[-1])
    return report


# -- the clock going backwards -----------------------------------------------------------


def test_order_comes_from_numbers_not_times(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import snapline.milestones.create as milestone_create
    import snapline.snapshots.record.commit as commit
    import snapline.snapshots.record.detect as detect

    times = iter(f"2030-01-{day:02d}T00:00:00.000000+00:00" for day in range(28, 0, -1))
    monkeypatch.setattr(commit, "now_iso", lambda: next(times))
    monkeypatch.setattr(milestone_create, "now_iso", lambda: next(times))
    (root / "a.txt").write_text("a0\n")
    with Workspace.init(root) as ws:
        for i in range(1, 5):
            ws.write_file("a.txt", f"a{i}\n")
        ws.milestones.create("while the clock ran backwards")
        ws.rollback(2)
        snapshots = list(ws.snapshots())
        assert [s.number for s in snapshots] == list(range(6))
        stamps = [s.time for s in snapshots]
        assert stamps == sorted(stamps, reverse=True)  # every snapshot "older" than the last
        assert ws.validate().ok and ws.content_at("a.txt") == b"a2\n"
        assert [s.number for s in ws.snapshots(newest_first=True)][:2] == [5, 4]
        # The stat cache: hashed by a clock a day ahead, then edited in place with the
        # old mtime restored. The cache must still not vouch for the file.
        real = time.time_ns
        monkeypatch.setattr(detect.time, "time_ns", lambda: real() + 86_400 * 10**9)
        assert ws.check_sync().ok
        monkeypatch.setattr(detect.time, "time_ns", real)
        before = os.stat(root / "a.txt")
        with open(root / "a.txt", "r+b") as handle:
            handle.write(b"b2\n")
        os.utime(root / "a.txt", ns=(before.st_atime_ns, before.st_mtime_ns))
        assert [p.kind for p in ws.check_sync().problems] == ["modified"]
    log = cli(root, "log", "--json")
    assert [entry["number"] for entry in json.loads(log.stdout)] == [5, 4, 3, 2, 1, 0]
    assert cli(root, "verify").returncode == 1  # the edit above, not the times
    figures.add("oddities")
