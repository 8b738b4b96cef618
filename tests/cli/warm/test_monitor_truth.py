"""A warm check never says "in sync" unless the whole walk would (issue 40, points 1 and 2).

Every test drives the real console script against a real server and real inotify, and
holds each warm answer to the same command without a server (``SNAPLINE_SERVER=0``).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.cli.conftest import run_script
from tests.cli.warm.conftest import Warm, local
from tests.cli.warm.monitoring import (
    SlowRequest,
    git,
    same_as_walk,
    stopped,
    token,
    wait_stopped,
    warm_status,
)


def _paths(drift: list[tuple[str, str | None, str | None, str | None]]) -> list[tuple[str, str]]:
    return [(kind, str(path)) for kind, path, *_ in drift]


def _verify_exit(root: Path, server: Warm) -> tuple[int, int]:
    """``verify``'s exit code served warm, then without a server."""
    before = server.served()
    served = run_script("verify", cwd=root)
    assert server.served() == before + 1
    return served.returncode, local("verify", cwd=root).returncode


def test_a_file_edited_again_after_a_clean_check_is_drift(warm: Warm, project: Path) -> None:
    warm_status(project, warm)  # the monitor starts: this check walks
    app = project / "src" / "app.py"
    app.write_text("print('one')\n")
    assert run_script("record", "src/app.py", "-m", "one", cwd=project).returncode == 0
    assert same_as_walk(project, warm) == ([], False)
    # The same path as the journal's last entry, after a check took its point: a new
    # change all the same.
    app.write_text("print('two')\n")
    assert _verify_exit(project, warm) == (1, 1)
    drift, walked = same_as_walk(project, warm)
    assert _paths(drift) == [("modified", "src/app.py")]
    assert not walked
    # And every later edit of it.
    assert run_script("resync", "-m", "two", cwd=project).returncode == 0
    assert same_as_walk(project, warm)[0] == []
    app.write_text("print('three')\n")
    assert _paths(same_as_walk(project, warm)[0]) == [("modified", "src/app.py")]


def test_a_file_rewritten_by_git_checkout_is_drift(warm: Warm, tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "app.py").write_text("print('first')\n")
    git(root, "init", "-q")
    git(root, "add", "app.py")
    git(root, "commit", "-q", "-m", "first")
    assert run_script("init", cwd=root).returncode == 0
    warm_status(root, warm)
    (root / "app.py").write_text("print('second')\n")
    assert run_script("record", "app.py", "-m", "second", cwd=root).returncode == 0
    assert same_as_walk(root, warm)[0] == []
    git(root, "checkout", "--", "app.py")  # git rewrites it: the committed version
    assert _verify_exit(root, warm) == (1, 1)
    drift, walked = same_as_walk(root, warm)
    assert _paths(drift) == [("modified", "app.py")]
    assert not walked
    assert token(root)["dirty"] == ["app.py"]


def test_a_change_still_queued_when_the_worker_forks_is_seen(warm: Warm, project: Path) -> None:
    warm_status(project, warm)
    assert warm_status(project, warm) == []
    request = SlowRequest(warm, project, "status", "--json")
    with stopped(warm.pid):
        wait_stopped(warm.pid)
        # The descriptors arrive before the edit's events queue: woken, the server
        # finds them first and forks for the request, the events still unread.
        request.finish()
        (project / "README.md").write_text("# edited just before the command\n")
    code, out = request.outcome()
    assert code == 0
    assert [(p["kind"], p["path"]) for p in json.loads(out)["drift"]] == [("modified", "README.md")]
    assert token(project)["walked"] is False


def test_a_file_made_while_the_worker_forks_is_seen(warm: Warm, project: Path) -> None:
    # As above, for a new file: no tracked file's stat can tell of it, only the
    # monitor's events, drained before the fork (a worker never reads the queue).
    warm_status(project, warm)
    assert warm_status(project, warm) == []
    request = SlowRequest(warm, project, "status", "--json")
    with stopped(warm.pid):
        wait_stopped(warm.pid)
        request.finish()
        (project / "src" / "new.py").write_text("print('made just before the command')\n")
    code, out = request.outcome()
    assert code == 0
    drift = [(p["kind"], p["path"]) for p in json.loads(out)["drift"]]
    assert drift == [("untracked", "src/new.py")]
    assert token(project)["walked"] is False


def _linked_project(tmp_path: Path, *, ignored: str = "") -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "a.txt").write_text("shared\n")
    (root / "c.txt").write_text("alone\n")
    if ignored:
        (root / ".gitignore").write_text(f"{ignored}/\n")
    assert run_script("init", cwd=root).returncode == 0
    return root


def _settle(root: Path, server: Warm) -> None:
    warm_status(root, server)
    assert same_as_walk(root, server)[0] == []
    assert token(root)["walked"] is False


def test_two_tracked_names_of_one_file_written_through_either(warm: Warm, tmp_path: Path) -> None:
    root = _linked_project(tmp_path)
    os.link(root / "a.txt", root / "b.txt")
    assert run_script("record", "b.txt", "-m", "a second name", cwd=root).returncode == 0
    _settle(root, warm)
    with (root / "b.txt").open("a") as handle:  # the kernel names b.txt only
        handle.write("through b\n")
    assert _verify_exit(root, warm) == (1, 1)
    drift, _ = same_as_walk(root, warm)
    assert _paths(drift) == [("modified", "a.txt"), ("modified", "b.txt")]


def test_a_tracked_file_linked_from_an_ignored_folder(warm: Warm, tmp_path: Path) -> None:
    root = _linked_project(tmp_path, ignored="build")
    (root / "build").mkdir()
    _settle(root, warm)
    # The link made while watched, then a write through it, then another.
    os.link(root / "a.txt", root / "build" / "copy.txt")
    assert same_as_walk(root, warm)[0] == []
    for text in ("one\n", "two\n"):
        with (root / "build" / "copy.txt").open("a") as handle:
            handle.write(text)
        assert _verify_exit(root, warm) == (1, 1)
        assert _paths(same_as_walk(root, warm)[0]) == [("modified", "a.txt")]
        assert run_script("resync", "-m", text, cwd=root).returncode == 0
        assert same_as_walk(root, warm)[0] == []


def test_a_tracked_file_linked_from_outside_the_tree(warm: Warm, tmp_path: Path) -> None:
    root = _linked_project(tmp_path)
    outside = tmp_path / "elsewhere.txt"
    os.link(root / "a.txt", outside)
    _settle(root, warm)
    for text in ("one\n", "two\n"):
        with outside.open("a") as handle:  # no event in the tree at all
            handle.write(text)
        assert _verify_exit(root, warm) == (1, 1)
        drift, walked = same_as_walk(root, warm)
        assert _paths(drift) == [("modified", "a.txt")]
        assert not walked  # checked by content, every time, without walking
        assert run_script("resync", "-m", text, cwd=root).returncode == 0
    assert token(root)["linked"] == ["a.txt"]


def _written_through_a_later_link(tmp_path: Path, warm: Warm) -> Path:
    """A settled linked project, then ``a.txt`` written through a link made outside it."""
    root = _linked_project(tmp_path)
    _settle(root, warm)
    outside = tmp_path / "elsewhere.txt"
    os.link(root / "a.txt", outside)
    outside.write_text("written from outside\n")
    return root


def test_a_link_made_from_outside_after_a_check_and_written_through(
    warm: Warm, tmp_path: Path
) -> None:
    # The kernel reports neither the link nor the write to any watch in the tree; the
    # file's own stat (ctime, mtime, link count) shows both to the warm check.
    root = _written_through_a_later_link(tmp_path, warm)
    assert _verify_exit(root, warm) == (1, 1)  # warm first: nothing cold ran before it
    drift, walked = same_as_walk(root, warm)
    assert _paths(drift) == [("modified", "a.txt")]
    assert not walked
    assert token(root)["linked"] == ["a.txt"]
    assert run_script("resync", "-m", "outside", cwd=root).returncode == 0
    assert same_as_walk(root, warm)[0] == []


def test_a_link_from_outside_gone_again_before_the_check(warm: Warm, tmp_path: Path) -> None:
    # Linked, written through and unlinked again: one link, as at the last check, and
    # still no event in the tree; only the stat's times moved.
    root = _written_through_a_later_link(tmp_path, warm)
    (tmp_path / "elsewhere.txt").unlink()
    assert os.stat(root / "a.txt").st_nlink == 1
    assert _verify_exit(root, warm) == (1, 1)
    drift, walked = same_as_walk(root, warm)
    assert _paths(drift) == [("modified", "a.txt")]
    assert not walked


def test_an_ignore_file_written_through_a_link_from_outside(warm: Warm, tmp_path: Path) -> None:
    # Which untracked files count changed everywhere: the whole walk, as for any ignore
    # file the monitor names. x.log, ignored until then, is nowhere in the token.
    root = tmp_path / "ws"
    root.mkdir()
    (root / ".gitignore").write_text("*.log\n")
    (root / "a.txt").write_text("tracked\n")
    (root / "x.log").write_text("ignored until now\n")
    assert run_script("init", cwd=root).returncode == 0
    _settle(root, warm)
    outside = tmp_path / "rules"
    os.link(root / ".gitignore", outside)
    outside.write_text("build/\n")
    drift, walked = same_as_walk(root, warm)  # warm first: nothing cold ran before it
    assert _paths(drift) == [("modified", ".gitignore"), ("untracked", "x.log")]
    assert walked


def test_verify_full_never_trusts_the_monitor(warm: Warm, tmp_path: Path) -> None:
    # The kernel tells the tree nothing of the link or of the write through it; the
    # whole walk sees the write.
    root = _written_through_a_later_link(tmp_path, warm)
    before = warm.served()
    full = run_script("verify", "--full", cwd=root)
    assert warm.served() == before + 1
    alone = local("verify", "--full", cwd=root)
    assert (full.returncode, full.stdout) == (alone.returncode, alone.stdout)
    assert full.returncode == 1
    # And the run that found it leaves no token that says otherwise.
    assert _verify_exit(root, warm) == (1, 1)
    assert token(root)["linked"] == ["a.txt"]


def test_a_cold_run_that_found_drift_leaves_no_clean_token(warm: Warm, tmp_path: Path) -> None:
    root = _written_through_a_later_link(tmp_path, warm)
    assert local("verify", cwd=root).returncode == 1
    assert _verify_exit(root, warm) == (1, 1)


def test_a_change_of_mode_alone_is_drift_warm_and_cold(warm: Warm, project: Path) -> None:
    _settle(project, warm)
    app = project / "src" / "app.py"
    app.chmod(0o755)  # the content as recorded: only the mode says it changed
    assert _verify_exit(project, warm) == (1, 1)
    drift, walked = same_as_walk(project, warm)
    assert _paths(drift) == [("modified", "src/app.py")]
    assert not walked
    assert run_script("resync", "-m", "executable", cwd=project).returncode == 0
    assert _verify_exit(project, warm) == (0, 0)
    app.chmod(0o644)
    assert _verify_exit(project, warm) == (1, 1)
