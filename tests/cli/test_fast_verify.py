"""The lean ``snapline verify``: what the typer command does, for the arguments it reads."""

from __future__ import annotations

import json
import re
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from snapline import Workspace
from snapline.cli.checking import fast_verify
from snapline.cli.lean import read
from tests.cli.conftest import Invoke, damage_line_ref


@pytest.mark.parametrize(
    ("args", "parsed"),
    [
        ([], (set(), {})),
        (["--full", "--json"], ({"full", "as_json"}, {})),
        (["--format", "github", "--deep"], ({"deep"}, {"output_format": "github"})),
        (["--json", "--json"], ({"as_json"}, {})),  # as click: a flag twice is a flag
    ],
)
def test_the_plain_forms_are_read(args: list[str], parsed: object) -> None:
    found = read("verify", args)
    assert found is not None and not found.arguments
    assert (found.flags, found.values) == parsed


@pytest.mark.parametrize(
    "args",
    [
        ["--help"],
        ["--report", "page.html"],
        ["--format", "GitHub"],  # typer takes any case, and says what it takes
        ["--format"],
        ["--format=github"],
        ["--format", "text", "--format", "text"],
        ["--root", "x"],
        ["extra"],
    ],
)
def test_anything_else_goes_to_the_typer_command(args: list[str]) -> None:
    assert read("verify", args) is None
    assert fast_verify(args) is None


def _workspace(base: Path, name: str, damage: str) -> Path:
    root = base / name
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text("print('hello')\n")
    with Workspace.init(root) as ws:
        ws.write_file("src/app.py", b"print('hi')\n")
    if damage == "drift":
        (root / "src" / "app.py").write_text("changed behind its back\n")
    elif damage == "forged":  # a problem of the history: its chain no longer holds
        with sqlite3.connect(root / ".snapline" / "index.db") as db:
            db.execute("UPDATE snapshots SET tool = 'forged' WHERE number = 1")
        db.close()
    elif damage == "ref":  # the store itself unreadable
        damage_line_ref(root)
    elif damage == "checked":
        with Workspace.open(root) as ws:
            assert ws.verify().ok  # the next verify starts from a checkpoint
    return root


@pytest.mark.parametrize("damage", ["none", "checked", "drift", "forged", "ref"])
@pytest.mark.parametrize(
    "args", [[], ["--json"], ["--format", "github"], ["--full"], ["--deep", "--json"]]
)
def test_it_prints_and_exits_as_the_typer_command(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    cli: Invoke,
    args: list[str],
    damage: str,
) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    # Twin workspaces: each verify keeps its own checkpoint.
    monkeypatch.chdir(_workspace(tmp_path, "fast", damage))
    capsys.readouterr()
    fast_code = fast_verify(args)
    fast = capsys.readouterr()
    monkeypatch.chdir(_workspace(tmp_path, "typer", damage))
    typer = cli("verify", *args)

    assert fast_code == typer.exit_code
    assert _same(fast.out.replace("/fast/", "/typer/")) == _same(typer.stdout)
    assert _same(fast.err.replace("/fast/", "/typer/")) == _same(typer.stderr)
    assert fast.out or fast.err
    if "--json" in args:
        assert json.loads(fast.out)["ok"] is (damage in ("none", "checked"))


def _same(text: str) -> str:
    # The twins differ in their snapshot ids and times, and so in their hashes.
    return re.sub(r"sha256:[0-9a-f]{64}|[0-9a-f]{32}", "X", text)


def test_outside_a_workspace_it_fails_as_the_typer_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], cli: Invoke
) -> None:
    monkeypatch.chdir(tmp_path)
    for args in (["--json"], ["--format", "github"], []):
        capsys.readouterr()
        code = fast_verify(args)
        fast = capsys.readouterr()
        typer = cli("verify", *args)
        assert code == typer.exit_code == 2
        assert fast.out == typer.stdout and fast.err == typer.stderr


def test_a_plain_verify_imports_neither_typer_nor_rich(tmp_path: Path) -> None:
    root = _workspace(tmp_path, "ws", "none")
    code = (
        "import sys\n"
        "sys.argv = ['snapline', 'verify']\n"
        "from snapline.cli import main\n"
        "try:\n"
        "    main()\n"
        "except SystemExit as end:\n"
        "    assert end.code in (0, None), end.code\n"
        "loaded = [m for m in ('typer', 'click', 'rich') if m in sys.modules]\n"
        "print('loaded:', loaded)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
    assert "loaded: []" in result.stdout
    assert result.stdout.startswith("ok: snapshots 0..1 verified")
