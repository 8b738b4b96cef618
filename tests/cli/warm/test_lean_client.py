"""A command handed to the warm server loads only the client: the standard library's least."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.cli.test_hot_paths import _run
from tests.cli.warm.conftest import Warm

# The client's whole import graph beyond the interpreter's start: no snapline module
# below the command line (the lean parser and the table it reads import nothing), nothing
# of typer, pydantic, sqlite3 or the diff engine.
CLIENT = {
    "snapline",
    "snapline.lazy",
    "snapline.cli",
    "snapline.cli.lean",
    "snapline.cli.commands",
    "snapline.cli.warm",
    "snapline.cli.warm.client",
    "snapline.cli.warm.protocol",
    "_socket",
    "signal",
    "zlib",
}


def test_a_record_served_warm_imports_only_the_client(warm: Warm, project: Path) -> None:
    idle = set(_run(project, ["--version"], env={"SNAPLINE_SERVER": "0"})["modules"])
    (project / "src" / "app.py").write_text("print('bye')\n")
    served = _run(project, ["record", "src/app.py", "-m", "edit"])
    assert served["code"] == 0, served["stderr"]
    assert served["stdout"] == "recorded snapshot 1: 1 file\n  M src/app.py\n"
    assert warm.served() == 1
    assert set(served["modules"]) <= CLIENT | _interpreter(), sorted(
        set(served["modules"]) - CLIENT - _interpreter()
    )
    assert "snapline.cli.dispatch" not in served["modules"]
    assert "snapline.cli.dispatch" in idle  # sanity: the same driver, run locally


def _interpreter() -> set[str]:
    # What `python -c` loads before any snapline (the driver's own json included).
    done = subprocess.run(
        [sys.executable, "-c", "import json, sys; print(json.dumps(sorted(sys.modules)))"],
        capture_output=True,
        text=True,
        check=True,
    )
    return set(json.loads(done.stdout))
