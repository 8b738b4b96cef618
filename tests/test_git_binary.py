"""The one runner of the git binary (``snapline/git_binary.py``), through a real git.

What it passes to git (the repository found from where it runs, whatever ``GIT_DIR``
says; no setting of the user's when asked plain), and what the commands built on it say
when git is not installed: one line each, their exit codes unchanged.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from snapline.blame.gitdiff import git_hunks, git_hunks_many
from snapline.git_binary import NO_GIT, GitNotRunError, NotRun, git_environment, run_git
from tests.cli.conftest import run_script
from tests.old_ledgers import ledger_checkout


def _git(cwd: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True)
    return done.stdout.strip()


def _repo(path: Path) -> Path:
    path.mkdir()
    _git(path, "init", "-q", "-b", "main")
    _git(path, "config", "user.email", "dev@example.com")
    _git(path, "config", "user.name", "Dev")
    return path


# Only the console script's own folder: python and snapline, no git.
_NO_GIT = {"PATH": str(Path(sys.executable).parent)}


def test_git_runs_in_the_repository_of_its_folder_whatever_git_dir_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    here, elsewhere = _repo(tmp_path / "here"), _repo(tmp_path / "elsewhere")
    monkeypatch.setenv("GIT_DIR", str(elsewhere / ".git"))
    monkeypatch.setenv("GIT_INDEX_FILE", str(elsewhere / ".git" / "index"))
    monkeypatch.setenv("GIT_CONFIG_COUNT", "1")
    monkeypatch.setenv("GIT_CONFIG_KEY_0", "user.name")
    monkeypatch.setenv("GIT_CONFIG_VALUE_0", "From The Environment")

    mine = run_git(here, "rev-parse", "--absolute-git-dir")
    assert (mine.code, mine.text.strip()) == (0, str(here / ".git"))
    # The user's own settings stay, unless asked plain.
    assert run_git(here, "config", "user.name").text.strip() == "From The Environment"
    plain = run_git(here, "config", "user.name", env=git_environment(plain=True))
    assert plain.text.strip() == "Dev"
    assert git_environment(plain=True)["LC_ALL"] == "C"
    # Asked to keep the environment whole (a pre-push hook's GIT_DIR), it is kept.
    kept = run_git(
        here, "rev-parse", "--absolute-git-dir", env=git_environment(own_repository=False)
    )
    assert kept.text.strip() == str(elsewhere / ".git")


def test_git_reads_no_input_and_says_why_it_failed(tmp_path: Path) -> None:
    here = _repo(tmp_path / "here")
    # No input given: git reads /dev/null, never waits on this process's.
    assert run_git(here, "hash-object", "--stdin").text.strip() == _git(
        here, "hash-object", "/dev/null"
    )
    fed = run_git(here, "hash-object", "--stdin", input=b"x\n")
    assert fed.text.strip() == "587be6b4c3f93f93c489c0111bba5596147a26cb"
    failed = run_git(here, "rev-parse", "--verify", "nothing-here")
    assert failed.code == 128
    assert failed.lines == ["fatal: Needed a single revision"]


def test_git_missing_or_a_folder_missing_is_one_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gone = tmp_path / "gone"
    with pytest.raises(GitNotRunError) as missing_folder:
        run_git(gone, "status")
    assert missing_folder.value.why is NotRun.UNSTARTABLE
    assert str(gone) in missing_folder.value.reason
    monkeypatch.setenv("PATH", _NO_GIT["PATH"])
    with pytest.raises(GitNotRunError) as no_git:
        run_git(tmp_path, "status")
    assert no_git.value.why is NotRun.MISSING
    assert str(no_git.value) == f"`git status` could not run: {NO_GIT}"


def test_blame_line_diff_ignores_the_users_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    # `git -c diff.interHunkContext=5 ...` (or a GIT_DIR whose config says so) would
    # merge two changes three lines apart into one hunk: blame must see git's defaults.
    old, new = b"1\n2\n3\n4\n5\n6\n", b"1\nX\n3\n4\nY\n6\n"
    monkeypatch.setenv("GIT_CONFIG_COUNT", "1")
    monkeypatch.setenv("GIT_CONFIG_KEY_0", "diff.interHunkContext")
    monkeypatch.setenv("GIT_CONFIG_VALUE_0", "5")
    assert git_hunks(old, new) == [(2, 1, 2, 1), (5, 1, 5, 1)]
    assert git_hunks_many([(old, new)]) == [[(2, 1, 2, 1), (5, 1, 5, 1)]]


def _recorded(root: Path) -> None:
    (root / "a.txt").write_text("one\n")
    assert run_script("init", cwd=root).returncode == 0
    _git(root, "add", "a.txt")
    _git(root, "commit", "-qm", "start")
    (root / "a.txt").write_text("two\n")
    assert run_script("record", "-m", "two", cwd=root).returncode == 0


def test_without_git_each_command_says_so_in_one_line(tmp_path: Path) -> None:
    root = _repo(tmp_path / "repo")
    _recorded(root)

    branch = run_script("branch", "1", "topic", cwd=root, env=_NO_GIT)
    assert branch.returncode == 1, branch.stderr
    assert branch.stderr.strip().splitlines() == [
        f"snapline: error: cannot run git: {NO_GIT}; install git"
    ], branch.stderr
    push = run_script("push", cwd=root, env=_NO_GIT)
    assert push.returncode == 5, push.stderr
    assert push.stderr.strip().splitlines() == [
        f"snapline: error: `git rev-parse` failed: {NO_GIT}; install git or put it on PATH"
    ], push.stderr


def test_a_branch_is_made_in_the_workspaces_repository_whatever_git_dir_says(
    tmp_path: Path,
) -> None:
    root, elsewhere = _repo(tmp_path / "repo"), _repo(tmp_path / "elsewhere")
    _recorded(root)
    env = {"GIT_DIR": str(elsewhere / ".git"), "GIT_WORK_TREE": str(elsewhere)}
    made = run_script("branch", "1", "topic", cwd=root, env=env)
    assert made.returncode == 0, made.stderr
    assert _git(root, "show", "topic:a.txt") == "two"
    assert os.listdir(elsewhere / ".git" / "refs" / "heads") == []


def test_an_upgrade_without_git_says_so_in_one_line(tmp_path: Path) -> None:
    root = ledger_checkout(tmp_path / "repo").path  # an old branch, its ledger in the tree
    upgrade = run_script("upgrade", cwd=root, env=_NO_GIT)
    assert upgrade.returncode == 1, upgrade.stderr
    assert upgrade.stderr.strip().splitlines() == [
        f"snapline: error: `git ls-files -z` failed: {NO_GIT}"
    ], upgrade.stderr


def test_a_forget_published_without_git_says_so_in_one_line(tmp_path: Path) -> None:
    root = _repo(tmp_path / "repo")
    _git(tmp_path, "init", "-q", "--bare", "remote.git")
    _git(root, "remote", "add", "origin", str(tmp_path / "remote.git"))
    _recorded(root)
    assert run_script("forget", "a.txt", "--snapshot", "1", "-m", "why", cwd=root).returncode == 0
    published = run_script("forget", "--publish", "origin", cwd=root, env=_NO_GIT)
    assert published.returncode == 1, published.stderr
    assert published.stderr.strip().splitlines() == [
        f"snapline: error: nothing was pushed to origin: `git ls-remote` could not run: {NO_GIT}"
    ], published.stderr
