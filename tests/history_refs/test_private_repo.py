"""Issue 37.7: outside git, the same refs in a private bare repository under ``.snapline/``.

``snapline init`` in a directory that is not the top of a git work tree makes
``.snapline/repo``, a bare git repository of the workspace's own, with the layout of
docs/format.md ("The refs layout"), and keeps the local state (index, lock) beside it
in ``.snapline/``. No git command run in the workspace or above it finds it, a
repository around the workspace never lists it, and no command needs the git binary.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from snapline import Workspace
from tests.cli.conftest import run_script
from tests.history_refs.gitrepo import ENV, GIT, Repo
from tests.nogit import no_git_path


def _git(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*GIT, *args], cwd=cwd, capture_output=True, text=True, env=ENV, check=False
    )


def _workspace(root: Path) -> Path:
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text("one\ntwo\n")
    (root / "README.md").write_text("# demo\n")
    return root


def test_init_outside_git_makes_a_private_bare_repository_that_git_reads(root: Path) -> None:
    _workspace(root)
    init = run_script("init", "--json", cwd=root)
    assert init.returncode == 0, init.stderr
    said = json.loads(init.stdout)
    assert said["store"] == str(root / ".snapline")
    assert said["push_hook"] is None  # no repository to push from
    line = said["refs"].removeprefix("refs/snapline/lines/")
    (root / "src" / "app.py").write_text("one\nTWO\n")
    assert run_script("record", "-m", "edit", cwd=root).returncode == 0

    store = root / ".snapline"
    assert sorted(p.name for p in store.iterdir() if p.is_dir()) == ["repo"]  # no ledger/
    assert (store / "index.db").is_file() and (store / "lock").exists()
    private = ["--git-dir", str(store / "repo")]
    assert _git(*private, "rev-parse", "--is-bare-repository", cwd=root).stdout == "true\n"
    logged = _git(*private, "log", "--format=%s", f"refs/snapline/lines/{line}", cwd=root)
    assert logged.stdout.splitlines() == ["snapline 1: record: edit", "snapline 0: init: baseline"]
    shown = _git(*private, "show", f"refs/snapline/lines/{line}:state/src/app.py", cwd=root)
    assert shown.stdout == "one\nTWO\n"
    # No git command run in the workspace, or in .snapline/, finds a repository.
    for where in (root, store):
        found = _git("rev-parse", "--git-dir", cwd=where)
        assert found.returncode == 128 and "not a git repository" in found.stderr
    assert run_script("verify", "--full", cwd=root).returncode == 0


def test_a_repository_around_the_workspace_never_lists_its_history(tmp_path: Path) -> None:
    parent = Repo(tmp_path / "parent")
    parent.path.mkdir()
    parent.git("init", "-q")
    root = _workspace(parent.path / "ws")
    assert run_script("init", cwd=root).returncode == 0
    assert (root / ".snapline" / "repo" / "HEAD").is_file()
    (root / "README.md").write_text("# changed\n")
    assert run_script("record", "-m", "x", cwd=root).returncode == 0

    # Nothing of it in the parent: no refs, no untracked files, no nested repository.
    assert parent.git("for-each-ref") == ""
    untracked = parent.git("status", "--porcelain", "--untracked-files=all").splitlines()
    assert sorted(untracked) == ["?? ws/README.md", "?? ws/src/app.py"]
    assert "!! ws/.snapline/" in parent.git("status", "--porcelain", "--ignored").splitlines()
    parent.git("add", "-A")
    assert ".snapline" not in parent.git("ls-files")
    assert parent.git("rev-parse", "--show-toplevel").strip() == str(parent.path)
    with Workspace.open(root) as ws:
        assert ws.latest == 1


def test_a_git_init_later_keeps_the_private_history_and_git_status_clean(root: Path) -> None:
    _workspace(root)
    assert run_script("init", cwd=root).returncode == 0
    repo = Repo(root)
    repo.git("init", "-q")
    # `.snapline/` is in the work tree now; its own .gitignore keeps it out of git's view.
    assert repo.git("status", "--porcelain").splitlines() == ["?? README.md", "?? src/"]
    (root / "src" / "app.py").write_text("one\n")
    recorded = run_script("record", "-m", "after git init", cwd=root)
    assert recorded.returncode == 0, recorded.stderr
    status = run_script("status", "--json", cwd=root)
    assert json.loads(status.stdout)["in_sync"] is True
    assert repo.git("for-each-ref", "refs/snapline") == ""  # still in the private repository
    assert run_script("verify", "--full", cwd=root).returncode == 0
    with Workspace.open(root) as ws:
        assert [s.description for s in ws.snapshots()] == ["baseline", "after git init"]
    assert run_script("init", cwd=root).returncode == 2  # it has a history already


def test_a_damaged_line_in_the_private_repository_exits_3(root: Path) -> None:
    _workspace(root)
    with Workspace.init(root) as ws:
        line = ws.snapshot(0).id
    # The line's ref pointed at a blob: crafted or damaged history, never a bug.
    private = str(root / ".snapline" / "repo")
    blob = _git("--git-dir", private, "hash-object", "-w", "README.md", cwd=root)
    (root / ".snapline" / "repo" / "refs" / "snapline" / "lines" / line).write_text(blob.stdout)
    status = run_script("status", cwd=root)
    assert status.returncode == 3, status.stderr
    assert len(status.stderr.splitlines()) == 1 and "Traceback" not in status.stderr


@pytest.fixture
def no_git(tmp_path: Path) -> dict[str, str]:
    """The environment of a machine without git: ``PATH`` has no ``git``."""
    return {"PATH": no_git_path(tmp_path)}


def test_every_command_runs_without_a_git_binary(root: Path, no_git: dict[str, str]) -> None:
    _workspace(root)

    def snap(*args: str, code: int = 0) -> subprocess.CompletedProcess[str]:
        done = run_script(*args, cwd=root, env=no_git)
        assert done.returncode == code, (args, done.stdout, done.stderr)
        assert "Traceback" not in done.stderr and "git" not in done.stderr.split(":")[0]
        return done

    snap("init")
    assert (root / ".snapline" / "repo" / "HEAD").is_file()
    (root / "src" / "app.py").write_text("one\nTWO\n")
    snap("record", "-m", "edit", "--session", "s1")
    assert "edit" in snap("log").stdout
    assert "edit" in snap("show", "1").stdout
    assert "-two" in snap("diff", "0", "1").stdout
    assert json.loads(snap("status", "--json").stdout)["in_sync"] is True
    snap("verify")
    snap("verify", "--full")
    snap("run", "--", "sh", "-c", "echo three >> src/app.py")
    assert (root / "src" / "app.py").read_text() == "one\nTWO\nthree\n"
    blamed = snap("blame", "src/app.py").stdout.splitlines()  # libgit2's line diff
    assert [line.split()[0] for line in blamed] == ["0", "1", "2"]
    snap("milestone", "create", "--to", "latest", "--title", "first")
    snap("guard", "--", "true")
    snap("rollback", "--to", "0", "--yes")
    assert (root / "src" / "app.py").read_text() == "one\ntwo\n"
    snap("undo")
    assert (root / "src" / "app.py").read_text() == "one\nTWO\nthree\n"
    snap("revert", "2")
    assert (root / "src" / "app.py").read_text() == "one\nTWO\n"
    snap("milestone", "rollback", "1", "--yes")
    assert (root / "src" / "app.py").read_text() == "one\ntwo\n"
    snap("forget", "src/app.py", "--snapshot", "1", "-m", "a secret")
    snap("report", "-o", str(root.parent / "page.html"))
    assert (root.parent / "page.html").stat().st_size > 0
    snap("verify", "--full")
    # What only git can do says so in one line, and runs no git.
    for refused in (("branch", "1", "b1"), ("push",), ("fetch",)):
        said = snap(*refused, code=1 if refused[0] == "branch" else 2).stderr
        assert len(said.splitlines()) == 1 and "not in" in said and "git" in said
    assert "not a git" not in snap("log").stderr
