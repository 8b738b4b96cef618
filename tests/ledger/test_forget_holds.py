"""A forget that holds: across a merge, and when the process is killed at any point.

The secret bytes are searched for in every file under ``.snapline/`` (ledger, index,
its logs). A forget record travels with the ledger: the next command of any clone
applies it to every snapshot file that still holds the forgotten version (another
branch's reverse delta back to it), and a forget killed midway is finished by the next
command; ``verify`` never says ok with the bytes still there.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.ledger.conftest import SNAPLINE, Repo, copy, new_repo, output

SECRET = "API_KEY=sk-live-0123456789abcdef"


def _holding(repo: Repo) -> list[str]:
    return [
        str(path.relative_to(repo.path))
        for path in sorted((repo.path / ".snapline").rglob("*"))
        if path.is_file() and SECRET.encode() in path.read_bytes()
    ]


def _with_secret(path: Path) -> Repo:
    repo = new_repo(path)
    repo.write("config.env", "DEBUG=1\n")
    repo.write("notes.txt", "notes\n")
    repo.ok("init", "--in-tree")
    repo.write("config.env", f"DEBUG=1\n{SECRET}\n")
    repo.ok("record", "-m", "the secret, by mistake")
    repo.commit("secret recorded")
    return repo


@pytest.fixture(scope="module")
def secret_repo(tmp_path_factory: pytest.TempPathFactory) -> Repo:
    """Do not change it: copy it first. The secret is snapshot 1, then edited away."""
    repo = _with_secret(tmp_path_factory.mktemp("secret") / "repo")
    repo.write("config.env", "DEBUG=1\nAPI_KEY=from-the-vault\n")
    repo.ok("record", "-m", "the secret out")
    repo.write("notes.txt", "notes\nmore\n")
    repo.ok("record", "-m", "notes")
    repo.commit("more")
    assert _holding(repo)
    return repo


@pytest.mark.parametrize(
    "step",
    [
        "forget-recorded",
        "forget-rewritten",
        "forget-objects-deleted",
        "forget-indexed",
    ],
)
def test_a_forget_killed_at_any_point_is_finished_by_the_next_command(
    secret_repo: Repo, tmp_path: Path, step: str
) -> None:
    repo = copy(secret_repo, tmp_path / "copy")
    killed = subprocess.run(
        [SNAPLINE, "forget", "config.env", "--snapshot", "1", "-m", "a key by mistake"],
        cwd=repo.path,
        env={**os.environ, "SNAPLINE_CRASH_AT": step},
        capture_output=True,
        check=False,
    )
    assert killed.returncode == -9, killed.stderr
    verify = repo.snap("verify", "--deep")
    assert verify.returncode == 0, output(verify)
    assert _holding(repo) == []
    assert "forgotten" in output(repo.snap("show", "1")).lower()
    assert repo.snap("show", "2").returncode == 0  # the later version still rebuilds


def test_a_forget_killed_before_its_record_leaves_the_history_as_it_was(
    secret_repo: Repo, tmp_path: Path
) -> None:
    repo = copy(secret_repo, tmp_path / "copy")
    killed = subprocess.run(
        [SNAPLINE, "forget", "config.env", "--snapshot", "1", "-m", "a key by mistake"],
        cwd=repo.path,
        env={**os.environ, "SNAPLINE_CRASH_AT": "forget-kept"},
        capture_output=True,
        check=False,
    )
    assert killed.returncode == -9
    assert repo.snap("verify", "--deep").returncode == 0
    # Nothing was on record: running it again does it all.
    repo.ok("forget", "config.env", "--snapshot", "1", "-m", "a key by mistake")
    assert _holding(repo) == []


def test_a_forget_on_one_branch_reaches_the_other_branchs_later_edit(tmp_path: Path) -> None:
    repo = _with_secret(tmp_path / "repo")
    repo.git("checkout", "-q", "-b", "feature")
    repo.write("config.env", "DEBUG=1\nAPI_KEY=rotated\n")
    repo.ok("record", "-m", "the feature edits the file after the secret")
    repo.commit("feature edit")
    repo.git("checkout", "-q", "main")
    repo.ok("forget", "config.env", "--snapshot", "1", "-m", "a key by mistake")
    repo.commit("forgotten on main")
    repo.git("merge", "--no-edit", "feature")
    assert any("snapshots" in path for path in _holding(repo))  # the feature's reverse delta

    status = repo.snap("status")
    assert status.returncode == 0, output(status)
    assert _holding(repo) == []
    # Only the feature recorded since the secret: its snapshot continues the one line.
    assert [entry["number"] for entry in repo.json("log")] == [2, 1, 0]
    shown = repo.snap("show", "2", "--json")  # built on the forgotten version, kept whole
    assert shown.returncode == 0, output(shown)
    verify = repo.snap("verify", "--deep")
    assert verify.returncode == 0, output(verify)
    assert _holding(repo) == []


def test_verify_never_says_ok_while_a_ledger_file_still_holds_forgotten_content(
    secret_repo: Repo, tmp_path: Path
) -> None:
    repo = copy(secret_repo, tmp_path / "copy")
    before = repo.git("rev-parse", "HEAD").stdout.strip()
    repo.ok("forget", "config.env", "--snapshot", "1", "-m", "a key by mistake")
    repo.commit("forgotten")
    assert repo.snap("verify").returncode == 0
    # A snapshot file brought back from an older commit holds the secret again.
    rewritten = repo.git(
        "diff", "--name-only", "--diff-filter=M", before, "HEAD", "--", ".snapline/ledger"
    ).stdout.split()
    assert rewritten
    repo.git("checkout", before, "--", *rewritten)
    assert _holding(repo)
    verify = repo.snap("verify")
    text = output(verify)
    assert verify.returncode == 1, text
    assert "forget is not finished" in text and "backup" in text  # "never restore … a backup"
    assert "restore it from git" not in text
    # What it says to do settles it.
    (repo.path / ".snapline" / "index.db").unlink()
    verify = repo.snap("verify")
    assert verify.returncode == 0, output(verify)
    assert _holding(repo) == []
