"""A rollback served warm checks the disk as a warm ``status`` does (issue 37, point 9).

Only what the server's monitor saw change, the last check's drift and the snapshots
since are read; every other tracked file is stat'ed against its stat-cache entry
(``snapshots/record/monitored.py``). Whether it did is read from the token it left
(``monitor.json``), never from timing; the answers are held to the whole walk's.
"""

from __future__ import annotations

from pathlib import Path

from tests.cli.conftest import run_script
from tests.cli.warm.conftest import Warm, local
from tests.cli.warm.monitoring import same_as_walk, token, warm_status


def _served_rollback(root: Path, server: Warm, *args: str) -> tuple[int, str]:
    before = server.served()
    done = run_script("rollback", *args, cwd=root)
    assert server.served() == before + 1
    return done.returncode, done.stdout + done.stderr


def test_a_rollback_served_warm_checks_what_the_monitor_saw(warm: Warm, project: Path) -> None:
    warm_status(project, warm)  # starts the server's monitor, walks
    assert warm_status(project, warm) == []
    assert token(project)["walked"] is False
    app = project / "src" / "app.py"
    app.write_text("print('two')\n")
    assert local("record", "src/app.py", cwd=project).returncode == 0
    (project / "README.md").write_text("# changed outside\n")

    code, said = _served_rollback(project, warm, "--to", "0")
    assert code == 1 and "README.md" in said, said
    assert app.read_text() == "print('two')\n"  # refused: nothing written
    # The monitor's view named the outside change; the token says the check saw it.
    assert token(project)["dirty"] == ["README.md"]
    assert token(project)["walked"] is False
    assert local("rollback", "--to", "0", cwd=project).returncode == 1  # as the walk says

    (project / "README.md").write_text("# demo\n")
    code, said = _served_rollback(project, warm, "--to", "0")
    assert code == 0, said
    assert app.read_text() == "print('hello')\n"
    assert token(project)["dirty"] == [] and token(project)["walked"] is False
    assert same_as_walk(project, warm) == ([], False)
    assert local("verify", cwd=project).returncode == 0
