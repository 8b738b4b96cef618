"""Issue 40, point 9: ``run`` finds a store its command deleted or replaced, always.

Regression: ``snapline run -- rm -rf .snapline``, a command that changed nothing else,
exited 0 saying "the command changed nothing" with the store gone, while ``guard`` with
the same command exited 3. Only a command that also changed a file was caught (by the
commit's presence check, which a command that changed nothing never reached).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from snapline import Workspace
from tests.cli.conftest import run_script

_SCRIPTS = {
    "deleted": "rm -rf .snapline",
    # Moved aside and copied back: the copy is another directory (the one moved aside
    # still holds its inode), so this case does not depend on inode reuse.
    "replaced": "mv .snapline ../aside && cp -r ../aside .snapline",
}


def _workspace(path: Path) -> Path:
    path.mkdir(parents=True)
    (path / "a.txt").write_text("a\n")
    Workspace.init(path).close()
    return path


@pytest.mark.parametrize("what", ["deleted", "replaced"])
def test_run_whose_command_only_removes_the_store_exits_3_as_guard_does(
    tmp_path: Path, what: str
) -> None:
    ran = _workspace(tmp_path / "ran" / "ws")
    guarded = _workspace(tmp_path / "guarded" / "ws")
    script = _SCRIPTS[what]

    run = run_script("run", "--", "sh", "-c", script, cwd=ran)
    guard = run_script("guard", "--", "sh", "-c", script, cwd=guarded)

    assert run.returncode == 3, run.stderr
    assert "changed nothing" not in run.stderr
    said = run.stderr.strip().splitlines()
    assert len(said) == 1 and f"was {what} during the operation" in said[0]
    # Word for word what guard says of the same command, but for the workspace's path.
    assert guard.returncode == 3, guard.stderr
    assert said[0].replace(str(ran), "ROOT") == guard.stderr.strip().replace(str(guarded), "ROOT")
    if what == "deleted":
        assert not (ran / ".snapline").exists()
        assert run_script("init", cwd=ran).returncode == 0
    else:
        assert (ran / "a.txt").read_text() == "a\n"
        assert run_script("verify", cwd=ran).returncode == 0


def test_run_json_names_the_error(tmp_path: Path) -> None:
    root = _workspace(tmp_path / "ws")
    done = run_script("run", "--json", "--", "rm", "-rf", ".snapline", cwd=root)
    assert done.returncode == 3, done.stderr
    assert json.loads(done.stdout)["kind"] == "StoreVanishedError"
