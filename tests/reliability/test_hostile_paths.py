"""Crafted stores whose recorded paths try to leave the root: refused on load and on write.

The attacker edits the rows *and* reseals the chain (``crafting.reseal``), so the chain
validates and only the path checks stand in the way. A sentinel directory next to the
workspace must come out of every attempt untouched, and no file in it may even be
opened; the workspace itself must be left as it was.
"""

from __future__ import annotations

import builtins
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from snapline import (
    RevertConflictError,
    RollbackConflictError,
    SnaplineError,
    UnsafePathError,
    UnsafeRecordError,
    Workspace,
)
from snapline.hashing import hash_bytes
from tests.reliability import figures
from tests.reliability.crafting import reseal, sql
from tests.reliability.helpers import assert_healthy, cli, tree

_PAYLOAD = b"written by a crafted store\n"


@pytest.fixture
def sentinel(tmp_path: Path) -> Iterator[Path]:
    """A directory outside the root; the test fails if anything in it changes."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("do not read me\n")
    (outside / "sub").mkdir()
    (outside / "sub" / "keep.txt").write_text("do not touch me\n")
    before = _snapshot(outside)
    yield outside
    assert _snapshot(outside) == before, "something outside the root was changed"


def _snapshot(directory: Path) -> dict[str, tuple[bytes, int]]:
    return {
        str(p.relative_to(directory)): (
            p.read_bytes() if p.is_file() else b"",
            p.stat().st_mtime_ns,
        )
        for p in sorted(directory.rglob("*"))
    }


@pytest.fixture
def no_reads_outside(monkeypatch: pytest.MonkeyPatch, sentinel: Path) -> Iterator[list[str]]:
    """Record every path this process opens, stats or lists; none may be in the sentinel.

    Paths are resolved the way the kernel would (through ``..`` and symlinks), so a
    look at ``root/link/secret.txt`` or ``root/../outside`` counts as a look outside.
    """
    seen: list[str] = []
    real_open = builtins.open
    resolving = [False]  # realpath itself calls lstat: do not spy on the spy

    def spy(real: Any, *, follows: bool = True) -> Any:
        def call(path: Any, *args: Any, **kwargs: Any) -> Any:
            if isinstance(path, (str, bytes, os.PathLike)) and not resolving[0]:
                resolving[0] = True
                try:
                    name = os.fsdecode(path)
                    if kwargs.get("follow_symlinks", follows):
                        seen.append(os.path.realpath(name))
                    else:  # lstat and readlink look at a link, not through it
                        parent, base = os.path.split(os.path.abspath(name))
                        seen.append(os.path.join(os.path.realpath(parent), base))
                finally:
                    resolving[0] = False
            return real(path, *args, **kwargs)

        return call

    monkeypatch.setattr(builtins, "open", spy(real_open))
    for name in ("open", "stat", "scandir", "listdir"):
        monkeypatch.setattr(os, name, spy(getattr(os, name)))
    for name in ("lstat", "readlink"):
        monkeypatch.setattr(os, name, spy(getattr(os, name), follows=False))
    yield seen
    monkeypatch.undo()
    outside = os.path.realpath(sentinel)
    looked = [p for p in seen if p == outside or p.startswith(outside + os.sep)]
    assert not looked, f"looked outside the root: {sorted(set(looked))}"


def _history(root: Path) -> None:
    """0: a.txt; 1: victim.txt added; 2: victim.txt deleted (so the known state is clean)."""
    root.mkdir()
    (root / "a.txt").write_text("a\n")
    with Workspace.init(root) as ws:
        ws.write_file("victim.txt", _PAYLOAD)
        ws.delete_file("victim.txt")


def _rename_recorded(root: Path, new: str) -> None:
    key: str | bytes = new
    sql(root, "UPDATE changes SET path = ? WHERE path = 'victim.txt'", key)
    reseal(root)


def _hostile(sentinel: Path) -> dict[str, str]:
    return {
        "climbs-out": "../outside/secret.txt",
        "absolute": str(sentinel / "secret.txt"),
        "names-the-store": ".snapline/index.db",
        "dot-segment": "./victim.txt",
        # A backslash is an ordinary character in a POSIX name (issue 14): an empty
        # segment is what a crafted path must not slip through instead.
        "empty-segment": "outside//secret.txt",
    }


@pytest.mark.parametrize(
    "kind", ["climbs-out", "absolute", "names-the-store", "dot-segment", "empty-segment"]
)
def test_unsafe_recorded_paths_are_refused(
    tmp_path: Path, sentinel: Path, no_reads_outside: list[str], kind: str
) -> None:
    root = tmp_path / "ws"
    _history(root)
    bad = _hostile(sentinel)[kind]
    _rename_recorded(root, bad)
    before = tree(root)
    with Workspace.open(root) as ws:
        problems = ws.validate().problems
        # The crafted rows are in the local index. (An in-tree ledger's files saying
        # otherwise is the ledger reader's check: tests/ledger/.)
        assert {(p.kind, p.path, p.severity) for p in problems} == {
            ("unsafe-path", bad, "corrupt")
        }, problems
        # Refused on load: listing, showing, diffing and rebuilding it.
        for load in (
            lambda: ws.snapshot(1),
            lambda: list(ws.snapshots()),
            lambda: ws.diff(0),
            lambda: ws.modified_files(0, 1),
            lambda: ws._reconstructor.content_at(bad, 1),
        ):
            with pytest.raises(UnsafeRecordError) as caught:
                load()
            assert caught.value.path == bad and caught.value.exit_code == 3
        with pytest.raises(SnaplineError):  # the path as typed is refused or not there
            ws.content_at(bad, 1)
        # Refused again before any write: rolling back to it, reverting its deletion.
        with pytest.raises(RollbackConflictError) as conflict:
            ws.rollback(1)
        assert [(c.kind, c.path) for c in conflict.value.conflicts] == [("unsafe-path", bad)]
        assert bad in conflict.value.conflicts[0].message  # what was refused, by name
        with pytest.raises(RollbackConflictError):
            ws.rollback(1, force=True)
        with pytest.raises((RevertConflictError, UnsafeRecordError)):
            ws.revert(2)
        assert ws.latest == 2 and ws.check_sync().ok
    for argv, code in ((("verify",), 3), (("log",), 3), (("show", "1"), 3)):
        result = cli(root, *argv)
        assert result.returncode == code, (argv, result.stderr)
    assert tree(root) == before
    figures.add("hostile_paths")


def test_an_unsafe_path_in_the_known_state_stops_every_writer(
    tmp_path: Path, sentinel: Path, no_reads_outside: list[str]
) -> None:
    """Regression: recording took the unreadable, unsafe path for a deleted file and
    recorded its "deletion", building on the crafted history."""
    root = tmp_path / "ws"
    root.mkdir()
    (root / "a.txt").write_text("a\n")
    with Workspace.init(root) as ws:
        ws.write_file("victim.txt", _PAYLOAD)
    bad = "../outside/secret.txt"
    sql(root, "UPDATE changes SET path = ? WHERE path = 'victim.txt'", bad)
    sql(root, "UPDATE state SET path = ? WHERE path = 'victim.txt'", bad)
    sql(root, "DELETE FROM stat_cache")
    reseal(root)
    (root / "victim.txt").unlink()
    before = tree(root)
    with Workspace.open(root) as ws:
        for write in (
            lambda: ws.record(),
            lambda: ws.write_file("b.txt", "b\n"),
            lambda: ws.rollback(0),
            lambda: ws.check_sync(),
        ):
            with pytest.raises(UnsafeRecordError) as caught:
                write()
            assert caught.value.path == bad
        assert ws.latest == 1
        report = ws.verify()
        assert ("unsafe-path", bad) in {(p.kind, p.path) for p in report.problems}
        assert {p.path for p in report.problems} == {bad}
    verify = cli(root, "verify", "--json")
    assert verify.returncode == 3
    assert cli(root, "record").returncode == 3
    assert tree(root) == before
    figures.add("hostile_paths")


def test_a_crafted_symlink_is_never_written_through(
    tmp_path: Path, sentinel: Path, no_reads_outside: list[str]
) -> None:
    """History claims both ``link`` (a symlink out of the root) and ``link/secret.txt``.

    Regression: the write into ``link/`` was refused, but undoing the rollback stopped
    at that same refusal, leaving the symlink in the workspace and a journal entry that
    made every later open fail.
    """
    root = tmp_path / "ws"
    root.mkdir()
    (root / "a.txt").write_text("a\n")
    with Workspace.init(root) as ws:
        (root / "link").symlink_to(sentinel)
        ws.record(tool="edit")  # 1: link -> outside, recorded as a symlink
        (root / "link").unlink()
        ws.record(tool="edit")  # 2: link deleted
        blob = ws.snapshot(0).file("a.txt").content_ref  # type: ignore[union-attr]
    ok = hash_bytes(b"a\n")
    sql(
        root,
        "INSERT INTO changes SELECT 1, 'link/secret.txt', 'added', NULL, NULL, ?, NULL, "
        "33188, 2, 'full', NULL, NULL, ?, 0, 0",
        ok,
        blob,
    )
    sql(
        root,
        "INSERT INTO changes SELECT 2, 'link/secret.txt', 'deleted', NULL, ?, NULL, 33188, "
        "NULL, NULL, 'none', NULL, NULL, NULL, 0, 0",
        ok,
    )
    reseal(root)
    with Workspace.open(root) as ws:
        # Every path is clean on its own, and the chain was resealed.
        assert ws.validate().problems == ()
        before = tree(root)
        with pytest.raises(UnsafePathError, match="symlink"):
            ws.rollback(1)
        assert tree(root) == before and not (root / "link").is_symlink()
        assert ws._store.journal.entries() == []
    with Workspace.open(root) as ws:  # nothing left over for the next open
        assert ws.validate().problems == ()
        assert ws._store.journal.entries() == [] and tree(root) == before
    result = cli(root, "rollback", "--to", "1")
    assert result.returncode in (2, 3) and "symlink" in result.stderr
    assert tree(root) == before
    figures.add("hostile_paths")


@pytest.mark.parametrize("adopt", ["resync", "force"])
def test_a_symlinked_directory_in_the_root_is_never_written_through(
    tmp_path: Path, sentinel: Path, no_reads_outside: list[str], adopt: str
) -> None:
    """A user (or a command) replaced a tracked directory by a symlink leading out.

    Regression: planning the rollback looked through the link, found the sentinel's own
    ``keep.txt`` and refused it as "an untracked file in the way".
    """
    root = tmp_path / "ws"
    root.mkdir()
    (root / "sub").mkdir()
    (root / "sub" / "keep.txt").write_text("ours\n")
    with Workspace.init(root) as ws:
        ws.write_file("sub/keep.txt", "ours, edited\n")
        # The directory becomes a symlink to the sentinel, which has its own keep.txt.
        for child in (root / "sub").iterdir():
            child.unlink()
        (root / "sub").rmdir()
        (root / "sub").symlink_to(sentinel / "sub")
        before = tree(root)
        with pytest.raises(RollbackConflictError) as caught:
            ws.rollback(0)
        assert {c.path for c in caught.value.conflicts} == {"sub", "sub/keep.txt"}
        with pytest.raises(UnsafePathError, match="symlink"):
            ws.write_file("sub/keep.txt", "through the link\n")
        with pytest.raises(SnaplineError):
            ws.delete_file("sub/keep.txt")
        assert tree(root) == before
        if adopt == "resync":
            # Adopting the change records the link as a link, never what it points to.
            snapshot = ws.resync(description="sub became a symlink")
            assert snapshot is not None
            files = {f.path: f for f in snapshot.files}
            assert files["sub"].result_mode == 0o120000 and "sub/keep.txt" in files
            assert ws.content_at("sub") == os.fsencode(sentinel / "sub")
        # Rolling back over it replaces the link by a real directory, and leaves the
        # directory it pointed to alone.
        ws.rollback(0, force=adopt == "force")
    assert not (root / "sub").is_symlink()
    assert (root / "sub" / "keep.txt").read_text() == "ours\n"
    assert_healthy(root)
    figures.add("hostile_paths")


_JOURNALS = {
    "climbs-out": ("write", lambda s: json.dumps([_entry("../outside/secret.txt")])),
    "absolute": ("write", lambda s: json.dumps([_entry(str(s / "secret.txt"))])),
    "through-symlink": ("write", lambda s: json.dumps([_entry("link/secret.txt")])),
    "parked-token": ("discard", lambda s: json.dumps(["../../outside/secret.txt"])),
    "not-json": ("write", lambda s: "{not json"),
    "wrong-shape": ("write", lambda s: json.dumps({"path": "a.txt"})),
    "unknown-field": ("write", lambda s: json.dumps([{**_entry("a.txt"), "shell": "rm"}])),
}


def _entry(path: str) -> dict[str, object]:
    return {
        "path": path,
        "before_hash": None,
        "before_mode": None,
        "after_hash": hash_bytes(b"do not read me\n"),
        "after_mode": 0o100644,
    }


@pytest.mark.parametrize("kind", sorted(_JOURNALS))
def test_a_crafted_journal_entry_is_dropped_not_followed(
    tmp_path: Path, sentinel: Path, no_reads_outside: list[str], kind: str
) -> None:
    """Recovery acts on journal entries, so they are checked like any recorded path.

    Regression: an entry naming an unsafe path made recovery raise on every open.
    """
    root = tmp_path / "ws"
    root.mkdir()
    (root / "a.txt").write_text("a\n")
    (root / "link").symlink_to(sentinel)
    Workspace.init(root).close()
    op, payload = _JOURNALS[kind]
    sql(root, "INSERT INTO journal(op, created, payload) VALUES (?, 't', ?)", op, payload(sentinel))
    before = tree(root)
    assert_healthy(root)  # opens, settles the entry, validates, in sync
    assert tree(root) == before
    figures.add("hostile_paths")


@pytest.mark.parametrize(
    "bad",
    [
        ".git/hooks/post-checkout",
        "sub/.GIT/config",
        "../outside/secret.txt",
        ".snapline/index.db",
        "./victim.txt",
        "outside//secret.txt",
    ],
)
def test_revert_refuses_a_recorded_path_no_writer_may_write_as_rollback_does(
    tmp_path: Path, bad: str
) -> None:
    # Reverting snapshot 2 would recreate the crafted path: refused before any write,
    # with rollback's kind and message, never advice to "move it away" (nothing stands
    # there to move).
    root = tmp_path / "ws"
    _history(root)
    _rename_recorded(root, bad)
    before = tree(root)
    with Workspace.open(root) as ws:
        with pytest.raises(RevertConflictError) as caught:
            ws.revert(2)
        with pytest.raises(RollbackConflictError) as rolled:
            ws.rollback(1)
        assert [(c.kind, c.path) for c in caught.value.conflicts] == [("unsafe-path", bad)]
        assert caught.value.conflicts == rolled.value.conflicts
        assert ws.latest == 2
    assert tree(root) == before
    assert not (tmp_path / "outside").exists()
