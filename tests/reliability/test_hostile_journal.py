"""Issue 14, items 3 and 12: recovery writes only where a rollback could, and never wedges.

Item 3: a journal entry (an interrupted rollback) crafted to name a path inside
``.git/``, the store, through a symlinked parent or outside the root must not make
recovery write, move or delete anything there. Item 12: when something new stands where
recovery must put a file back, recovery names it and the way out in one line, reading
commands keep working, writing commands refuse until it is moved, and then it finishes.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from snapline import SnaplineError, Workspace
from snapline.cli.app import app
from snapline.hashing import hash_bytes
from snapline.snapshots.record.journal import RecoveryBlockedError
from tests.cli_runner import CliRunner, Result
from tests.reliability import figures
from tests.reliability.crafting import sql
from tests.reliability.helpers import assert_healthy, tree

_HOOK = b"#!/bin/sh\necho owned\n"


def _entry(path: str, **fields: object) -> dict[str, object]:
    return {
        "path": path,
        "before_hash": None,
        "before_mode": None,
        "after_hash": None,
        "after_mode": None,
        **fields,
    }


def _journal(root: Path, op: str, entries: list[dict[str, object]]) -> None:
    sql(
        root,
        "INSERT INTO journal(op, created, payload) VALUES (?, 't', ?)",
        op,
        json.dumps(entries),
    )


def _workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / ".git" / "hooks").mkdir(parents=True)
    (root / ".git" / "config").write_bytes(b"[core]\n")
    (root / "sub" / ".git").mkdir(parents=True)
    (root / "sub" / ".git" / "HEAD").write_bytes(b"ref: refs/heads/main\n")
    (root / "a.txt").write_text("a\n")
    Workspace.init(root).close()
    return root


def _healthy(root: Path) -> None:
    # assert_healthy's byte-for-byte tree would list the nested sub/.git, never tracked.
    assert_healthy(root, in_sync=False)
    with Workspace.open(root) as ws:
        assert ws.check_sync().ok


def _git_files(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if ".git" in p.relative_to(root).parts and p.is_file()
    }


# Each crafted entry would, if followed, delete or create a file where no rollback could.
_DELETES = {
    "git-config": ".git/config",
    "nested-git": "sub/.git/HEAD",
    "git-dir-itself": ".git",
}


@pytest.mark.parametrize("kind", sorted(_DELETES))
@pytest.mark.parametrize("op", ["rollback", "revert", "write"])
def test_recovery_never_deletes_inside_git(tmp_path: Path, kind: str, op: str) -> None:
    """An entry whose "after" matches the file on disk would be undone by deleting it."""
    root = _workspace(tmp_path)
    path = _DELETES[kind]
    location = root / path
    after = hash_bytes(location.read_bytes()) if location.is_file() else None
    _journal(root, op, [_entry(path, after_hash=after, after_mode=0o100644)])
    before = _git_files(root)
    _healthy(root)  # opens, settles the entry, validates, in sync
    assert _git_files(root) == before
    figures.add("hostile_journal")


@pytest.mark.parametrize(
    "path",
    [
        ".git/hooks/post-checkout",
        "sub/.git/hooks/pre-commit",
        ".git/config",
        "link/planted.txt",
        "../outside.txt",
        "/tmp/outside.txt",
        ".snapline/planted",
    ],
)
def test_recovery_never_moves_a_parked_file_where_no_rollback_writes(
    tmp_path: Path, path: str
) -> None:
    """A "parked" file is moved back on undo: a crafted one must not become a git hook.

    Nor land through a symlinked parent, outside the root, or inside the store.
    """
    root = _workspace(tmp_path)
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (root / "link").symlink_to(outside)
    with Workspace.open(root) as ws:
        ws.record()
    parked = root / ".snapline" / "parked"
    parked.mkdir()
    (parked / "deadbeef").write_bytes(_HOOK)
    os.chmod(parked / "deadbeef", 0o755)
    _journal(
        root,
        "rollback",
        [_entry(path, before_hash=hash_bytes(_HOOK), before_mode=0o100755, park="deadbeef")],
    )
    before = tree(root)
    before_git = _git_files(root)
    _healthy(root)
    assert _git_files(root) == before_git
    assert list(outside.iterdir()) == []
    assert not (tmp_path / "outside.txt").exists()
    assert tree(root) == before
    figures.add("hostile_journal")


# -- item 12: an obstacle where recovery must put a file back ------------------------


def test_a_parked_file_changed_since_is_kept_aside_and_the_rest_is_undone(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # A write killed after parking p.txt and writing the files; p.txt and c.txt were
    # then edited by hand. Recovery must keep both versions of p.txt (the edit in place,
    # the old one parked, and say where), leave c.txt's edit, and still put a.txt back.
    root = tmp_path / "ws"
    root.mkdir()
    (root / "a.txt").write_text("a\n")
    (root / "p.txt").write_text("p\n")
    (root / "c.txt").write_text("c\n")
    Workspace.init(root).close()
    mode = 0o100644
    _journal(
        root,
        "write",
        [
            _entry("a.txt", before_hash=hash_bytes(b"a\n"), before_mode=mode,
                   after_hash=hash_bytes(b"A\n"), after_mode=mode),
            _entry("p.txt", before_hash=hash_bytes(b"p\n"), before_mode=mode,
                   after_hash=hash_bytes(b"P\n"), after_mode=mode, park="t0ken"),
            _entry("c.txt", before_hash=hash_bytes(b"c\n"), before_mode=mode,
                   after_hash=hash_bytes(b"C\n"), after_mode=mode),
        ],
    )  # fmt: skip
    parked = root / ".snapline" / "parked" / "t0ken"
    parked.parent.mkdir(exist_ok=True)
    os.rename(root / "p.txt", parked)
    (root / "a.txt").write_text("A\n")
    (root / "p.txt").write_text("edited by hand since\n")
    (root / "c.txt").write_text("edited too\n")
    with caplog.at_level("WARNING"), Workspace.open(root) as ws:
        ws.record()
    assert (root / "a.txt").read_text() == "a\n"
    assert (root / "p.txt").read_text() == "edited by hand since\n"
    assert parked.read_text() == "p\n"
    notes = [r.getMessage() for r in caplog.records if r.getMessage().startswith("recovery: ")]
    assert (root / "c.txt").read_text() == "edited too\n"
    assert notes == [
        f"recovery: c.txt: changed since the interrupted {hash_bytes(b'C' + bytes([10]))}",
        f"recovery: p.txt: changed since the interrupted write; its previous content is kept "
        f"in {parked}",
    ]


def test_a_committed_write_keeps_its_files_and_only_its_parked_file_goes(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # Killed after its snapshot was committed: the writes stand, and the parked old
    # version of p.txt is no longer needed.
    root = tmp_path / "ws"
    root.mkdir()
    (root / "p.txt").write_text("p\n")
    with Workspace.init(root) as ws:
        ws.write_file("p.txt", "P\n")
    mode = 0o100644
    _journal(
        root,
        "write",
        [_entry("p.txt", before_hash=hash_bytes(b"p\n"), before_mode=mode,
                after_hash=hash_bytes(b"P\n"), after_mode=mode, park="t0ken")],
    )  # fmt: skip
    parked = root / ".snapline" / "parked" / "t0ken"
    parked.parent.mkdir(exist_ok=True)
    parked.write_text("p\n")
    with caplog.at_level("WARNING"), Workspace.open(root) as ws:
        assert ws.record() is None
        assert ws.latest == 1
    assert (root / "p.txt").read_text() == "P\n"
    assert not parked.exists()
    assert [r.getMessage() for r in caplog.records if "recovery" in r.getMessage()] == []


def test_a_symlinked_parent_is_not_an_obstacle_and_nothing_is_written_through_it(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # No write can go through a symlinked parent (it is unsafe), so recovery has
    # nothing to put back there: it says so, and goes on; it is not blocked.
    root, _ = _interrupted_rollback(tmp_path, "d/n.txt")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    os.rmdir(root / "d")
    os.symlink(elsewhere, root / "d")
    with caplog.at_level("WARNING"), Workspace.open(root) as ws:
        ws.record()
    assert list(elsewhere.iterdir()) == []
    notes = [r.getMessage() for r in caplog.records if r.getMessage().startswith("recovery: ")]
    assert len(notes) == 1 and notes[0].startswith("recovery: d/n.txt: not touched ("), notes


def _interrupted_rollback(tmp_path: Path, path: str) -> tuple[Path, bytes]:
    """A workspace where a rollback was killed right after deleting ``path``."""
    root = tmp_path / "ws"
    location = root / path
    location.parent.mkdir(parents=True)
    content = b"n\n"
    location.write_bytes(content)
    (root / "other.txt").write_text("o\n")
    Workspace.init(root).close()
    _journal(
        root,
        "rollback",
        [_entry(path, before_hash=hash_bytes(content), before_mode=0o100644)],
    )
    location.unlink()
    return root, content


def _dir_obstacle(root: Path, path: str) -> Path:
    (root / path).mkdir()
    (root / path / "precious.txt").write_text("mine\n")
    return root / path


def _file_parent_obstacle(root: Path, path: str) -> Path:
    parent = (root / path).parent
    os.rmdir(parent)
    parent.write_text("a file now\n")
    return parent


def _fifo_obstacle(root: Path, path: str) -> Path:
    os.mkfifo(root / path)
    return root / path


# kind: (the path to put back, how the obstacle is made, what stands where, what it is)
_OBSTACLES = {
    "directory": ("n.txt", _dir_obstacle, "n.txt", "a directory"),
    "file-as-parent": ("d/n.txt", _file_parent_obstacle, "d", "a file"),
    "file-as-nested-parent": ("d/e/n.txt", _file_parent_obstacle, "d/e", "a file"),
    "fifo": ("n.txt", _fifo_obstacle, "n.txt", "a special file"),
}


def _cli(root: Path, *args: str) -> Result:
    return CliRunner().invoke(app, ["--root", str(root), *args], catch_exceptions=False)


@pytest.mark.parametrize("kind", sorted(_OBSTACLES))
def test_an_obstacle_blocks_recovery_clearly_and_reads_keep_working(
    tmp_path: Path, kind: str
) -> None:
    path, make, where, what = _OBSTACLES[kind]
    root, content = _interrupted_rollback(tmp_path, path)
    obstacle = make(root, path)
    kept = tree(root) if kind != "fifo" else None
    # Reading commands work (their exit code says what they found, never "internal").
    for command in (["log"], ["show", "0"], ["status"], ["diff", "0", "0"], ["verify"]):
        result = _cli(root, *command)
        assert result.exit_code in (0, 1), (command, result.output)
        assert "internal error" not in result.output, (command, result.output)
    # Writing commands refuse, naming the obstacle and the way out in one line.
    with Workspace.open(root) as ws:
        assert ws.snapshots()
        for write in (
            lambda: ws.record(),
            lambda: ws.write_file("other.txt", "x\n"),
            lambda: ws.rollback(0),
        ):
            with pytest.raises(RecoveryBlockedError) as caught:
                write()
            assert (caught.value.path, caught.value.obstacle) == (path, where)
            assert str(caught.value) == (
                f"an interrupted write must put back {path}, but {where} is {what} now; "
                f"move {where} away and run the command again (reading commands still work)"
            )
            assert caught.value.exit_code == 1
            assert isinstance(caught.value, SnaplineError)
    result = _cli(root, "record")
    assert result.exit_code == 1 and "move" in result.output
    if kept is not None:
        assert tree(root) == kept, "the obstacle's content was touched"
    # Once it is moved away, the next writing command finishes the recovery.
    os.rename(obstacle, tmp_path / "aside")
    with Workspace.open(root) as ws:
        assert ws.record() is None
    assert (root / path).read_bytes() == content
    assert_healthy(root)
    figures.add("hostile_journal")


def test_an_unreadable_journal_entry_is_dropped_and_named(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # An entry snapline cannot have written is never acted on, and never blocks an open;
    # the warning names it, so what was dropped is not silent.
    root = _workspace(tmp_path)
    _journal(root, "rollback", [{"path": "a.txt", "no": "such fields"}])
    before = tree(root)
    with caplog.at_level("WARNING"), Workspace.open(root) as ws:
        assert ws.check_sync().ok
    notes = [r.getMessage() for r in caplog.records if r.getMessage().startswith("recovery: ")]
    assert len(notes) == 1
    assert notes[0].startswith("recovery: dropped unreadable journal entry 1 (rollback): ")
    assert tree(root) == before
