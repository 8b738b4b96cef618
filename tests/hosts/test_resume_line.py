"""The resume line: any rollback that takes back a Claude Code conversation's work names it.

The snapshots are recorded by the real hook from Claude Code's documented events; the
rollbacks are run through the real command line, by number, by ``latest~N``, by milestone.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.hosts.conftest import hook_write, snapline

FIRST = "5f1c2a7e-0b1d-4c55-9d3e-1a2b3c4d5e6f"
SECOND = "9a8b7c6d-0000-4c55-9d3e-aaaaaaaaaaaa"


def _write(root: Path, path: str, text: str, session: str) -> None:
    hook_write(root, path, text, session, kind="update")


def _resumed(done: subprocess.CompletedProcess[str]) -> list[str]:
    assert done.returncode == 0, done.stderr
    prefix = "resume that conversation: claude --resume "
    return [line.removeprefix(prefix) for line in done.stdout.splitlines() if "resume" in line]


def test_a_rollback_by_number_over_a_session_s_work_names_it(project: Path) -> None:
    _write(project, "README.md", "# one\n", FIRST)  # 1
    _write(project, "src/app.py", "print('two')\n", FIRST)  # 2

    assert _resumed(snapline(project, "rollback", "--to", "0", "--yes")) == [FIRST]


def test_every_session_taken_back_is_named_and_only_those(project: Path) -> None:
    _write(project, "README.md", "# one\n", FIRST)  # 1
    _write(project, "src/app.py", "print('two')\n", SECOND)  # 2
    (project / "notes.txt").write_text("a person's note\n")
    assert snapline(project, "record", "notes.txt", "-m", "by hand").returncode == 0  # 3

    # Back over the person's snapshot and the second session's: only that session.
    assert _resumed(snapline(project, "rollback", "--to", "latest~2")) == [SECOND]
    # Back over both sessions' snapshots, but the second's file is already as it was:
    # only the first loses work now.
    assert _resumed(snapline(project, "rollback", "--to", "0")) == [FIRST]


def test_two_sessions_taken_back_at_once_are_both_named(project: Path) -> None:
    _write(project, "README.md", "# one\n", SECOND)
    _write(project, "src/app.py", "print('two')\n", FIRST)
    _write(project, "README.md", "# three\n", SECOND)

    assert _resumed(snapline(project, "rollback", "--to", "0")) == [SECOND, FIRST]


def test_a_path_rollback_names_only_the_sessions_whose_files_it_took_back(project: Path) -> None:
    _write(project, "README.md", "# one\n", FIRST)
    _write(project, "src/app.py", "print('two')\n", SECOND)

    assert _resumed(snapline(project, "rollback", "--to", "0", "README.md")) == [FIRST]


def test_a_milestone_rollback_and_an_undo_name_it_too(project: Path) -> None:
    _write(project, "README.md", "# one\n", FIRST)
    assert snapline(project, "milestone", "create", "-m", "first").returncode == 0
    assert _resumed(snapline(project, "milestone", "rollback", "1")) == [FIRST]
    _write(project, "src/app.py", "print('two')\n", SECOND)
    assert _resumed(snapline(project, "undo")) == [SECOND]


def test_no_line_without_a_conversation_a_dry_run_or_json(project: Path) -> None:
    (project / "notes.txt").write_text("a person's note\n")
    assert snapline(project, "record", "notes.txt", "-m", "by hand").returncode == 0
    assert _resumed(snapline(project, "rollback", "--to", "0")) == []
    _write(project, "README.md", "# one\n", FIRST)
    assert _resumed(snapline(project, "rollback", "--to", "0", "--dry-run")) == []
    done = snapline(project, "rollback", "--to", "0", "--json")
    assert done.returncode == 0 and "resume" not in done.stdout
