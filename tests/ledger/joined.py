"""A joined line: two branches that recorded from the same snapshot, merged in git and in snapline.

Two branches record from snapshot 3 of ``origin``. ``side`` records three snapshots
(4, 5, 6: a new file, an edit of app.py, a deletion, a new directory, and app.py edited
again, so its delta chain runs across the fork), committing each in git; ``main``
records two (README.md, main.txt). ``git merge side`` and ``snapline merge`` join the
lines: the side's snapshots keep numbers the main line also uses, and only their ids
tell them apart. Git is the oracle of what each side snapshot holds: the tree of the
side commit that recorded it.

The history is on git's refs (``origin``, an old branch's in-tree ledger, is moved by
``snapline upgrade`` first), and ``side`` records in a linked work tree of its own. The
fixture ``joined`` is used by the restores' tests (tests/snapshots/restore/
test_joined_lines.py), which import it with ``origin`` from tests/ledger/conftest.py.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.ledger.conftest import Repo, clone

__all__ = [
    "Joined",
    "joined",
    "record_and_commit",
    "reverted_by_git",
    "tree_listing",
    "workspace_listing",
]


@dataclass(frozen=True)
class Joined:
    """The merged, joined repository; do not change it (copy ``repo`` first)."""

    repo: Repo
    side: dict[int, str]  # side snapshot number -> id
    side_commits: dict[int, str]  # side snapshot number -> the git commit that holds it
    main: dict[int, str]  # main-line number -> id
    merge_number: int
    merge_commit: str
    fork_commit: str  # where both branches started: snapshot 3
    main_commit: str  # main's own work: snapshots 4 and 5 of the main line


def record_and_commit(repo: Repo, message: str) -> tuple[int, str, str]:
    done = repo.json("record", "-m", message)
    repo.commit(message)
    return done["number"], done["id"], repo.git("rev-parse", "HEAD").stdout.strip()


@pytest.fixture(scope="module")
def joined(origin: Repo, tmp_path_factory: pytest.TempPathFactory) -> Joined:
    # The old branch's history is moved onto refs first (the in-tree ledger is read
    # only); the side line records in a linked work tree of its own, as a second agent
    # does, and the main work tree merges it in git and joins it with `snapline merge`.
    base = tmp_path_factory.mktemp("reach")
    repo = clone(origin, base / "repo")
    repo.git("config", "user.name", "Joined Tests")
    repo.git("config", "user.email", "joined@example.invalid")
    repo.ok("upgrade")
    fork = repo.git("rev-parse", "HEAD").stdout.strip()
    repo.git("worktree", "add", "-q", "-b", "side", str(base / "side"))
    other = Repo(base / "side", dict(repo.ids))
    side: dict[int, str] = {}
    commits: dict[int, str] = {}
    other.write("side.txt", "side one\n")
    other.write("app.py", "def answer():\n    return 4\n")
    number, id_, commit = record_and_commit(other, "side one")
    side[number], commits[number] = id_, commit
    other.write("side.txt", "side one\nside two\n")
    (other.path / "notes.txt").unlink()
    other.write("pkg/new.py", "NEW = 1\n")
    number, id_, commit = record_and_commit(other, "side two")
    side[number], commits[number] = id_, commit
    other.write("app.py", "def answer():\n    return 6\n\n\ndef more():\n    return 7\n")
    number, id_, commit = record_and_commit(other, "side three")
    side[number], commits[number] = id_, commit
    assert sorted(side) == [4, 5, 6]
    repo.write("README.md", "# demo\n\nmain work\n")
    repo.ok("record", "-m", "main readme")
    repo.write("main.txt", "main only\n")
    repo.ok("record", "-m", "main file")
    repo.commit("main work")
    main_commit = repo.git("rev-parse", "HEAD").stdout.strip()
    repo.git("merge", "--no-edit", "side")
    merge = repo.json("merge")
    main = {s["number"]: s["id"] for s in repo.json("log")}
    assert main[merge["number"]] == merge["id"]
    head = repo.git("rev-parse", "HEAD").stdout.strip()
    return Joined(repo, side, commits, main, merge["number"], head, fork, main_commit)


def tree_listing(repo: Repo, commit: str) -> str:
    """``git ls-tree -r`` of a commit, without the ledger (snapline's own files)."""
    lines = repo.git("ls-tree", "-r", commit).stdout.splitlines()
    return "\n".join(line for line in lines if "\t.snapline/" not in line)


def workspace_listing(repo: Repo) -> str:
    """What git sees in the work tree now, as ``git ls-tree -r``, without the ledger."""
    repo.git("add", "-A")
    return tree_listing(repo, repo.git("write-tree").stdout.strip())


def reverted_by_git(repo: Repo, commit: str, into: Path, head: str = "HEAD") -> Repo:
    """A clone of ``repo`` whose work tree is ``head`` with ``commit`` reverted by git.

    snapline's ledger (committed under ``.snapline/`` too) is first taken out of git's
    sight: it keeps content-addressed copies of the files, and git's rename detection
    pairs a work file with its copy there (a file moved after ``commit`` then looks
    deleted to git, and the change is reverted in the copy). Each commit git reads is
    remade without the ledger.
    """
    oracle = clone(repo, into)

    def without_ledger(rev: str, *parents: str) -> str:
        oracle.git("read-tree", rev)
        oracle.git("rm", "-r", "-q", "--cached", "--ignore-unmatch", ".snapline")
        tree = oracle.git("write-tree").stdout.strip()
        linked = [arg for parent in parents for arg in ("-p", parent)]
        made = oracle.git("commit-tree", tree, *linked, "-m", f"{rev} without the ledger")
        return made.stdout.strip()

    before = without_ledger(f"{commit}^")
    change = without_ledger(commit, before)
    onto = without_ledger(head)
    oracle.git("checkout", "-q", "-f", "--detach", onto)
    oracle.git("revert", "--no-commit", change)
    return oracle
