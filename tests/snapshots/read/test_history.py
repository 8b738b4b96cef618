"""History queries: net changes over a range, filtered logs, git-applicable diffs, resync."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from snapline import ChangeKind, SnapshotNotFoundError, SnapshotRangeError, Workspace
from snapline.content import decode_text
from tests.snapshots.histories import OPS, Session
from tests.snapshots.trees import files

# -- modified_files -------------------------------------------------------------------------


def _statuses(ws: Workspace, from_n: int = 0, to_n: int | None = None) -> dict[str, tuple]:  # type: ignore[type-arg]
    return {
        m.path: (m.status.value, m.old_path, m.snapshots) for m in ws.modified_files(from_n, to_n)
    }


def test_modified_files_lists_the_net_change_of_each_path(ws: Workspace) -> None:
    ws.write_file("src/app.py", "print('one')\n")  # 1
    ws.write_file("tmp.txt", "scratch\n")  # 2
    ws.write_file("new.txt", "new\n")  # 3
    ws.delete_file("tmp.txt")  # 4: added then deleted inside the range
    ws.delete_file("README.md")  # 5
    ws.write_file("src/app.py", "print('hello')\n")  # 6: back to the baseline content
    ws.write_file("run.sh", "#!/bin/sh\n")  # 7
    ws.write_file("run.sh", "#!/bin/sh\n", executable=True)  # 8
    assert _statuses(ws) == {
        "README.md": ("deleted", None, (5,)),
        "new.txt": ("added", None, (3,)),
        "run.sh": ("added", None, (7, 8)),
    }
    assert _statuses(ws, 1, 5) == {
        "README.md": ("deleted", None, (5,)),
        "new.txt": ("added", None, (3,)),
    }
    assert _statuses(ws, 7) == {"run.sh": ("modified", None, (8,))}  # a mode change
    assert _statuses(ws, 3, 3) == {}
    first = ws.modified_files(0, 1)[0]
    assert first.status is ChangeKind.MODIFIED
    assert first.model_dump(mode="json") == {
        "path": "src/app.py",
        "status": "modified",
        "old_path": None,
        "snapshots": [1],
    }


def test_modified_files_follows_renames(ws: Workspace) -> None:
    ws.move_file("README.md", "docs/README.md")  # 1
    ws.write_file("docs/README.md", "# edited\n")  # 2
    ws.move_file("docs/README.md", "docs/index.md")  # 3
    ws.move_file("src/app.py", "app.py")  # 4
    ws.move_file("app.py", "src/app.py")  # 5: moved back
    ws.write_file("README.md", "# a new readme\n")  # 6: the old path is used again
    assert _statuses(ws, 0, 3) == {"docs/index.md": ("renamed", "README.md", (1, 2, 3))}
    assert _statuses(ws) == {
        "README.md": ("modified", None, (1, 6)),
        "docs/index.md": ("added", None, (1, 2, 3)),
    }
    assert _statuses(ws, 2, 3) == {"docs/index.md": ("renamed", "docs/README.md", (3,))}


def test_modified_files_refuses_bad_ranges(ws: Workspace) -> None:
    ws.write_file("a.txt", "a\n")
    with pytest.raises(SnapshotRangeError):
        ws.modified_files(1, 0)
    with pytest.raises(SnapshotNotFoundError):
        ws.modified_files(0, 5)
    with pytest.raises(SnapshotNotFoundError):
        ws.diff(-1)


# -- snapshots(): filtering the log -----------------------------------------------------------


def test_snapshots_filter_by_file_tool_session_and_number(ws: Workspace) -> None:
    ws.write_file("a.txt", "a\n", tool="edit", session="s1")  # 1
    ws.move_file("a.txt", "b.txt", session="s2")  # 2
    ws.write_file("src/app.py", "x\n", tool="edit")  # 3
    ws.write_file("b.txt", "b\n", tool="edit", session="s1")  # 4
    numbers = lambda **kw: [s.number for s in ws.snapshots(**kw)]  # noqa: E731
    assert numbers(file="a.txt") == [1, 2]  # the rename touches its old path too
    assert numbers(file="b.txt") == [2, 4]
    assert numbers(file=ws.root / "src" / "app.py") == [0, 3]
    assert numbers(tool="edit") == [1, 3, 4]
    assert numbers(session="s1") == [1, 4]
    assert numbers(since=2, until=3) == [2, 3]
    assert numbers(tool="edit", since=2) == [3, 4]
    assert numbers(newest_first=True, limit=2) == [4, 3]
    listed = next(ws.snapshots(since=2, until=2))
    assert listed.files[0].forward is None  # listed without diffs
    assert ws.snapshot(2).files[0].forward is not None


def test_snapshots_filter_by_time_in_any_timezone(ws: Workspace) -> None:
    ws.write_file("a.txt", "a\n")
    middle = ws.snapshot(1).time
    ws.write_file("a.txt", "b\n")
    numbers = lambda **kw: [s.number for s in ws.snapshots(**kw)]  # noqa: E731
    assert numbers(since=middle) == [1, 2]
    assert numbers(until=middle) == [0, 1]
    assert numbers(since=middle, until=middle) == [1]
    # The same instant written in another timezone, or as naive local time.
    elsewhere = middle.astimezone(timezone(timedelta(hours=-7)))
    assert numbers(since=elsewhere, until=elsewhere) == [1]
    naive_local = middle.astimezone().replace(tzinfo=None)
    assert numbers(since=naive_local, until=naive_local) == [1]
    assert numbers(since=datetime.now(timezone.utc) + timedelta(hours=1)) == []


# -- diff: a unified diff git apply accepts ----------------------------------------------------


def _git(cwd: Path, *args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(cwd),
        "GIT_CONFIG_NOSYSTEM": "1",
        "LC_ALL": "C",
    }
    return subprocess.run(
        ["git", "-c", "core.autocrlf=false", "-c", "core.filemode=true", *args],
        cwd=cwd,
        env=env,
        input=stdin,
        capture_output=True,
        check=False,
    )


def _copy_tree(source: Path, target: Path) -> None:
    shutil.copytree(
        source, target, symlinks=True, ignore=shutil.ignore_patterns(".snapline", ".git")
    )


def _apply(ws: Workspace, repo: Path, text: str, binaries: dict[str, bytes] | None = None) -> None:
    """``git apply --check`` then ``git apply`` the diff in ``repo``, a git repository."""
    assert _git(repo, "init", "-q").returncode == 0
    for data in (binaries or {}).values():
        # git applies a "Binary files differ" section when it has the new blob, which
        # it finds by the full index line: give it the blob, as a clone would have.
        assert _git(repo, "hash-object", "-w", "--stdin", stdin=data).returncode == 0
    patch = repo / ".git" / "snapline.patch"
    patch.write_bytes(text.encode("utf-8"))
    checked = _git(repo, "apply", "--check", str(patch))
    assert checked.returncode == 0, checked.stderr.decode()
    applied = _git(repo, "apply", str(patch))
    assert applied.returncode == 0, applied.stderr.decode()


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_the_diff_applies_with_git_and_reproduces_every_byte(ws: Workspace, tmp_path: Path) -> None:
    root = ws.root
    (root / "crlf.txt").write_bytes(b"one\r\ntwo\r\nthree\r\n")
    (root / "tail.txt").write_bytes(b"no final newline")
    (root / "doomed.txt").write_text("to be deleted\n")
    (root / "moved.txt").write_text("".join(f"line {i}\n" for i in range(30)))
    (root / "mode.sh").write_text("#!/bin/sh\necho mode\n")
    (root / "logo.bin").write_bytes(bytes(range(256)))
    (root / "empty-gone.txt").write_bytes(b"")
    (root / "link").symlink_to("crlf.txt")
    (root / "to-link.txt").write_text("a file that becomes a symlink\n")
    ws.record()
    start = ws.latest
    _copy_tree(root, tmp_path / "repo")

    ws.write_file("crlf.txt", b"one\r\nTWO\r\nthree\r\nfour\r\n")
    ws.write_file("tail.txt", b"no final newline, still")
    ws.write_file("src/app.py", "print('hello')\nprint('no newline now')")
    ws.delete_file("doomed.txt")
    ws.delete_file("empty-gone.txt")
    ws.write_file("added dir/new file.txt", "with spaces\n")
    ws.write_file("empty.txt", b"")
    ws.move_file("moved.txt", "sub/renamed.txt")
    ws.write_file("sub/renamed.txt", "".join(f"line {i}\n" for i in range(30) if i != 15))
    ws.move_file("README.md", "docs/README.md")
    ws.write_file("mode.sh", "#!/bin/sh\necho mode\n", executable=True)
    ws.write_file("logo.bin", bytes(reversed(range(256))))
    ws.write_file("new.bin", b"\x00\x01binary")
    ws.write_file("café.txt", "unicode name\n")
    (root / "link").unlink()
    (root / "link").symlink_to("tail.txt")
    (root / "to-link.txt").unlink()
    (root / "to-link.txt").symlink_to("src/app.py")
    ws.record()

    text = ws.diff(start)
    assert "Binary files a/logo.bin and b/logo.bin differ" in text
    assert "Binary files /dev/null and b/new.bin differ" in text
    assert "\x00" not in text and "\\ No newline at end of file" in text
    assert "rename from moved.txt\nrename to sub/renamed.txt\n" in text
    assert "old mode 100644\nnew mode 100755\n" in text
    assert "deleted file mode 100644" in text and "new file mode 120000" in text
    assert "--- a/crlf.txt\n+++ b/crlf.txt\n" in text and "-two\r\n+TWO\r\n" in text
    assert "--- /dev/null\n+++ b/added dir/new file.txt\t\n" in text  # as git writes it
    binaries = {p: ws.content_at(p) for p in ("logo.bin", "new.bin")}
    _apply(ws, tmp_path / "repo", text, binaries)
    assert files(tmp_path / "repo") == files(root)


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_a_diff_between_two_past_snapshots_applies_to_the_older_one(
    ws: Workspace, tmp_path: Path
) -> None:
    ws.write_file("a.txt", "one\n")  # 1
    _copy_tree(ws.root, tmp_path / "at1")
    ws.write_file("a.txt", "one\ntwo\n")  # 2
    ws.move_file("a.txt", "b.txt")  # 3
    ws.write_file("src/app.py", b"\r\n")  # 4
    _copy_tree(ws.root, tmp_path / "at4")
    ws.write_file("later.txt", "not in the range\n")  # 5
    text = ws.diff(1, 4)
    assert "later.txt" not in text
    _apply(ws, tmp_path / "at1", text)
    assert files(tmp_path / "at1") == files(tmp_path / "at4")
    assert ws.diff(4, 4) == ""


def test_diff_paths_limit_the_output(ws: Workspace) -> None:
    ws.write_file("src/app.py", "print('bye')\n")
    ws.write_file("README.md", "# changed\n")
    ws.move_file("README.md", "src/README.md")
    text = ws.diff(0, paths=["src"])
    assert text.count("diff --git") == 2
    assert "diff --git a/README.md b/src/README.md\n" in text  # the rename into src/
    assert "@@ -1 +1 @@\n-print('hello')\n+print('bye')\n" in text
    assert ws.diff(0, paths=["nothing-here"]) == ""


def test_binary_content_is_named_not_dumped(ws: Workspace) -> None:
    ws.write_file("blob.bin", bytes(range(256)) * 8)
    text = ws.diff(0)
    assert text.splitlines()[-1] == "Binary files /dev/null and b/blob.bin differ"
    assert len(text) < 400


# -- resync -------------------------------------------------------------------------------


def test_resync_adopts_outside_changes_as_an_external_snapshot(ws: Workspace) -> None:
    assert ws.resync() is None
    (ws.root / "README.md").write_text("# edited by a formatter\n")
    (ws.root / "src" / "gen.py").write_text("generated\n")
    (ws.root / "elsewhere.txt").write_text("not resynced yet\n")
    snapshot = ws.resync(description="ran the formatter", paths=["README.md", "src"], session="ci")
    assert snapshot is not None and snapshot.tool == "external"
    assert snapshot.description == "ran the formatter" and snapshot.session == "ci"
    assert sorted(f.path for f in snapshot.files) == ["README.md", "src/gen.py"]
    assert [p.path for p in ws.check_sync().problems] == ["elsewhere.txt"]
    assert ws.resync() is not None
    assert ws.check_sync().ok and ws.validate().ok
    ws.write_file("README.md", "# now recording works again\n")


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
@given(ops=OPS, start=st.integers(min_value=0, max_value=12))
def test_any_diff_applies_with_git(ops, start: int) -> None:  # type: ignore[no-untyped-def]
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "ws"
        (root / "dir").mkdir(parents=True)
        (root / "a.txt").write_bytes(b"baseline\n")
        (root / "dir" / "c.txt").write_bytes(b"c\r\n")
        with Workspace.init(root) as ws:
            session = Session(ws)
            for op in ops:
                session.apply(op)
            end = ws.latest
            start = min(start, end)
            ws.rollback(start)  # the tree at `start`, to copy; then back to the end
            _copy_tree(root, Path(tmp) / "repo")
            ws.rollback(end)
            assert files(root) == session.states[end]
            binaries = {
                path: data
                for path, (kind, data) in files(root).items()
                if kind != "link" and decode_text(data) is None
            }
            text = ws.diff(start)
            if text:  # git refuses an empty patch ("No valid patches in input")
                _apply(ws, Path(tmp) / "repo", text, binaries)
            assert files(Path(tmp) / "repo") == files(root)
