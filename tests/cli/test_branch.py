"""``snapline branch N``: a git branch whose files are snapshot N's, checked with real git.

The oracle is the disk itself: each state is read back from the workspace (content,
executable bit, symlink target) when it is recorded, and the branch's tree, as
``git ls-tree`` and ``git cat-file`` show it, must hold exactly that.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.cli.conftest import run_script

State = dict[str, tuple[str, bytes]]


def _git(cwd: Path, *args: str) -> bytes:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True).stdout


def _disk(root: Path) -> State:
    # What a checkout of the state must hold: git's mode and bytes per path.
    state: State = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if rel.split("/")[0] in (".git", ".snapline"):
            continue
        if path.is_symlink():
            state[rel] = ("120000", os.fsencode(os.readlink(path)))
        elif path.is_file():
            mode = "100755" if os.access(path, os.X_OK) else "100644"
            state[rel] = (mode, path.read_bytes())
    return state


def _branch_tree(repo: Path, branch: str, prefix: str = "") -> State:
    state: State = {}
    listing = _git(repo, "ls-tree", "-r", "-z", branch).split(b"\0")
    for entry in filter(None, listing):
        meta, name = entry.split(b"\t", 1)
        mode, _, blob = meta.decode().split()
        rel = name.decode()
        if not rel.startswith(prefix) or rel[len(prefix) :].startswith(".snapline/"):
            continue
        state[rel[len(prefix) :]] = (mode, _git(repo, "cat-file", "blob", blob))
    return state


def _untouched(repo: Path) -> tuple[bytes, bytes, str]:
    index = hashlib.sha256((repo / ".git" / "index").read_bytes()).hexdigest()
    return _git(repo, "rev-parse", "HEAD"), _git(repo, "status", "--porcelain=v1", "-z"), index


def _snap(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run_script(*args, cwd=root)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "config", "user.email", "dev@example.com")
    _git(repo, "config", "user.name", "Dev")
    return repo


@pytest.mark.parametrize("sub", ["", "ws/"])
def test_a_branch_holds_each_snapshots_files_and_leaves_the_checkout_alone(
    repo: Path, sub: str
) -> None:
    root = repo / sub if sub else repo
    root.mkdir(exist_ok=True)
    (repo / "outside.txt").write_text("not the workspace's\n")
    (root / "x").mkdir()
    (root / "x" / "one.txt").write_text("one\n")
    (root / "keep.txt").write_text("keep\n")
    assert _snap(root, "init").returncode == 0
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "start")
    states = [_disk(root)]
    # A nested tree emptied, a directory swapped for a file, a symlink, a mode change,
    # bytes that are not text, a name with a space and a quote.
    (root / "x" / "deep").mkdir()
    (root / "x" / "deep" / "two.txt").write_text("two\n")
    (root / 'odd "name".bin').write_bytes(bytes(range(256)))
    assert _snap(root, "record", "-m", "more").returncode == 0
    states.append(_disk(root))
    subprocess.run(["rm", "-r", str(root / "x")], check=True)
    (root / "x").write_text("now a file\n")
    os.symlink("keep.txt", root / "link")
    (root / "keep.txt").chmod(0o755)
    assert _snap(root, "record", "-m", "swap").returncode == 0
    states.append(_disk(root))
    before = _untouched(repo)

    prefix = sub
    for number, state in enumerate(states):
        made = _snap(root, "branch", str(number), f"b{number}", "--json")
        assert made.returncode == 0, made.stderr
        data = json.loads(made.stdout)
        assert data["branch"] == f"b{number}" and data["snapshot"] == number
        assert data["parent"] == _git(repo, "rev-parse", "HEAD").decode().strip()
        assert _branch_tree(repo, f"b{number}", prefix) == state
        # Outside the workspace (and the ledger), the branch is HEAD.
        assert _git(repo, "show", f"b{number}:outside.txt") == b"not the workspace's\n"
    assert _untouched(repo) == before


def test_a_branch_checked_out_in_a_new_work_tree(repo: Path, tmp_path: Path) -> None:
    (repo / "a.txt").write_text("a\n")
    assert _snap(repo, "init").returncode == 0
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "start")
    first = _disk(repo)
    (repo / "a.txt").write_text("b\n")
    assert _snap(repo, "record").returncode == 0
    made = _snap(repo, "branch", "0", "--worktree", str(tmp_path / "wt"))
    assert made.returncode == 0, made.stderr
    assert "made branch snapline/0" in made.stdout
    assert _disk(tmp_path / "wt") == first
    assert (repo / "a.txt").read_text() == "b\n"


def test_branch_refusals_are_one_line_and_make_nothing(repo: Path, tmp_path: Path) -> None:
    (repo / "a.txt").write_text("a\n")
    assert _snap(repo, "init").returncode == 0
    assert _snap(repo, "branch", "0", "b").returncode == 0  # on an unborn HEAD too
    assert _git(repo, "rev-list", "--count", "b").strip() == b"1"
    cases = {
        ("branch", "0", "b"): "already exists",
        ("branch", "0", "bad..name"): "not a valid git branch name",
        ("branch", "7", "c"): "there is no snapshot 7",
        ("branch", "0", "d", "--worktree", str(repo)): "already exists",
    }
    for args, words in cases.items():
        result = _snap(repo, *args)
        assert result.returncode == 1, (args, result.stderr)
        assert words in result.stderr
        assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert _git(repo, "branch", "--list", "c", "d") == b""
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "a.txt").write_text("a\n")
    assert _snap(plain, "init").returncode == 0
    outside = _snap(plain, "branch", "0")
    assert outside.returncode == 1
    assert "not inside a git work tree" in outside.stderr


def test_a_branch_leaves_out_what_the_snapshot_had_deleted(repo: Path) -> None:
    # HEAD is committed before the agent deletes a file: the branch of a later snapshot
    # must not take the file back from HEAD's tree (it is tracked by nobody now).
    (repo / "gone.txt").write_text("deleted by snapshot 1\n")
    (repo / "kept.txt").write_text("kept\n")
    assert _snap(repo, "init").returncode == 0
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "start")
    (repo / "gone.txt").unlink()
    assert _snap(repo, "record", "-m", "delete").returncode == 0
    (repo / "kept.txt").write_text("kept, changed\n")
    assert _snap(repo, "record", "-m", "change").returncode == 0
    states = {1: _disk(repo), 2: _disk(repo)}
    states[1]["kept.txt"] = ("100644", b"kept\n")
    for number, state in states.items():
        made = _snap(repo, "branch", str(number), f"b{number}")
        assert made.returncode == 0, made.stderr
        assert _branch_tree(repo, f"b{number}") == state
    assert _branch_tree(repo, "HEAD")["gone.txt"] == ("100644", b"deleted by snapshot 1\n")
