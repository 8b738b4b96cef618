"""The stand-ins of the import budget load what the command loaded, and nothing of it runs."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from benchmarks.budget import stand_ins
from snapline import Workspace

_MODULES = "import sys; print('\\n'.join(sorted(sys.modules)))"


def _loaded(script: Path, cwd: Path, env: dict[str, str]) -> set[str]:
    code = f"exec(open({str(script)!r}).read()); {_MODULES}"
    run = subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True)
    assert run.returncode == 0, run.stderr
    return set(run.stdout.decode().split())


def test_the_stand_ins_import_the_command_s_modules_and_record_nothing(
    ws: Workspace, tmp_path: Path
) -> None:
    root = Path(ws.root)
    (root / "notes.txt").write_text("one\n")
    env = {**os.environ, "SNAPLINE_SERVER": "0"}
    scripts = stand_ins(sys.executable, ["record", "notes.txt"], root, env, tmp_path)
    assert ws.latest == 1  # the command itself ran once

    listed = set((tmp_path / "budget-modules.txt").read_text().split())
    everything = _loaded(scripts["all"], root, env)
    standard = _loaded(scripts["standard"], root, env)
    assert "snapline.snapshots.record.recorder" in listed
    assert listed - {"__main__"} <= everything
    assert {m for m in standard if m.startswith("snapline")} == set()
    stdlib = {m for m in listed if m.split(".")[0] in sys.stdlib_module_names}
    assert stdlib - {"__main__"} <= standard
    (root / "notes.txt").write_text("two\n")
    for script in scripts.values():  # importing them records nothing
        _loaded(script, root, env)
    assert ws.latest == 1
