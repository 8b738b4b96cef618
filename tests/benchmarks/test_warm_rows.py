"""Rows W1-W7 time what they say: warm commands served by the run's own server, cold ones not."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from benchmarks.warm import WarmServer

SCRIPT = Path(sys.executable).with_name("snapline")


def _run(env: dict[str, str], *args: str) -> Any:
    return subprocess.run(
        [str(SCRIPT), *args], env=env, capture_output=True, text=True, timeout=120, check=True
    )


def test_the_run_s_server_serves_the_warm_commands_and_never_the_cold_ones() -> None:
    workdir = Path(tempfile.mkdtemp(prefix="slb-"))  # short: a socket path has 107 bytes
    bench: Any = SimpleNamespace(
        config=SimpleNamespace(workdir=workdir), cli_env=dict(os.environ), snapline_bin=SCRIPT
    )
    try:
        with WarmServer(bench) as server:
            assert server.env["SNAPLINE_RUNTIME_DIR"] == str(workdir / "rt")
            assert "SNAPLINE_SERVER" not in server.env  # the suite's own "0" is lifted
            assert _run(server.env, "--version").stdout.startswith("snapline ")
            assert server.served() == 1
            assert _run(server.cold_env, "--version").stdout.startswith("snapline ")
            assert server.served() == 1
        status = json.loads(_run(server.env, "server", "status", "--json").stdout)
        assert status["running"] is False
    finally:
        _run({**bench.cli_env, "SNAPLINE_RUNTIME_DIR": str(workdir / "rt")}, "server", "stop")
        shutil.rmtree(workdir, ignore_errors=True)
