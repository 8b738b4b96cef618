"""A history on git's refs that this user cannot write is read, as git reads the repository.

The refs twin of ``tests/store/test_read_only_store.py`` (issue 40.17): the readers
(``log``, ``show``, ``diff``, ``status``, ``verify``) answer as they do with write access,
also when the local index under ``.git/snapline/`` lags the refs, is missing, or the
whole local state is missing (a fresh clone after a fetch): the index is then built in
memory. The writers fail with exit 1, "permission denied", and nothing written. The
tests run as root here, where permission bits do not bind: the child drops the
capabilities that bypass them from its bounding set before it runs snapline
(``CAP_DAC_OVERRIDE``, ``CAP_DAC_READ_SEARCH``, ``CAP_FOWNER``), so ``chmod -R a-w``
on ``.git`` binds it as it binds any user.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.history_refs.gitrepo import ENV, SNAPLINE, Repo, new_repo
from tests.store.test_read_only_store import (
    _READERS,
    _WRITERS,
    _drop_bypass,
    _files,
    _readonly,
    _writable,
)


def _as_reader(repo: Repo, *args: str) -> subprocess.CompletedProcess[str]:
    """``snapline ARGS`` by a process whose permission bits bind (root or not)."""
    return subprocess.run(
        [SNAPLINE, *args],
        cwd=repo.path, capture_output=True, text=True, env=ENV, timeout=120, check=False,
        preexec_fn=_drop_bypass,
    )  # fmt: skip


def _answers(repo: Repo, readonly: bool) -> list[tuple[int, str, str]]:
    answers = []
    for args in _READERS:
        done = _as_reader(repo, *args) if readonly else repo.snap(*args)
        answers.append((done.returncode, done.stdout, done.stderr))
    return answers


@pytest.fixture
def repo(tmp_path: Path) -> object:
    """A refs workspace with snapshots 0..2, and the index as it was after snapshot 1."""
    made = new_repo(tmp_path / "work", {"app.py": "print(1)\n"})
    made.ok("init")
    (made.path / "app.py").write_text("print(2)\n")
    made.ok("record", "-m", "one")
    shutil.copy(made.path / ".git" / "snapline" / "index.db", tmp_path / "index-after-1.db")
    (made.path / "notes.txt").write_text("notes\n")
    made.ok("record", "-m", "two")
    yield made
    _writable(made.path / ".git")


@pytest.mark.parametrize("index", ["current", "behind the refs", "missing", "no local state"])
def test_readers_read_a_repository_this_user_cannot_write(
    repo: Repo, tmp_path: Path, index: str
) -> None:
    (repo.path / "app.py").write_text("print(3)\n")  # drift, for status, diff and verify
    state = repo.path / ".git" / "snapline"
    writable = _answers(repo, readonly=False)
    for log in state.glob("index.db-*"):
        log.unlink()  # none after a clean close; never applied to another file
    if index == "behind the refs":
        shutil.copy(tmp_path / "index-after-1.db", state / "index.db")
    elif index == "missing":
        (state / "index.db").unlink()
    elif index == "no local state":
        shutil.rmtree(state)
    _readonly(repo.path / ".git")
    before = _files(repo.path)
    assert _answers(repo, readonly=True) == writable
    assert _files(repo.path) == before
    assert [code for code, _, _ in writable] == [0, 0, 0, 0, 0, 0, 1, 1]  # the drift


@pytest.mark.parametrize("index", ["current", "missing"])
def test_writers_fail_on_it_and_write_nothing(repo: Repo, index: str) -> None:
    (repo.path / "app.py").write_text("print(3)\n")
    if index == "missing":
        (repo.path / ".git" / "snapline" / "index.db").unlink()
    _readonly(repo.path / ".git")
    before = _files(repo.path)
    for args in _WRITERS:
        done = _as_reader(repo, *args)
        assert done.returncode == 1, (args, done.stdout, done.stderr)
        assert "permission denied" in done.stderr, args
        assert "give this user write access to .git/snapline/" in done.stderr, args
        assert "Traceback" not in done.stderr
        assert _files(repo.path) == before, args
