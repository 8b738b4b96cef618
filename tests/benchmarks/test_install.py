"""Timed CLI processes run snapline as installed: no editable import hook, the checkout's code."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from benchmarks.install import cli_environment

REPO_ROOT = Path(__file__).resolve().parents[2]


def test_the_launcher_runs_the_checkout_without_the_editable_hook(tmp_path: Path) -> None:
    environment = cli_environment(tmp_path, REPO_ROOT, sys.executable)
    probe = (
        "import sys, snapline, typer; "
        "print(snapline.__file__); "
        "print(any('__editable__' in name for name in sys.modules))"
    )

    version = subprocess.run(
        [str(environment.snapline), "--version"], capture_output=True, text=True, check=True
    )
    found = subprocess.run(
        [str(environment.python), "-c", probe], capture_output=True, text=True, check=True
    )

    assert environment.python.parent.parent == tmp_path / "cli-venv"
    assert version.stdout.startswith("snapline ")
    location, hooked = found.stdout.splitlines()
    assert Path(location) == REPO_ROOT / "snapline" / "__init__.py"
    assert hooked == "False"
    assert environment.snapline.read_text(encoding="utf-8").startswith(f"#!{environment.python}\n")
