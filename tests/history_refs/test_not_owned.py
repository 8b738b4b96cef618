"""A git work tree owned by another user: git's refusal, in one line with git's advice.

git (and libgit2, which snapline uses) opens only a repository this user owns, unless
``safe.directory`` names it ("detected dubious ownership"). snapline said so as an
internal error (exit 70) on 807557d; now it exits 1 with one line naming the work tree
and the command git itself advises, whose path is checked against git's own message
(the oracle), and after that command the same snapline command works. The private
repository (``.snapline/repo``, outside git) is the workspace's own: no owner check.
The tests run as root; the workspace is given to ``nobody`` (as
``tests/cli/warm/test_rights.py`` does), which root still may write.
"""

from __future__ import annotations

import os
import pwd
import re
import subprocess
from pathlib import Path

from tests.history_refs.gitrepo import ENV, GIT, Repo, new_repo


def _give_away(root: Path, uid: int) -> None:
    os.chown(root, uid, uid)
    for directory, subdirectories, names in os.walk(root):
        for name in subdirectories + names:
            os.chown(os.path.join(directory, name), uid, uid, follow_symlinks=False)


def _another_user() -> int:
    uid = pwd.getpwnam("nobody").pw_uid
    assert uid != os.geteuid()
    return uid


def _gits_advice(path: Path) -> str:
    """The ``safe.directory`` command git prints for the repository at ``path``."""
    done = subprocess.run(
        [*GIT, "status"], cwd=path, capture_output=True, text=True, env=ENV, check=False
    )
    assert done.returncode != 0 and "dubious ownership" in done.stderr, done.stderr
    found = re.search(r"git config --global --add safe\.directory (\S+)", done.stderr)
    assert found is not None, done.stderr
    return found.group(0)


def test_a_work_tree_of_another_user_is_refused_in_one_line_with_gits_advice(
    tmp_path: Path,
) -> None:
    repo = new_repo(tmp_path / "work", {"a.txt": "a\n"})
    repo.ok("init")
    (repo.path / "a.txt").write_text("a, edited\n")
    _give_away(repo.path, _another_user())
    advice = _gits_advice(repo.path)
    for args in (["status"], ["record", "-m", "edit"], ["verify"]):
        done = repo.snap(*args)
        assert done.returncode == 1, (args, done.stdout, done.stderr)
        lines = done.stderr.splitlines()
        assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
        assert lines[0].startswith(f"snapline: error: git refuses the repository at {repo.path}")
        assert "another user" in lines[0] and "dubious ownership" in lines[0]
        assert f"run `{advice}` and try again" in lines[0]

    # git's advice, taken (libgit2 reads the global configuration from $HOME).
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in ENV.items() if k != "GIT_CONFIG_GLOBAL"}
    subprocess.run(advice.split(), env={**env, "HOME": str(home)}, check=True)
    accepted = subprocess.run(
        [*GIT, "status"], cwd=repo.path, capture_output=True, text=True,
        env={**env, "HOME": str(home)}, check=False,
    )  # fmt: skip
    assert accepted.returncode == 0, accepted.stderr  # git's, too
    done = repo.snap("record", "-m", "edit", env={"HOME": str(home)})
    assert done.returncode == 0, done.stderr
    assert "M a.txt" in done.stdout


def test_a_private_repository_of_another_user_is_the_workspaces_own(tmp_path: Path) -> None:
    root = tmp_path / "work"
    root.mkdir()
    (root / "a.txt").write_text("a\n")
    repo = Repo(root)
    repo.ok("init")
    (root / "a.txt").write_text("a, edited\n")
    _give_away(root, _another_user())
    done = repo.snap("record", "-m", "edit")
    assert done.returncode == 0, done.stderr
    assert "M a.txt" in done.stdout
