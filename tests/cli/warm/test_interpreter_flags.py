"""``python FLAGS -m snapline server start``: the server it starts is the one its flags reach.

The interpreter's flags are part of the identity that names the socket (docs/cli.md: one
server per Python executable and flags), so ``server start`` must start a server with
the flags of the process that asked: ``server status`` with the same flags then finds
that server, and a plain ``snapline`` (other flags, another identity) does not.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.cli.conftest import run_script
from tests.cli.warm.conftest import GUARD, wait_gone

_CASES = {
    "O": (["-O"], {}),
    "OO": (["-OO"], {}),
    # (Empty is unset to Python: the machines this is built on set it; see tests/conftest.py.)
    "B": (["-B"], {"PYTHONDONTWRITEBYTECODE": ""}),
    "s": (["-s"], {}),
    "E": (["-E"], {}),
    "P": (["-P"], {}),
    "I": (["-I"], {}),
    "b": (["-b"], {}),
    "X-utf8": (["-X", "utf8"], {}),
    "X-utf8-0-over-PYTHONUTF8": (["-X", "utf8=0"], {"PYTHONUTF8": "1"}),
    "X-dev": (["-X", "dev"], {}),
    "W": (["-W", "error::DeprecationWarning"], {}),
    # PYTHONWARNINGS comes first in sys.warnoptions, then each -W: the server gets the
    # same list, no entry twice, none in another order.
    "W-and-PYTHONWARNINGS": (
        ["-W", "error::DeprecationWarning"],
        {"PYTHONWARNINGS": "ignore::UserWarning"},
    ),
    "W-also-in-PYTHONWARNINGS": (
        ["-W", "ignore::UserWarning", "-W", "error::DeprecationWarning"],
        {"PYTHONWARNINGS": "error::DeprecationWarning,default::ImportWarning"},
    ),
    "PYTHONWARNINGS-ignored-by-E": (["-E", "-W", "default"], {"PYTHONWARNINGS": "error"}),
    "OO-over-PYTHONOPTIMIZE": (["-OO"], {"PYTHONOPTIMIZE": "1"}),
    "several": (["-OO", "-B", "-s", "-X", "utf8", "-W", "ignore::UserWarning", "-W", "error"], {}),
    "X-dev-W-error": (["-X", "dev", "-W", "error"], {}),
}


def _python(
    runtime: Path, flags: list[str], env: dict[str, str], *args: str
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *flags, "-m", "snapline", "server", *args],
        cwd=runtime,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=GUARD,
        check=False,
    )


def _json(done: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    assert done.returncode == 0, done.stderr
    data: dict[str, Any] = json.loads(done.stdout)
    return data


@pytest.mark.parametrize(("flags", "env"), list(_CASES.values()), ids=list(_CASES))
def test_a_server_started_with_flags_answers_those_flags_alone(
    runtime: Path, monkeypatch: pytest.MonkeyPatch, flags: list[str], env: dict[str, str]
) -> None:
    for name in ("WARNINGS", "OPTIMIZE", "UTF8", "DEVMODE", "SAFEPATH", "NOUSERSITE"):
        monkeypatch.delenv(f"PYTHON{name}", raising=False)
    done = _python(runtime, flags, env, "start", "--idle-timeout", "600", "--json")
    started = _json(done)
    assert done.stderr == ""  # not even a warning that the server it started still runs
    assert started["started_now"] is True
    pid = int(started["pid"])
    status = _json(_python(runtime, flags, env, "status", "--json"))
    assert (status["running"], status.get("pid")) == (True, pid)

    plain = _json(run_script("server", "status", "--json", cwd=runtime, env=env))
    assert plain["running"] is False  # other flags: another identity, another socket
    assert plain["socket"] != status["socket"]

    stopped = _json(_python(runtime, flags, env, "stop", "--json"))
    assert stopped == {"stopped": True, "pid": pid}
    wait_gone(pid)


def test_a_relative_pythonpath_names_the_same_server_from_the_same_folder(
    runtime: Path,
) -> None:
    # The server runs in "/": given the entry as it is, it looked for the library there,
    # another sys.path, another identity; `server start` said it did not answer (exit 1)
    # and left it running for nobody.
    (runtime / "lib").mkdir()
    paths = ["lib", *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]
    env = {"PYTHONPATH": os.pathsep.join(paths)}
    started = _json(_python(runtime, [], env, "start", "--idle-timeout", "600", "--json"))
    pid = int(started["pid"])
    status = _json(_python(runtime, [], env, "status", "--json"))
    assert (status["running"], status.get("pid")) == (True, pid)
    stopped = _json(_python(runtime, [], env, "stop", "--json"))
    assert stopped == {"stopped": True, "pid": pid}
    wait_gone(pid)
