"""The lean ``snapline record``: what the typer command does, for the arguments it reads."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from snapline import Workspace
from snapline.cli.fast import fast_record
from snapline.cli.lean import read
from tests.cli.conftest import Invoke


@pytest.mark.parametrize(
    ("args", "parsed"),
    [
        ([], ([], {}, set())),
        (["a", "b/c"], (["a", "b/c"], {}, set())),
        (
            ["a", "-m", "fix it", "--tool", "edit", "--session", "s1", "--json"],
            (["a"], {"message": "fix it", "tool": "edit", "session": "s1"}, {"as_json"}),
        ),
        (["--message", "", "a"], (["a"], {"message": ""}, set())),
        (["--json", "--json"], ([], {}, {"as_json"})),  # as click: a flag twice is a flag
    ],
)
def test_the_plain_forms_are_read(args: list[str], parsed: object) -> None:
    found = read("record", args)
    assert found is not None
    assert (found.arguments, found.values, found.flags) == parsed


@pytest.mark.parametrize(
    "args",
    [
        ["--help"],
        ["-h"],
        ["a", "--message=fix"],
        ["-mfix"],
        ["-m"],
        ["-m", "-x"],  # a value like an option: the parser decides
        ["-m", "a", "-m", "b"],
        ["--", "-file"],
        ["-"],
        [""],
        ["--root", "x", "a"],
    ],
)
def test_anything_else_goes_to_the_typer_command(args: list[str]) -> None:
    assert read("record", args) is None
    assert fast_record(args) is None


def _twin(base: Path, name: str) -> Path:
    root = base / name
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text("print('hello')\n")
    (root / "README.md").write_text("# demo\n")
    Workspace.init(root).close()
    return root


def _same_json(text: str) -> Any:
    value = json.loads(text)
    if isinstance(value, dict):
        for key in ("id", "parent_id", "time", "chain_hash"):
            value.pop(key, None)
    return value


@pytest.mark.parametrize(
    ("args", "edit"),
    [
        (["src/app.py"], "src/app.py"),
        (["src", "-m", "fix", "--tool", "edit", "--session", "s1"], "src/new.py"),
        (["--json", "src/app.py"], "src/app.py"),
        ([], "README.md"),
        (["README.md"], None),  # nothing changed
        (["no/such/file"], None),  # an error: exit 2
        (["--json", "no/such/file"], None),  # the error as JSON too
    ],
)
def test_it_prints_and_exits_as_the_typer_command(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    cli: Invoke,
    args: list[str],
    edit: str | None,
) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    results = []
    recorded: list[tuple[int, str, str, str | None]] = []

    def fast() -> tuple[int, str, str]:
        capsys.readouterr()
        code = fast_record(args)
        out, err = capsys.readouterr()
        return code or 0, out, err

    def typer() -> tuple[int, str, str]:
        result = cli("record", *args)
        return result.exit_code, result.stdout, result.stderr

    runs: list[Callable[[], tuple[int, str, str]]] = [fast, typer]
    for name, run in zip(("fast", "typer"), runs, strict=True):
        root = _twin(tmp_path, name)
        if edit is not None:
            (root / edit).write_text("changed\n")
        monkeypatch.chdir(root)
        code, out, err = run()
        results.append((code, out.replace(str(root), "ROOT"), err.replace(str(root), "ROOT")))
        with Workspace.open(root) as ws:
            latest = ws.snapshot(ws.latest)
            recorded.append((latest.number, latest.tool, latest.description, latest.session))
    (fast_code, fast_out, fast_err), (typer_code, typer_out, typer_err) = results
    assert fast_code == typer_code
    assert recorded[0] == recorded[1]
    assert fast_err == typer_err
    if "--json" in args:
        assert _same_json(fast_out) == _same_json(typer_out)
    else:
        assert fast_out == typer_out
    assert fast_out or fast_err


def test_outside_a_workspace_it_fails_as_the_typer_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], cli: Invoke
) -> None:
    monkeypatch.chdir(tmp_path)
    assert not (tmp_path / ".snapline").exists() and os.getcwd() == str(tmp_path)
    capsys.readouterr()
    assert fast_record(["--json", "a"]) == 2
    fast = capsys.readouterr()
    typer = cli("record", "--json", "a")
    assert typer.exit_code == 2
    assert fast.out == typer.stdout and fast.err == typer.stderr
    assert json.loads(fast.out)["error"]
