"""A warm server runs a command only for a client with its own resource limits.

A worker has the server's limits (``ulimit``), not the client's: a client limited to
small files (``ulimit -f``, ``RLIMIT_FSIZE``) would have the server write what it may
not. The server compares the client's ``/proc/PID/limits`` with its own, as it compares
its other rights (tests/cli/warm/test_rights.py); a client with other limits gets the
answer it gets without a server. Found by tests/history_refs/test_os_refusals.py in the
full suite, served by a server an earlier test left running.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
from pathlib import Path

from tests.cli.warm.conftest import GUARD, Warm
from tests.history_refs.gitrepo import ENV, SNAPLINE, new_repo


def test_a_client_limited_to_small_files_gets_its_own_refusal(tmp_path: Path, warm: Warm) -> None:
    repo = new_repo(tmp_path / "work", {"a.txt": "a\n"})
    repo.ok("init")
    used = max(p.stat().st_size for p in repo.path.rglob("*") if p.is_file())
    limit = used + 65536  # the index's own writes fit; the object does not
    (repo.path / "big.bin").write_bytes(os.urandom(300_000))

    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, resource.RLIM_INFINITY))

    def run(server: str) -> subprocess.CompletedProcess[str]:
        env = {**ENV, "SNAPLINE_RUNTIME_DIR": str(warm.runtime), "SNAPLINE_SERVER": server}
        return subprocess.run(
            [SNAPLINE, "record", "-m", "big"], cwd=repo.path, capture_output=True, text=True,
            env=env, timeout=GUARD, check=False, preexec_fn=limited,
        )  # fmt: skip

    served = warm.served()
    cold = run("0")
    assert cold.returncode == 1 and "(File too large)" in cold.stderr, cold.stderr
    warm_done = run("1")
    assert (warm_done.returncode, warm_done.stderr) == (cold.returncode, cold.stderr)
    assert warm.served() == served  # the client ran it itself
    assert [entry["number"] for entry in json.loads(repo.ok("log", "--json"))] == [0]
