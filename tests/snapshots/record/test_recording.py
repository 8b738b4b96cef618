"""Recording: track, write, delete, move, record; continuity refused on outside changes."""

from __future__ import annotations

import itertools
import os
import stat
from pathlib import Path

import pytest

from snapline import (
    ChangeKind,
    NotTrackedError,
    StateMismatchError,
    Storage,
    Workspace,
)
from snapline.hashing import hash_bytes


def test_write_file_records_a_text_delta(ws: Workspace) -> None:
    snap = ws.write_file("src/app.py", "print('hello')\nprint('again')\n", tool="edit")
    assert snap is not None and snap.number == 1 and snap.tool == "edit"
    change = snap.files[0]
    assert change.kind == ChangeKind.MODIFIED and change.storage == Storage.DELTA
    assert change.base_hash == hash_bytes(b"print('hello')\n")
    assert change.result_hash == hash_bytes(b"print('hello')\nprint('again')\n")
    assert change.forward == "=15\t+print('again')%0A"
    assert change.reverse == "=15\t-15"
    assert (ws.root / "src/app.py").read_text() == "print('hello')\nprint('again')\n"
    assert ws.write_file("src/app.py", "print('hello')\nprint('again')\n") is None
    assert ws.latest == 1


def test_numbers_are_contiguous_and_chained(ws: Workspace) -> None:
    for i in range(5):
        ws.write_file(f"f{i}.txt", f"{i}\n")
    snaps = list(ws.snapshots())
    assert [s.number for s in snaps] == list(range(6))
    for before, after in itertools.pairwise(snaps):
        assert after.parent_id == before.id
        assert after.chain_hash != before.chain_hash


def test_track_records_what_the_tool_changed(ws: Workspace) -> None:
    with ws.track(
        ["src/app.py", "src/new.py"],
        tool="edit",
        description="d",
        session="s1",
        metadata={"turn": 3},
    ) as tracking:
        (ws.root / "src/app.py").write_text("changed\n")
        (ws.root / "src/new.py").write_text("new\n")
        (ws.root / "README.md").write_text("not tracked by this call\n")
    snap = tracking.snapshot
    assert snap is not None
    assert [(f.path, f.kind) for f in snap.files] == [
        ("src/app.py", ChangeKind.MODIFIED), ("src/new.py", ChangeKind.ADDED),
    ]  # fmt: skip
    assert snap.session == "s1" and snap.metadata == {"turn": 3} and snap.description == "d"
    assert [p.path for p in ws.check_sync().problems] == ["README.md"]


def test_track_refuses_an_outside_change_before_the_tool_runs(ws: Workspace) -> None:
    (ws.root / "src/app.py").write_text("edited outside\n")
    ran = False
    with pytest.raises(StateMismatchError) as caught, ws.track(["src/app.py"], tool="edit"):
        ran = True
    assert not ran
    error = caught.value
    assert error.path == "src/app.py"
    assert error.expected == hash_bytes(b"print('hello')\n")
    assert error.actual == hash_bytes(b"edited outside\n")
    assert "snapline resync" in str(error)
    assert ws.latest == 0


def test_an_exception_in_track_records_nothing(ws: Workspace) -> None:
    with pytest.raises(RuntimeError), ws.track(["src/app.py"], tool="edit"):
        (ws.root / "src/app.py").write_text("half done\n")
        raise RuntimeError("tool failed")
    assert ws.latest == 0 and ws.validate().ok


def test_write_file_refuses_an_outside_change(ws: Workspace) -> None:
    (ws.root / "README.md").write_text("outside\n")
    with pytest.raises(StateMismatchError):
        ws.write_file("README.md", "mine\n")
    assert (ws.root / "README.md").read_text() == "outside\n"
    (ws.root / "untracked.txt").write_text("someone else's\n")
    with pytest.raises(StateMismatchError):
        ws.write_file("untracked.txt", "mine\n")
    assert ws.latest == 0


def test_delete_and_move(ws: Workspace) -> None:
    moved = ws.move_file("src/app.py", "lib/app.py")
    change = moved.files[0]
    assert (change.path, change.old_path, change.kind) == (
        "lib/app.py",
        "src/app.py",
        ChangeKind.RENAMED,
    )
    assert not (ws.root / "src").exists()
    assert ws.content_at("lib/app.py") == b"print('hello')\n"
    deleted = ws.delete_file("README.md")
    assert deleted.files[0].kind == ChangeKind.DELETED and deleted.files[0].result_hash is None
    assert not (ws.root / "README.md").exists()
    with pytest.raises(NotTrackedError):
        ws.delete_file("README.md")
    assert ws.validate().ok and ws.check_sync().ok


def test_deleted_is_not_empty(ws: Workspace) -> None:
    emptied = ws.write_file("README.md", b"")
    assert emptied is not None and emptied.files[0].result_hash == hash_bytes(b"")
    deleted = ws.delete_file("README.md")
    assert deleted.files[0].result_hash is None
    assert ws.content_at("README.md", emptied.number) == b""
    with pytest.raises(Exception, match="does not exist"):
        ws.content_at("README.md", deleted.number)


def test_record_finds_new_modified_deleted_and_renamed(ws: Workspace) -> None:
    (ws.root / "src/app.py").write_text("print('bye')\n")
    os.remove(ws.root / "README.md")
    (ws.root / "docs").mkdir()
    (ws.root / "docs/guide.md").write_text("# demo\n")  # README.md's content: a rename
    (ws.root / "data.bin").write_bytes(b"\x00\x01\xff")
    snap = ws.record(tool="shell", description="make docs")
    assert snap is not None
    kinds = {f.path: (f.kind, f.old_path) for f in snap.files}
    assert kinds == {
        "src/app.py": (ChangeKind.MODIFIED, None),
        "docs/guide.md": (ChangeKind.RENAMED, "README.md"),
        "data.bin": (ChangeKind.ADDED, None),
    }
    assert ws.record() is None
    assert ws.check_sync().ok


def test_record_limited_to_paths(ws: Workspace) -> None:
    (ws.root / "src/app.py").write_text("a\n")
    (ws.root / "README.md").write_text("b\n")
    snap = ws.record(["src"])
    assert snap is not None and [f.path for f in snap.files] == ["src/app.py"]
    assert [p.path for p in ws.check_sync().problems] == ["README.md"]


def test_round_trips_exactly(ws: Workspace) -> None:
    cases = {
        "crlf.txt": b"one\r\ntwo\r\n",
        "no-newline.txt": b"last line",
        "empty.txt": b"",
        "latin1.txt": "café\n".encode("latin-1"),
        "binary.bin": bytes(range(256)),
        "bom.txt": b"\xef\xbb\xbfhello\n",
        "mixed.txt": b"a\r\nb\nc\rd",
    }
    for name, data in cases.items():
        ws.write_file(name, data)
    edits = {
        "crlf.txt": b"one\r\nTWO\r\n",
        "no-newline.txt": b"last line\nmore",
        "latin1.txt": "café!\n".encode("latin-1"),
        "binary.bin": bytes(range(255, -1, -1)),
        "mixed.txt": b"a\r\nB\nc\rd",
    }
    before = ws.latest
    for name, data in edits.items():
        ws.write_file(name, data)
    for name, data in cases.items():
        assert ws.content_at(name, before) == data, name
        assert ws.content_at(name) == edits.get(name, data), name
        assert (ws.root / name).read_bytes() == edits.get(name, data)
    assert ws.validate(deep=True).ok


def test_executable_bit_is_recorded(ws: Workspace) -> None:
    script = ws.root / "run.sh"
    script.write_text("#!/bin/sh\n")
    script.chmod(0o755)
    first = ws.record()
    assert first is not None and first.files[0].result_mode == 0o100755
    script.chmod(0o644)
    second = ws.record()
    assert second is not None and second.files[0].kind == ChangeKind.MODIFIED
    assert (second.files[0].base_mode, second.files[0].result_mode) == (0o100755, 0o100644)
    ws.write_file("tool.sh", "#!/bin/sh\n", executable=True)
    assert os.stat(ws.root / "tool.sh").st_mode & stat.S_IXUSR


def test_symlinks_are_recorded_as_links(ws: Workspace) -> None:
    os.symlink("src/app.py", ws.root / "link")
    snap = ws.record()
    assert snap is not None and snap.files[0].result_mode == 0o120000
    assert ws.content_at("link") == b"src/app.py"


def test_ignored_paths_are_reported(ws: Workspace) -> None:
    (ws.root / ".gitignore").write_text("*.log\n")
    (ws.root / "debug.log").write_text("noise")
    ws.record()
    assert "debug.log" not in ws.tracked()
    assert ws.record(["debug.log"]) is None
    assert [(s.path, s.reason) for s in ws.last_skipped] == [("debug.log", "ignored")]


def test_unreadable_files_are_skipped_and_named(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    import snapline.snapshots.record.detect as detect

    (ws.root / "secret.txt").write_text("x")
    (ws.root / "open.txt").write_text("y")
    real = detect.read_disk_file

    def deny(path: Path, rel: str, *args: object, **kwargs: object) -> object:
        if rel == "secret.txt":
            raise PermissionError(13, "Permission denied")
        return real(path, rel, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(detect, "read_disk_file", deny)
    snap = ws.record()
    assert snap is not None and [f.path for f in snap.files] == ["open.txt"]
    assert [(s.path, s.reason) for s in snap.skipped] == [
        ("secret.txt", "unreadable (permission denied)")
    ]
    assert "unreadable" in [p.kind for p in ws.check_sync().problems]


def test_tracked_file_stays_tracked_when_a_rule_covers_it(ws: Workspace) -> None:
    (ws.root / ".gitignore").write_text("*.md\n")
    (ws.root / "README.md").write_text("changed\n")
    snap = ws.record()
    assert snap is not None
    assert {f.path: f.kind for f in snap.files} == {
        ".gitignore": ChangeKind.ADDED, "README.md": ChangeKind.MODIFIED,
    }  # fmt: skip


def test_metadata_must_be_small_json(ws: Workspace) -> None:
    from snapline import MetadataError

    with pytest.raises(MetadataError):
        ws.write_file("x.txt", "x", metadata={"bad": object()})
    with pytest.raises(MetadataError):
        ws.write_file("x.txt", "x", metadata={"big": "x" * 100_000})
    assert not (ws.root / "x.txt").exists()


def test_run_records_a_commands_effects(ws: Workspace) -> None:
    result = ws.run(["sh", "-c", "echo made > out.txt; rm README.md; exit 4"])
    assert result.exit_code == 4
    snap = result.snapshot
    assert snap is not None and snap.tool == "shell" and snap.metadata["exit_code"] == 4
    assert {f.path: f.kind for f in snap.files} == {
        "out.txt": ChangeKind.ADDED, "README.md": ChangeKind.DELETED,
    }  # fmt: skip
    (ws.root / "out.txt").write_text("drift\n")
    with pytest.raises(StateMismatchError):
        ws.run(["true"])


def test_move_over_a_tracked_file_keeps_its_version_in_the_history(ws: Workspace) -> None:
    snap = ws.move_file("src/app.py", "README.md", overwrite=True)
    assert {f.path: f.kind for f in snap.files} == {
        "README.md": ChangeKind.MODIFIED, "src/app.py": ChangeKind.DELETED,
    }  # fmt: skip
    assert snap.file("README.md").base_hash == hash_bytes(b"# demo\n")  # type: ignore[union-attr]
    assert ws.validate().ok
    assert ws.content_at("README.md", 0) == b"# demo\n"
    assert ws.content_at("README.md") == b"print('hello')\n"


def test_the_root_as_a_path_means_the_whole_workspace(ws: Workspace) -> None:
    (ws.root / "src/app.py").write_text("changed\n")
    (ws.root / "new.txt").write_text("new\n")
    assert [p.path for p in ws.check_sync(".").problems] == ["new.txt", "src/app.py"]
    snap = ws.record([ws.root])
    assert snap is not None and [f.path for f in snap.files] == ["new.txt", "src/app.py"]


def test_a_lock_that_is_not_a_file_is_a_store_problem(ws: Workspace) -> None:
    from snapline import StoreCorruptError

    lock = ws.root / ".snapline" / "lock"
    lock.unlink(missing_ok=True)
    lock.mkdir()
    with pytest.raises(StoreCorruptError) as caught:
        ws.write_file("x.txt", "x")
    assert caught.value.exit_code == 3 and "lock" in str(caught.value)
    assert not (ws.root / "x.txt").exists()
