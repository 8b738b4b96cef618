"""Journaled writes: a failure or a crash between workspace write and commit is undone."""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path
from typing import Any

import pytest

from snapline import ProtectedPathError, StoreBusyError, Workspace, atomic
from snapline.hashing import hash_bytes
from snapline.snapshots.record import batching, journal
from snapline.snapshots.record.journal import PlannedWrite as PW
from snapline.snapshots.record.plan import Step, to_writes


def test_a_failed_commit_puts_the_file_back(ws: Workspace, monkeypatch: pytest.MonkeyPatch) -> None:
    import snapline.snapshots.record.recorder as recorder

    def broken(*args: object, **kwargs: object) -> None:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(recorder, "append_snapshot", broken)
    with pytest.raises(OSError):
        ws.write_file("src/app.py", "new content\n")
    assert (ws.root / "src/app.py").read_text() == "print('hello')\n"
    with pytest.raises(OSError):
        ws.move_file("src/app.py", "moved.py")
    assert (ws.root / "src/app.py").exists() and not (ws.root / "moved.py").exists()
    monkeypatch.undo()
    assert ws.latest == 0 and ws.validate().ok and ws.check_sync().ok
    assert ws._store.journal.entries() == []


def test_a_store_that_also_fails_to_clear_the_entry_keeps_the_first_error(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The commit fails, the files are put back, and then the store refuses to delete
    # the journal entry too: the caller hears of the first failure, the cause, and the
    # entry left behind is settled by the next open, which finds the files as they were.
    import snapline.snapshots.record.recorder as recorder

    def broken(*args: object, **kwargs: object) -> None:
        raise OSError(5, "Input/output error")

    def busy(*args: object, **kwargs: object) -> None:
        raise StoreBusyError(ws.root / ".snapline" / "store.db", 5.0)

    monkeypatch.setattr(recorder, "append_snapshot", broken)
    monkeypatch.setattr(type(ws._store.journal), "delete", busy)
    with pytest.raises(OSError) as caught:
        ws.write_file("src/app.py", "new content\n")
    assert caught.value.errno == 5
    assert (ws.root / "src/app.py").read_text() == "print('hello')\n"
    monkeypatch.undo()
    assert [e.op for e in ws._store.journal.entries()] == ["write"]
    root = ws.root
    ws.close()
    with Workspace.open(root) as reopened:
        assert reopened._store.journal.entries() == []
        assert reopened.latest == 0 and reopened.validate().ok and reopened.check_sync().ok
    assert (root / "src/app.py").read_text() == "print('hello')\n"


def test_a_failed_second_write_undoes_the_first(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = []

    def fail(batch: atomic.WriteBatch, path: object, *, root: object = None) -> None:
        calls.append(path)  # the move's removal of its source, after writing its target
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(atomic.WriteBatch, "remove", fail)
    with pytest.raises(OSError):
        ws.move_file("src/app.py", "lib/app.py")
    assert calls == [ws.root / "src/app.py"]
    assert not (ws.root / "lib/app.py").exists()
    assert (ws.root / "src/app.py").read_text() == "print('hello')\n"
    assert ws.check_sync().ok and ws.latest == 0


def test_a_crash_after_the_write_is_undone_on_open(ws: Workspace) -> None:
    # The state a SIGKILL leaves between "file written" and "snapshot committed".
    path = ws.root / "src/app.py"
    entry = {
        "path": "src/app.py",
        "before_hash": hash_bytes(b"print('hello')\n"),
        "before_mode": 0o100644,
        "after_hash": hash_bytes(b"crashed\n"),
        "after_mode": 0o100644,
    }
    with ws._store.write():
        ws._store.journal.add("write", "t", json.dumps([entry]))
    path.write_text("crashed\n")
    (path.parent / atomic.temp_name("app.py")).write_text("leftover")
    ws.close()
    with Workspace.open(ws.root) as reopened:
        assert path.read_text() == "print('hello')\n"
        assert sorted(p.name for p in path.parent.iterdir()) == ["app.py"]
        assert reopened._store.journal.entries() == []
        assert reopened.check_sync().ok and reopened.validate().ok


def test_a_crash_during_run_is_settled_by_recording(ws: Workspace) -> None:
    with ws._store.write():
        ws._store.journal.add(
            "run", "t", json.dumps({"argv": "[]", "tool": "shell", "description": "make"})
        )
    (ws.root / "made.txt").write_text("by the command\n")
    ws.close()
    with Workspace.open(ws.root) as reopened:
        snap = reopened.snapshot(reopened.latest)
        assert snap.tool == "shell" and snap.metadata == {"recovered": True}
        assert [f.path for f in snap.files] == ["made.txt"]
        assert reopened.check_sync().ok


def test_only_runs_of_independent_staged_writes_are_placed_together() -> None:
    def write(path: str, *, park: str | None = None, content: bytes | None = b"x") -> PW:
        return PW(path, None, None, "h", 0o100644, content, park)

    writes = [
        write("gone", content=None),  # a deletion: alone, in its place
        write("a"),
        write("b"),
        write("a"),  # the same path again: a new run, after the first
        write("c", park="t0ken"),  # parked first: alone
        write("d"),
        write("e"),
    ]
    staged = [
        None if w.content is None else atomic.Staged(Path(w.path), Path(".t")) for w in writes
    ]
    groups = batching.groups(writes, staged)
    assert [[w.path for w, _ in group] for group in groups] == [
        ["gone"],
        ["a", "b"],
        ["a"],
        ["c"],
        ["d", "e"],
    ]


_BIG = bytes(range(256)) * 40  # above the large-file limit below: tracked by hash only


@pytest.mark.parametrize("fail", [False, True])
def test_a_file_tracked_by_hash_only_is_parked_and_never_lost(
    root: Path, monkeypatch: pytest.MonkeyPatch, fail: bool
) -> None:
    # The store cannot rebuild such a file, so a write that replaces it moves it aside
    # first and, if the write fails, moves it back; in this process, not a child's.
    import snapline.snapshots.record.recorder as recorder

    (root / "a.txt").write_text("a\n")
    (root / "zbig.bin").write_bytes(_BIG)
    with Workspace.init(root, large_file_limit=4096) as ws:
        assert ws.snapshot(0).files[1].storage.value == "hash-only"
        (root / "a.txt").write_text("A\n")
        (root / "zbig.bin").write_text("small now\n")
        ws.record()
        (root / "a.txt").write_text("a again\n")
        (root / "zbig.bin").write_bytes(_BIG)
        ws.record()
        # Rolling back to 1 writes a.txt, then replaces zbig.bin, which is parked.
        before = {name: (root / name).read_bytes() for name in ("a.txt", "zbig.bin")}
        steps: list[str] = []
        monkeypatch.setattr(journal, "crash_point", steps.append)
        if fail:

            def broken(*args: object, **kwargs: object) -> None:
                raise OSError(5, "Input/output error")

            monkeypatch.setattr(recorder, "append_snapshot", broken)
            with pytest.raises(OSError):
                ws.rollback(1)
            monkeypatch.undo()
            after = {name: (root / name).read_bytes() for name in ("a.txt", "zbig.bin")}
            assert after == before and ws.latest == 2
            assert ws._store.journal.entries() == []
            # The step the crash tests stop at, once for each file put back, parked or not.
            assert steps.count("file-restored") == 2
        else:
            ws.rollback(1)
            assert (root / "a.txt").read_bytes() == b"A\n"
            assert (root / "zbig.bin").read_bytes() == b"small now\n"
            assert ws._store.journal.entries() == []  # settled: nothing left to recover
        assert ws.validate().ok and ws.check_sync().ok
    parked = root / ".snapline" / "parked"
    assert not parked.exists() or list(parked.iterdir()) == []


def test_a_parked_file_left_by_a_failed_removal_goes_on_the_next_open(
    root: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    # Once the snapshot is committed nothing is undone: a parked file that cannot be
    # removed now stays journaled, and the next open removes it.
    (root / "zbig.bin").write_bytes(_BIG)
    with Workspace.init(root, large_file_limit=4096) as ws:
        ws.write_file("zbig.bin", b"small now\n")
        (root / "zbig.bin").write_bytes(_BIG)
        ws.record()
        real, calls = journal._discard, []

        def failing_once(*args: Any) -> None:
            calls.append(args)
            if len(calls) == 1:
                raise OSError(5, "Input/output error")
            real(*args)

        monkeypatch.setattr(journal, "_discard", failing_once)
        with caplog.at_level(logging.WARNING):
            ws.rollback(1)  # replaces zbig.bin, which is parked first
        said = [r.getMessage() for r in caplog.records if "parked" in r.getMessage()]
        assert said == ["parked files are removed on the next open: [Errno 5] Input/output error"]
        assert (root / "zbig.bin").read_bytes() == b"small now\n"
        parked = root / ".snapline" / "parked"
        assert len(list(parked.iterdir())) == 1
        assert [e.op for e in ws._store.journal.entries()] == [journal.DISCARD_OP]
    with Workspace.open(root) as reopened:
        assert reopened._store.journal.entries() == []
    assert list(parked.iterdir()) == []


@pytest.mark.parametrize("path", [".git/hooks/pre-commit", "sub/.git/config"])
def test_a_write_inside_git_is_refused_whoever_planned_it(ws: Workspace, path: str) -> None:
    # Plans refuse such a path first; the journal refuses it again, as its last gate,
    # and leaves no entry behind.
    hook = b"#!/bin/sh\nexit 0\n"
    planted = PW(path, None, None, hash_bytes(hook), 0o100755, hook)
    with pytest.raises(ProtectedPathError) as caught:
        journal.apply_writes(ws.root, ws._store, "write", [planted], lambda: None, lambda _: None)
    assert (caught.value.path, caught.value.directory) == (path, ".git")
    assert str(caught.value) == (
        f"refusing to write {path}: it is inside .git/, git's own directory (its config, "
        "hooks and objects), which only git changes; name a path outside .git/ and "
        ".snapline/ (snapline never writes into either)"
    )
    assert not (ws.root / path).exists() and not (ws.root / path).parent.exists()
    assert ws._store.journal.entries() == []


def test_a_content_that_does_not_match_its_hash_is_never_written(ws: Workspace) -> None:
    wrong = PW("src/app.py", None, None, hash_bytes(b"planned\n"), 0o100644, b"other\n")
    before = (ws.root / "src/app.py").read_bytes()
    with pytest.raises(journal.ContentMismatchError) as caught:
        journal.apply_writes(ws.root, ws._store, "write", [wrong], lambda: None, lambda _: None)
    error = caught.value
    assert (error.path, error.expected, error.actual) == (
        "src/app.py",
        hash_bytes(b"planned\n"),
        hash_bytes(b"other\n"),
    )
    planned, other = hash_bytes(b"planned\n"), hash_bytes(b"other\n")
    assert str(error) == (
        f"refusing to write src/app.py: its rebuilt content hashes to {other}, not the "
        f"recorded {planned}; the store is damaged, run `snapline verify`"
    )
    assert (ws.root / "src/app.py").read_bytes() == before
    assert ws._store.journal.entries() == []


@pytest.mark.parametrize("token", ["../escape", "a/b", "", "t\u00e9", "\u0661\u0662", 7])
def test_a_parked_token_from_the_journal_is_never_a_path(root: Path, token: object) -> None:
    # The journal may come from elsewhere: a token is ASCII letters and digits, or refused.
    with pytest.raises(ValueError) as caught:
        journal._parked(root, token)  # type: ignore[arg-type]
    assert str(caught.value) == f"a parked file's token is letters and digits only, not {token!r}"
    assert journal._parked(root, "t0ken") == root / ".snapline" / "parked" / "t0ken"


def test_undoing_a_new_file_leaves_no_directory_it_made(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    import snapline.snapshots.record.recorder as recorder

    def broken(*args: object, **kwargs: object) -> None:
        raise OSError(5, "Input/output error")

    def listing() -> list[str]:
        paths = (p.relative_to(ws.root).as_posix() for p in ws.root.rglob("*"))
        return sorted(p for p in paths if not p.startswith(".snapline"))

    before = listing()
    monkeypatch.setattr(recorder, "append_snapshot", broken)
    with pytest.raises(OSError):
        ws.write_file("new/deep/file.txt", "new\n")
    monkeypatch.undo()
    # The tree as it was, directories included: the ones made for the file are gone.
    assert listing() == before and not (ws.root / "new").exists()


def test_a_crash_before_some_files_were_written_puts_back_only_those_silently(
    root: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # The plan's journal entry, from the plan itself (to_writes): a file edited, a file
    # deleted and an executable edited; the process dies after the first file only.
    (root / "a.txt").write_text("a\n")
    (root / "gone.txt").write_text("gone\n")
    (root / "run.sh").write_text("#!/bin/sh\n")
    os.chmod(root / "run.sh", 0o755)
    with Workspace.init(root) as ws:
        known = ws._store.state.get(["a.txt", "gone.txt", "run.sh"])
        steps = [
            Step("a.txt", None, b"a2\n", 0o100644),
            Step("gone.txt", None, None, None),
            Step("run.sh", None, b"#!/bin/sh\necho hi\n", 0o100755),
        ]
        _, writes = to_writes(steps, known)
        with ws._store.write():
            ws._store.journal.add("write", "t", json.dumps([w.entry() for w in writes]))
        (root / "a.txt").write_text("a2\n")
    with caplog.at_level(logging.WARNING), Workspace.open(root) as reopened:
        assert reopened._store.journal.entries() == []
        assert reopened.check_sync().ok
    assert (root / "a.txt").read_text() == "a\n"
    assert (root / "gone.txt").read_text() == "gone\n"
    assert (root / "run.sh").read_text() == "#!/bin/sh\n"
    assert os.stat(root / "run.sh").st_mode & 0o777 == 0o755
    # The files the crash came before were at their versions: nothing to say of them.
    assert [r.getMessage() for r in caplog.records if "recovery" in r.getMessage()] == []


def test_a_journal_entry_keeps_every_field_but_the_content() -> None:
    # dataclasses.asdict is the oracle: a field added to PlannedWrite reaches the entry.
    import dataclasses

    write = journal.PlannedWrite("a/b.txt", "sha256:1", 0o100644, "sha256:2", 0o100755, b"x", "t0")
    expected = dataclasses.asdict(write)
    del expected["content"]
    assert list(write.entry().items()) == list(expected.items())
