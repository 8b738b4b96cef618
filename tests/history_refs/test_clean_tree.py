"""In a git work tree snapline writes nothing into the tree: ``git status`` stays clean.

Every everyday command runs through the installed console script in a real repository;
after each, ``git status --porcelain --ignored`` shows only the user's own changes
(nothing of snapline's, ignored or not), and the work tree holds only the user's files.
The history is on the repository's refs, the local state under ``.git/snapline/``.
"""

from __future__ import annotations

import sys
from pathlib import Path

from tests.history_refs.gitrepo import Repo, new_repo

_PYTHON = sys.executable


def _status(repo: Repo) -> list[str]:
    return repo.git("status", "--porcelain", "--ignored", "--untracked-files=all").splitlines()


def _steps(repo: Repo) -> list[tuple[tuple[str, ...], list[str], set[str]]]:
    """(command, the status after it, the work tree after it), in order."""
    tree = {"a.txt", "src", "src/b.txt"}
    return [
        (("init",), [], tree),
        (("record", "a.txt", "-m", "edit a"), [" M a.txt"], tree),
        (("status",), [" M a.txt"], tree),
        (("log",), [" M a.txt"], tree),
        (("show", "1"), [" M a.txt"], tree),
        (("diff", "0", "1"), [" M a.txt"], tree),
        (("milestone", "create", "-m", "phase one"), [" M a.txt"], tree),
        (("milestone", "list"), [" M a.txt"], tree),
        (("verify",), [" M a.txt"], tree),
        (("guard", "--", _PYTHON, "-c", "pass"), [" M a.txt"], tree),
        (
            ("run", "--", _PYTHON, "-c", "open('c.txt', 'w').write('c\\n')"),
            [" M a.txt", "?? c.txt"],
            tree | {"c.txt"},
        ),
        (("undo",), [" M a.txt"], tree),
        (("rollback", "--to", "0", "-y"), [], tree),
        (("revert", "latest"), [" M a.txt"], tree),
        (("report",), [" M a.txt"], tree),
        (("verify", "--full"), [" M a.txt"], tree),
    ]


def test_every_command_leaves_git_status_clean(tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "work", {"a.txt": "one\n", "src/b.txt": "b\n"})
    for command, status, tree in _steps(repo):
        if command[0] == "record":
            (repo.path / "a.txt").write_text("two\n")
        repo.ok(*command)
        assert _status(repo) == status, command
        assert repo.files() == tree, command
    assert (repo.path / "a.txt").read_text() == "two\n"
    # The history is on the refs, the local state in git's directory.
    refs = repo.git("for-each-ref", "--format=%(refname)", "refs/snapline/").split()
    kinds = ["checks", "lines", "milestones", "settings"]
    assert [ref.rsplit("/", 2)[-2] for ref in refs] == kinds, refs
    assert (repo.path / ".git" / "snapline" / "index.db").is_file()
    assert (repo.path / ".git" / "snapline" / "report.html").is_file()
    # The guard's outcome is on its ref, and read back.
    assert "pass" in repo.ok("show", "1")
    # forget rewrites snapline's refs only: nothing in the tree, git status as it was.
    forget = repo.snap("forget", "a.txt", "--snapshot", "0", "-m", "a secret")
    assert forget.returncode == 0 and "refs/snapline/forgets/" in forget.stdout, forget.stderr
    assert _status(repo) == [" M a.txt"] and repo.files() == {"a.txt", "src", "src/b.txt"}
    # The writers' rule is unchanged: a user's file inside .git/ is refused, snapline's
    # own state there is the store's alone.
    inside = repo.snap("report", "-o", ".git/snapline/page.html")
    assert inside.returncode == 2 and "inside .git/" in inside.stderr
    assert not (repo.path / ".git" / "snapline" / "page.html").exists()
