"""A warm server serves only a client with its own HOME: the git library read it once.

libgit2, which the server loads before any client comes, takes the place of the global
git configuration from ``HOME`` when it starts; a worker's environment, set to the
client's, does not move it. A client with another ``HOME`` (whose configuration says,
for instance, that a repository of another user is safe) must get the answer it gets
without a server, not one made with the server's configuration. Found when a server
started by an earlier test served tests/history_refs/test_not_owned.py in the full suite.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import snapline
from tests.cli.conftest import run_script
from tests.cli.warm.conftest import Warm
from tests.history_refs.gitrepo import ENV, new_repo
from tests.history_refs.test_not_owned import _another_user, _gits_advice, _give_away


def test_a_client_with_another_home_gets_its_own_git_configuration(
    tmp_path: Path, warm: Warm
) -> None:
    repo = new_repo(tmp_path / "work", {"a.txt": "a\n"})
    repo.ok("init")
    (repo.path / "a.txt").write_text("a, edited\n")
    _give_away(repo.path, _another_user())
    home = tmp_path / "home"
    home.mkdir()
    git_env = {k: v for k, v in ENV.items() if k != "GIT_CONFIG_GLOBAL"}
    advice = _gits_advice(repo.path)
    subprocess.run(advice.split(), env={**git_env, "HOME": str(home)}, check=True)

    client = {"SNAPLINE_RUNTIME_DIR": str(warm.runtime), "HOME": str(home)}
    cold = repo.snap("status", "--json", env={**client, "SNAPLINE_SERVER": "0"})
    assert cold.returncode == 0, cold.stderr  # this HOME's configuration trusts it
    served = repo.snap("status", "--json", env={**client, "SNAPLINE_SERVER": "1"})
    assert (served.returncode, served.stdout, served.stderr) == (0, cold.stdout, "")
    # With the server's HOME it is served, and refused as the cold run is.
    before = warm.served()
    refused = repo.snap(
        "status", env={"SNAPLINE_RUNTIME_DIR": str(warm.runtime), "SNAPLINE_SERVER": "1"}
    )
    assert refused.returncode == 1 and "safe.directory" in refused.stderr, refused.stderr
    assert warm.served() == before + 1


def test_a_client_with_another_xdg_config_home_is_not_served(tmp_path: Path, warm: Warm) -> None:
    # Where git's global configuration is read from, as HOME is: part of the identity,
    # so such a client finds no server at all (docs/cli.md).
    other = {"XDG_CONFIG_HOME": str(tmp_path / "config")}
    status = run_script("server", "status", "--json", cwd=tmp_path, env=other)
    assert json.loads(status.stdout)["running"] is False
    done = run_script("--version", cwd=tmp_path, env=other)
    assert (done.returncode, done.stdout) == (0, f"snapline {snapline.__version__}\n")
    assert warm.served() == 0
    assert run_script("--version", cwd=tmp_path).returncode == 0
    assert warm.served() == 1  # sanity: the server's own XDG_CONFIG_HOME is served
