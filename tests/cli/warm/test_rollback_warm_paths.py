"""A warm rollback's shortcuts give the cold answer (issue 37, point 9, row R5).

A rollback served warm reads the paths changed since its target each once from the
index (not a row per change), looks up the paths the monitor named in one query,
leaves the stat cache rows of the files it rewrites out, and checks the parents of
its paths once per plan. Each test holds the warm answer to the whole walk's
(``SNAPLINE_SERVER=0``) where the shortcut could have lost something: a path only a
deletion or a rename names, a directory the monitor named, a write that no event
reported.
"""

from __future__ import annotations

import os
from pathlib import Path

from snapline import Workspace
from tests.cli.conftest import run_script
from tests.cli.warm.conftest import Warm, local
from tests.cli.warm.monitoring import token, warm_status


def _served(root: Path, server: Warm, *args: str) -> tuple[int, str]:
    before = server.served()
    done = run_script("rollback", *args, cwd=root)
    assert server.served() == before + 1
    return done.returncode, done.stdout + done.stderr


def test_a_warm_rollback_across_many_snapshots_brings_back_deleted_and_moved_files(
    warm: Warm, project: Path
) -> None:
    # More than 64 snapshots since the target: the paths come from the index of paths.
    (project / "gone.txt").write_text("deleted later\n")
    (project / "old.txt").write_text("moved later\n")
    with Workspace.open(project) as ws:
        ws.record(["gone.txt", "old.txt"])
        target = ws.latest
        for number in range(70):
            ws.write_file("src/app.py", f"print({number})\n")
        ws.delete_file("gone.txt")
        ws.move_file("old.txt", "new.txt")
        for number in range(5):
            ws.write_file("README.md", f"# demo {number}\n")
    warm_status(project, warm)  # starts the monitor
    assert warm_status(project, warm) == []

    code, said = _served(project, warm, "--to", str(target))
    assert code == 0, said
    assert token(project)["walked"] is False  # the monitor's view, not the walk
    assert (project / "gone.txt").read_text() == "deleted later\n"
    assert (project / "old.txt").read_text() == "moved later\n"
    assert not (project / "new.txt").exists()
    assert (project / "src" / "app.py").read_text() == "print('hello')\n"
    assert (project / "README.md").read_text() == "# demo\n"
    assert local("verify", cwd=project).returncode == 0


def test_a_directory_the_monitor_named_is_checked_whole_by_a_warm_rollback(
    warm: Warm, project: Path, tmp_path: Path
) -> None:
    app = project / "src" / "app.py"
    app.write_text("print('two')\n")
    assert local("record", "src/app.py", cwd=project).returncode == 0
    warm_status(project, warm)
    assert warm_status(project, warm) == []
    # Outside: the directory moved out and another moved in, without the tracked file.
    # The monitor names the directory alone: what is tracked under it is looked for.
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "other.py").write_text("print('outside')\n")
    os.rename(project / "src", tmp_path / "old-src")
    os.rename(tmp_path / "elsewhere", project / "src")

    code, said = _served(project, warm, "--to", "0")
    assert code == 1 and "src/app.py" in said, said
    assert not app.exists()  # refused: nothing written
    assert token(project)["walked"] is False
    assert local("rollback", "--to", "0", cwd=project).returncode == 1  # as the walk says


def test_a_write_through_an_outside_link_after_a_warm_rollback_is_refused_by_the_next(
    warm: Warm, project: Path, tmp_path: Path
) -> None:
    # README.md is not a path either rollback touches, and the write makes no event in
    # the tree: only its stat shows it (the sweep of every tracked file).
    app = project / "src" / "app.py"
    app.write_text("print('two')\n")
    assert local("record", "src/app.py", cwd=project).returncode == 0
    link = tmp_path / "outside-link"
    os.link(project / "README.md", link)
    warm_status(project, warm)
    assert warm_status(project, warm) == []
    code, said = _served(project, warm, "--to", "0")
    assert code == 0, said
    assert app.read_text() == "print('hello')\n"

    link.write_text("# changed through a link\n")
    link.unlink()  # one link again: only the file's ctime tells
    code, said = _served(project, warm, "--to", "1")
    assert code == 1 and "README.md" in said, said
    assert app.read_text() == "print('hello')\n"  # refused: nothing written
    assert local("rollback", "--to", "1", cwd=project).returncode == 1  # as the walk says
