"""``snapline --help`` is written from the table, and is typer's page byte for byte (issue 39).

The oracle is the typer application itself: its root group run with ``--help`` at the same
width, in a process of its own (click's test runner forces 80 columns). The page is compared at
every terminal width click lays out differently (50 to 80 columns, and the narrower and
wider ones it clamps), through the console script, and in a pseudo-terminal whose size
is the only width there is.
"""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

from snapline.cli.root_help import page
from tests.cli.conftest import run_script

WIDTHS = ["1", "40", *map(str, range(49, 83)), "120", "400", "wide"]

_TYPERS = """
import contextlib, io, json, os, sys
from typer.main import get_command
from snapline.cli.app import app
pages = {}
for width in json.loads(sys.argv[1]):
    os.environ["COLUMNS"] = width
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        try:
            get_command(app).main(["--help"], prog_name="snapline", standalone_mode=False)
        except SystemExit:
            pass
    pages[width] = printed.getvalue()
print(json.dumps(pages))
"""


@pytest.fixture(scope="module")
def typers() -> dict[str, str]:
    """Typer's root page at each width, as ``snapline --help`` printed it before the table."""
    done = subprocess.run(
        [sys.executable, "-c", _TYPERS, json.dumps([*WIDTHS, "56", "61", "200"])],
        capture_output=True,
        text=True,
        check=True,
    )
    pages: dict[str, str] = json.loads(done.stdout)
    return pages


@pytest.mark.parametrize("width", WIDTHS)
def test_the_page_is_typers_at_every_width(
    width: str, typers: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", width)
    assert page() == typers[width]


@pytest.mark.parametrize(
    ("words", "width"), [(["--help"], "80"), (["-h"], "56"), (["--help"], "200")]
)
def test_the_console_script_prints_it_without_typer(
    words: list[str], width: str, typers: dict[str, str], tmp_path: Path
) -> None:
    done = run_script(*words, cwd=tmp_path, env={**os.environ, "COLUMNS": width})
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert done.stdout == typers[width]
    probe = (
        "import json, sys; sys.argv = ['snapline', *json.loads(sys.argv[1])]\n"
        "from snapline.cli import main\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "loaded = [m for m in ('typer', 'click', 'snapline.cli.app') if m in sys.modules]\n"
        "print(json.dumps(loaded))"
    )
    imported = subprocess.run(
        [sys.executable, "-c", probe, json.dumps(words)],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "COLUMNS": width},
    ).stdout.splitlines()[-1]
    assert json.loads(imported) == []


def test_a_terminal_gives_its_own_width(typers: dict[str, str], tmp_path: Path) -> None:
    # No COLUMNS: the width is the pseudo-terminal's, set as a terminal sets it.
    env = {key: value for key, value in os.environ.items() if key != "COLUMNS"}
    script = (
        "import fcntl, struct, sys, termios\n"
        "fcntl.ioctl(1, termios.TIOCSWINSZ, struct.pack('HHHH', 24, 61, 0, 0))\n"
        "sys.argv = ['snapline', '--help']\n"
        "from snapline.cli import main\n"
        "main()\n"
    )
    leader, follower = pty.openpty()
    with subprocess.Popen(
        [sys.executable, "-c", script], stdout=follower, stderr=follower, env=env, cwd=tmp_path
    ) as process:
        os.close(follower)
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the other end closed: EIO
                break
            if not chunk:
                break
            chunks.append(chunk)
        assert process.wait() == 0
    os.close(leader)
    printed = b"".join(chunks).decode().replace("\r\n", "\n")
    assert printed == typers["61"]
