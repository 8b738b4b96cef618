"""The warm server's file-system monitor never misses a change (issue 29, point 2).

Every test drives the real command against a real server, real files and real inotify,
and compares each warm answer with the whole walk's (``SNAPLINE_SERVER=0``): the oracle.
Whether a check looked only at what the monitor named, or walked, is read from the
token it left (``.snapline/monitor.json``: ``walked``), never from timing.
"""

from __future__ import annotations

import os
import shutil
import signal
from pathlib import Path

from snapline import Workspace
from tests.cli.conftest import run_script
from tests.cli.warm.conftest import Warm, start_server, wait_gone
from tests.cli.warm.monitoring import same_as_walk, stopped, token, warm_status

QUEUED_EVENTS = Path("/proc/sys/fs/inotify/max_queued_events")


def settle(root: Path, server: Warm) -> None:
    """Two warm checks: the first starts the monitor and walks, the second builds on it."""
    warm_status(root, server)
    assert token(root)["walked"] is True
    assert warm_status(root, server) == []
    assert token(root)["walked"] is False


def test_a_check_served_warm_looks_only_at_what_changed(warm: Warm, project: Path) -> None:
    settle(project, warm)
    (project / "src" / "app.py").write_text("print('changed')\n")
    (project / "notes.txt").write_text("new\n")
    drift, walked = same_as_walk(project, warm)
    assert [(kind, path) for kind, path, *_ in drift] == [
        ("untracked", "notes.txt"),
        ("modified", "src/app.py"),
    ]
    assert not walked
    assert token(project)["dirty"] == ["notes.txt", "src/app.py"]
    # A drift stays a drift while nothing touches it again.
    assert same_as_walk(project, warm) == (drift, False)
    done = run_script("resync", "-m", "outside", cwd=project)
    assert done.returncode == 0, done.stderr
    assert same_as_walk(project, warm) == ([], False)
    assert warm.status()["monitors"] == 1


def test_events_lost_to_an_overflowing_queue_mean_the_whole_walk(warm: Warm, project: Path) -> None:
    settle(project, warm)
    many = int(QUEUED_EVENTS.read_text()) // 2 + 1000  # two events a file: create, close
    bulk = project / "src"
    with stopped(warm.pid):
        for index in range(many):
            os.close(os.open(bulk / f"f{index}", os.O_WRONLY | os.O_CREAT, 0o644))
        # The last change, whose event the full queue drops.
        (project / "README.md").write_text("# changed while the queue was full\n")
    drift, walked = same_as_walk(project, warm)
    assert ("modified", "README.md") in [(kind, path) for kind, path, *_ in drift]
    assert len(drift) == many + 1
    assert walked


def test_a_change_made_while_the_server_was_down_is_seen(
    runtime: Path, warm: Warm, project: Path
) -> None:
    settle(project, warm)
    assert run_script("server", "stop", cwd=runtime).returncode == 0
    wait_gone(warm.pid)
    (project / "README.md").write_text("# changed with no server\n")
    again = start_server(runtime)
    try:
        drift, walked = same_as_walk(project, again)
        assert [(kind, path) for kind, path, *_ in drift] == [("modified", "README.md")]
        assert walked
    finally:
        assert run_script("server", "stop", cwd=runtime).returncode == 0
        wait_gone(again.pid)


def test_a_server_killed_and_started_again_never_trusts_the_old_token(
    runtime: Path, warm: Warm, project: Path
) -> None:
    settle(project, warm)
    (project / "src" / "app.py").write_text("print('before the kill')\n")
    os.kill(warm.pid, signal.SIGKILL)
    wait_gone(warm.pid)
    (project / "README.md").write_text("# after the kill\n")
    again = start_server(runtime)
    try:
        drift, walked = same_as_walk(project, again)
        assert [path for _, path, *_ in drift] == ["README.md", "src/app.py"]
        assert walked
        # The new server's monitor carries on from its own first walk.
        (project / "README.md").write_text("# demo\n")
        drift, walked = same_as_walk(project, again)
        assert [path for _, path, *_ in drift] == ["src/app.py"]
        assert not walked
    finally:
        assert run_script("server", "stop", cwd=runtime).returncode == 0
        wait_gone(again.pid)


def test_a_file_in_a_brand_new_nested_directory_is_never_missed(warm: Warm, project: Path) -> None:
    settle(project, warm)
    deep = project / "a" / "b" / "c"
    # Made while the server cannot add a watch: every level exists before it looks.
    with stopped(warm.pid):
        deep.mkdir(parents=True)
        (deep / "f.txt").write_text("one\n")
    drift, walked = same_as_walk(project, warm)
    assert [(kind, path) for kind, path, *_ in drift] == [("untracked", "a/b/c/f.txt")]
    assert not walked
    done = run_script("record", "a/b/c/f.txt", cwd=project)
    assert done.returncode == 0, done.stderr
    assert same_as_walk(project, warm)[0] == []
    # Only a watch on a/b/c (added when a/ appeared, by listing it) sees this one.
    (deep / "f.txt").write_text("two\n")
    (deep / "d").mkdir()
    (deep / "d" / "g.txt").write_text("three\n")
    drift, walked = same_as_walk(project, warm)
    assert [(kind, path) for kind, path, *_ in drift] == [
        ("untracked", "a/b/c/d/g.txt"),
        ("modified", "a/b/c/f.txt"),
    ]
    assert not walked


def test_a_file_replaced_by_a_directory_or_a_symlink(warm: Warm, project: Path) -> None:
    settle(project, warm)
    (project / "README.md").unlink()
    (project / "README.md").mkdir()
    (project / "README.md" / "inner.txt").write_text("inside\n")
    (project / "src" / "app.py").unlink()
    (project / "src" / "app.py").symlink_to("../README.md")
    drift, walked = same_as_walk(project, warm)
    assert [(kind, path) for kind, path, *_ in drift] == [
        ("deleted", "README.md"),
        ("untracked", "README.md/inner.txt"),
        ("modified", "src/app.py"),
    ]
    assert not walked
    # And back: the directory replaced by a file again.
    (project / "README.md" / "inner.txt").unlink()
    (project / "README.md").rmdir()
    (project / "README.md").write_text("# demo\n")
    drift, walked = same_as_walk(project, warm)
    assert [(kind, path) for kind, path, *_ in drift] == [("modified", "src/app.py")]


def test_renames_of_files_and_directories(warm: Warm, project: Path) -> None:
    settle(project, warm)
    (project / "src" / "app.py").rename(project / "src" / "main.py")
    drift, walked = same_as_walk(project, warm)
    assert [(kind, path) for kind, path, *_ in drift] == [
        ("deleted", "src/app.py"),
        ("untracked", "src/main.py"),
    ]
    assert run_script("resync", "-m", "outside", cwd=project).returncode == 0
    assert same_as_walk(project, warm)[0] == []
    # A directory moved: its watches follow it, and a change inside it after the move
    # is seen at its new place.
    (project / "src").rename(project / "lib")
    assert run_script("resync", "-m", "outside", cwd=project).returncode == 0
    assert same_as_walk(project, warm)[0] == []
    (project / "lib" / "main.py").write_text("print('moved and changed')\n")
    drift, walked = same_as_walk(project, warm)
    assert [(kind, path) for kind, path, *_ in drift] == [("modified", "lib/main.py")]
    assert not walked
    # Moved out of the tree and back in under another name.
    outside = project.parent / "away"
    (project / "lib").rename(outside)
    (outside / "main.py").write_text("print('changed outside')\n")
    outside.rename(project / "back")
    drift, walked = same_as_walk(project, warm)
    assert [(kind, path) for kind, path, *_ in drift] == [
        ("untracked", "back/main.py"),
        ("deleted", "lib/main.py"),
    ]


def test_an_ignore_file_changed_means_the_whole_walk(warm: Warm, project: Path) -> None:
    (project / "build").mkdir()
    (project / "build" / "out.o").write_text("binary\n")
    warm_status(project, warm)
    drift, _ = same_as_walk(project, warm)
    assert [(kind, path) for kind, path, *_ in drift] == [("untracked", "build/out.o")]
    (project / ".gitignore").write_text("build/\n")
    drift, walked = same_as_walk(project, warm)
    assert [(kind, path) for kind, path, *_ in drift] == [("untracked", ".gitignore")]
    assert walked
    # The repository's info/exclude lies in .git/, which is not watched: a file it
    # ignored (never reported, so never checked again) counts once the rule goes.
    exclude = project / ".git" / "info" / "exclude"
    exclude.parent.mkdir(parents=True)
    exclude.write_text("*.log\n")
    (project / "notes.log").write_text("ignored\n")
    assert run_script("resync", "-m", "the ignore file", cwd=project).returncode == 0
    assert same_as_walk(project, warm) == ([], True)
    assert same_as_walk(project, warm) == ([], False)
    exclude.write_text("")
    drift, walked = same_as_walk(project, warm)
    assert [(kind, path) for kind, path, *_ in drift] == [("untracked", "notes.log")]
    assert walked
    # And a rule taken out of a .gitignore: what it hid counts again.
    (project / ".gitignore").write_text("")
    drift, walked = same_as_walk(project, warm)
    assert [(kind, path) for kind, path, *_ in drift] == [
        ("modified", ".gitignore"),
        ("untracked", "build/out.o"),
        ("untracked", "notes.log"),
    ]
    assert walked


def test_the_server_runs_one_thread_with_monitors_active(warm: Warm, project: Path) -> None:
    settle(project, warm)
    (project / "README.md").write_text("# watched\n")
    same_as_walk(project, warm)
    status = warm.status()
    assert status["monitors"] == 1
    assert status["threads"] == 1
    # Counted by the kernel (C threads too), not by Python.
    assert len(os.listdir(f"/proc/{warm.pid}/task")) == 1


def test_a_tree_put_in_place_of_the_watched_one_is_never_judged_by_the_old_monitor(
    warm: Warm, tmp_path: Path
) -> None:
    # The watched tree's parent moved away and a copy put at the old path, the token
    # with it. The moved tree itself got no event (only its parent was renamed), so its
    # monitor is not lost; it watches the moved tree (inotify follows the inode), and
    # nothing it sees is about the copy. A check of the copy must not build on it.
    before = tmp_path / "parent"
    (before / "ws" / "src").mkdir(parents=True)
    project = before / "ws"
    (project / "src" / "app.py").write_text("print('hello')\n")
    Workspace.init(project).close()
    settle(project, warm)
    moved = tmp_path / "moved"
    os.rename(before, moved)
    shutil.copytree(moved, before, symlinks=True)
    # A new file: no tracked path's stat shows it, only a walk or a monitor of the copy.
    (project / "notes.txt").write_text("made in the copy\n")
    drift, walked = same_as_walk(project, warm)
    assert [(kind, path) for kind, path, *_ in drift] == [("untracked", "notes.txt")]
    assert walked
    # The copy is watched from now on, and the old monitor is gone, not kept beside it.
    assert warm.status()["monitors"] == 1
    (project / "src" / "more.py").write_text("x = 1\n")
    drift, walked = same_as_walk(project, warm)
    assert [path for _, path, *_ in drift] == ["notes.txt", "src/more.py"]
    assert not walked
