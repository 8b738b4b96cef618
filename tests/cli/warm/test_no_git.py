"""Issue 37.7: the warm path of a workspace outside git needs no git binary either.

The workspace's history is on the refs of its private repository (``.snapline/repo``),
read with the git library; the server, started on a ``PATH`` without git, serves the
commands of a client on that ``PATH`` as the same commands run alone answer them.
"""

from __future__ import annotations

from pathlib import Path

from tests.cli.conftest import run_script
from tests.cli.warm.conftest import local, start_server
from tests.nogit import no_git_path

COMMANDS = [
    ["status"],
    ["record", "src/app.py", "-m", "warm"],
    ["log"],
    ["verify", "--full"],
    ["diff", "0", "1"],
    ["rollback", "--to", "0", "--yes"],
    ["undo"],
    ["status", "--json"],
]


def test_commands_are_served_warm_without_git(runtime: Path, project: Path, tmp_path: Path) -> None:
    assert (project / ".snapline" / "repo" / "HEAD").is_file()
    env = {"PATH": no_git_path(tmp_path)}
    server = start_server(runtime, env=env)
    try:
        for number, args in enumerate(COMMANDS, start=1):
            if args[0] == "record":
                (project / "src" / "app.py").write_text("print('warm')\n")
            served = run_script(*args, cwd=project, env=env)
            assert served.returncode == 0, (args, served.stderr)
            assert "Traceback" not in served.stderr
            assert server.served() == number, args
            if args[0] in ("status", "log", "diff", "verify"):
                alone = local(*args, cwd=project, env=env)
                assert (served.stdout, served.stderr) == (alone.stdout, alone.stderr), args
        assert (project / "src" / "app.py").read_text() == "print('warm')\n"
    finally:
        run_script("server", "stop", cwd=runtime)
