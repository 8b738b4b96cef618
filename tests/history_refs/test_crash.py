"""SIGKILL after the ref moved and before the index committed: the next command catches up.

The ref is the commit point of a history on git's refs. A writer killed at
``refs-published`` (its commits on their refs, its index transaction not committed)
leaves a line one snapshot (or milestone) ahead of the local index; the next command
reads it from the ref, and the history, the workspace and the next write all go on.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from snapline import Workspace
from tests.history_refs.gitrepo import ENV, GIT
from tests.reliability.helpers import (
    KILLED,
    assert_healthy,
    cli,
    history_tree,
    python,
    tree,
)

STEP = "refs-published"


def _history(root: Path, layout: str = "git") -> dict[int, dict[str, bytes]]:
    """A git work tree (or a workspace outside git) with snapshots 0..2 on its refs."""
    root.mkdir()
    if layout == "git":
        subprocess.run([*GIT, "init", "-q", str(root)], env=ENV, check=True)
    (root / "a.txt").write_bytes(b"a0\n")
    (root / "bin.dat").write_bytes(bytes(range(256)))
    with Workspace.init(root) as ws:
        ws.write_file("a.txt", "a1\n")
        ws.write_file("dir/c.txt", "c1\n")
        assert ws.latest == 2
        states = {n: history_tree(ws, n) for n in (0, 1, 2)}
    # In git nothing in the work tree; outside git, the private repository.
    assert (root / ".snapline").exists() == (layout == "private")
    return states


def _git_dir(root: Path) -> list[str]:
    """``--git-dir`` of the private repository, when the workspace has one."""
    private = root / ".snapline" / "repo"
    return ["--git-dir", str(private)] if private.is_dir() else []


def _line(root: Path) -> list[str]:
    """The subjects of the main line's commits, newest first (plain git)."""
    refs = subprocess.run(
        [*GIT, *_git_dir(root), "for-each-ref", "--format=%(refname)", "refs/snapline/lines/"],
        cwd=root,
        env=ENV,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert len(refs) == 1, refs
    log = subprocess.run(
        [*GIT, *_git_dir(root), "log", "--format=%s", refs[0]],
        cwd=root,
        env=ENV,
        capture_output=True,
        text=True,
        check=True,
    )
    return log.stdout.splitlines()


@pytest.mark.parametrize("layout", ["git", "private"])
@pytest.mark.parametrize("command", ["record", "rollback", "write_file"])
def test_a_kill_after_the_ref_moved_is_caught_up_from_the_ref(
    tmp_path: Path, command: str, layout: str
) -> None:
    root = tmp_path / "work"
    history = _history(root, layout)
    if command == "record":
        (root / "a.txt").write_text("changed outside snapline\n")
        child = cli(root, "record", "-m", "outside edit", crash=STEP)
    elif command == "rollback":
        child = cli(root, "rollback", "--to", "0", "-y", crash=STEP)
    else:
        driver = (
            "import sys\nfrom snapline import Workspace\n"
            "with Workspace.open(sys.argv[1]) as ws:\n"
            "    ws.write_file('a.txt', 'written\\n')\n"
        )
        child = python(driver, str(root), crash=STEP)
    assert child.returncode == KILLED, (child.returncode, child.stdout, child.stderr)
    # The ref holds snapshot 3; the index, killed before its commit, does not.
    assert _line(root)[0].startswith("snapline 3: ")
    on_disk = tree(root)

    # The next command reads it from the ref: the write happened, nothing is lost.
    assert assert_healthy(root, history) == 3
    assert tree(root) == on_disk
    with Workspace.open(root) as ws:
        expected = {"record": b"changed outside snapline\n", "rollback": b"a0\n"}
        assert ws.content_at("a.txt", 3) == expected.get(command, b"written\n")
        ws.write_file("after.txt", "the next caller\n")
    assert assert_healthy(root, history) == 4
    assert len(_line(root)) == 5


def test_a_milestone_killed_after_its_ref_moved_is_caught_up(tmp_path: Path) -> None:
    root = tmp_path / "work"
    _history(root)
    child = cli(root, "milestone", "create", "-m", "phase one", crash=STEP)
    assert child.returncode == KILLED, (child.returncode, child.stdout, child.stderr)
    with Workspace.open(root) as ws:
        assert [(m.number, m.first, m.last) for m in ws.milestones.list()] == [(1, 1, 2)]
        assert ws.validate().ok
    done = cli(root, "milestone", "create", "--to", "latest", "-m", "nothing new")
    assert done.returncode != 0 and "Traceback" not in done.stderr


@pytest.mark.parametrize("layout", ["git", "private"])
def test_an_init_killed_after_its_baseline_went_onto_the_ref_is_a_history(
    tmp_path: Path, layout: str
) -> None:
    # baseline-built: the baseline's commit is on its line, the index not yet named.
    root = tmp_path / "work"
    root.mkdir()
    if layout == "git":
        subprocess.run([*GIT, "init", "-q", str(root)], env=ENV, check=True)
    (root / "a.txt").write_bytes(b"a0\n")
    child = cli(root, "init", crash="baseline-built")
    assert child.returncode == KILLED, (child.returncode, child.stdout, child.stderr)
    assert _line(root) == ["snapline 0: init: baseline"]
    state = root / (".git/snapline" if layout == "git" else ".snapline")
    assert not (state / "index.db").exists()
    assert assert_healthy(root) == 0  # the index is built from the ref
    again = cli(root, "init")
    assert again.returncode == 2 and "already has a snapline store" in again.stderr
    assert _line(root) == ["snapline 0: init: baseline"]


def test_a_first_write_killed_after_naming_its_line_starts_one_again(tmp_path: Path) -> None:
    # refs-line-named: a linked work tree's first record named its new line in its local
    # state, then died before the line's ref existed. The name counts as no line: the
    # next command follows the main line, the next record starts a line of its own.
    root = tmp_path / "work"
    history = _history(root)
    linked = tmp_path / "linked"
    for command in (
        ["add", "-A"],
        ["commit", "-qm", "two"],
        ["worktree", "add", "-q", str(linked)],
    ):
        subprocess.run([*GIT, *command], cwd=root, env=ENV, check=True)
    (linked / "a.txt").write_text("linked\n")
    child = cli(linked, "record", "-m", "linked edit", crash="refs-line-named")
    assert child.returncode == KILLED, (child.returncode, child.stdout, child.stderr)
    state = root / ".git" / "worktrees" / "linked" / "snapline"
    named = (state / "line").read_text().strip()
    assert len(_lines(root)) == 1 and named not in _lines(root)[0]
    assert _line(root)[0].startswith("snapline 2: ")  # the main line as it was

    with Workspace.open(linked) as ws:
        assert ws.latest == 2 and ws.validate().ok
    status = cli(linked, "status")
    assert "1 path changed" in status.stdout and "modified   a.txt" in status.stdout
    done = cli(linked, "record", "-m", "linked edit")
    assert done.returncode == 0, done.stdout + done.stderr
    lines = _lines(root)
    assert len(lines) == 2
    own = (state / "line").read_text().strip()
    assert own != named and f"refs/snapline/lines/{own}" in lines
    with Workspace.open(linked) as ws:
        assert ws.latest == 3 and ws.validate().ok
        assert ws.content_at("a.txt", 3) == b"linked\n"
    assert assert_healthy(root, history) == 2  # the main work tree: untouched


def _lines(root: Path) -> list[str]:
    return subprocess.run(
        [*GIT, "for-each-ref", "--format=%(refname)", "refs/snapline/lines/"],
        cwd=root,
        env=ENV,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()


def test_a_first_verify_killed_with_its_index_built_and_unsynced_builds_it_again(
    tmp_path: Path,
) -> None:
    # refs-index-built: a fresh clone's first command filled its index from the refs,
    # unsynced, under its staging name; the kill leaves that file and no index. The
    # next command removes it, builds the index again and verifies the whole history.
    root = tmp_path / "work"
    states = _history(root)
    origin, clone = tmp_path / "origin.git", tmp_path / "clone"
    for command, where in (
        (["add", "-A"], root),
        (["commit", "-qm", "work"], root),
        (["init", "-q", "--bare", str(origin)], tmp_path),
        (["push", "-q", str(origin), "main"], root),
        (["push", "-q", str(origin), "refs/snapline/*:refs/snapline/*"], root),
        (["clone", "-q", str(origin), str(clone)], tmp_path),
        (["fetch", "-q", "origin", "refs/snapline/*:refs/snapline/*"], clone),
    ):
        subprocess.run([*GIT, *command], cwd=where, env=ENV, check=True)
    child = cli(clone, "verify", crash="refs-index-built")
    assert child.returncode == KILLED, (child.returncode, child.stdout, child.stderr)
    state = clone / ".git" / "snapline"
    assert (state / "index.db.init").is_file() and not (state / "index.db").exists()
    done = cli(clone, "verify")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "snapshots 0..2 verified" in done.stdout
    assert sorted(p.name for p in state.glob("index.db*")) == ["index.db"]
    assert assert_healthy(clone, states) == 2
