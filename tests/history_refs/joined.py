"""A joined line on git's refs: two branches that recorded from the same snapshot, merged.

``origin`` (tests/ledger/conftest.py) is an old branch's in-tree ledger; a clone of it
is moved onto git's refs by ``snapline upgrade`` first (:func:`upgraded`), as a team
does once. Each other line is then recorded the way a second agent records it: in a
linked work tree of its own, on a branch of its own (:func:`line`), while the main work
tree records on its own line; ``git merge`` and ``snapline merge`` join them.

In ``joined``, ``side`` records three snapshots from snapshot 3 (4, 5, 6: a new file,
an edit of app.py, a deletion, a new directory, and app.py edited again, so its delta
chain runs across the fork), committing each in git; ``main`` records two (README.md,
main.txt). The side's snapshots keep numbers the main line also uses, and only their
ids tell them apart. Git is the oracle of what each side snapshot holds: the tree of
the side commit that recorded it.

The restores' tests (tests/snapshots/restore/test_joined_lines.py) use it, importing
``joined`` from here and ``origin`` from tests/ledger/conftest.py.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.ledger.conftest import Repo, clone

__all__ = [
    "Joined",
    "joined",
    "line",
    "record_and_commit",
    "reverted_by_git",
    "tree_listing",
    "upgraded",
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
    """``snapline record`` then ``git commit`` of everything: number, id, commit."""
    done = repo.json("record", "-m", message)
    repo.commit(message)
    return done["number"], done["id"], repo.git("rev-parse", "HEAD").stdout.strip()


def upgraded(origin: Repo, path: Path) -> Repo:
    """A clone of ``origin`` at ``path``, its history moved onto git's refs.

    ``snapline upgrade`` commits the in-tree ledger's removal with the user's identity,
    which this clone's configuration gives, as a user's would.
    """
    repo = clone(origin, path)
    repo.git("config", "user.name", "Joined Tests")
    repo.git("config", "user.email", "joined@example.invalid")
    repo.ok("upgrade")
    assert not (repo.path / ".snapline").exists()
    return repo


def line(repo: Repo, branch: str, path: Path) -> Repo:
    """A linked work tree of ``repo`` at ``path``, on a new ``branch`` from its HEAD.

    A second agent's place: snapline records there on a line of its own.
    """
    repo.git("worktree", "add", "-q", "-b", branch, str(path))
    return Repo(path, dict(repo.ids))


@pytest.fixture(scope="module")
def joined(origin: Repo, tmp_path_factory: pytest.TempPathFactory) -> Joined:
    base = tmp_path_factory.mktemp("reach")
    repo = upgraded(origin, base / "repo")
    fork = repo.git("rev-parse", "HEAD").stdout.strip()
    other = line(repo, "side", base / "side")
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
    # Nothing to commit after `snapline merge`: the history is on the refs.
    assert repo.status() == []
    main = {s["number"]: s["id"] for s in repo.json("log")}
    assert main[merge["number"]] == merge["id"]
    head = repo.git("rev-parse", "HEAD").stdout.strip()
    return Joined(repo, side, commits, main, merge["number"], head, fork, main_commit)


def tree_listing(repo: Repo, commit: str) -> str:
    """``git ls-tree -r`` of a commit."""
    return repo.git("ls-tree", "-r", commit).stdout.rstrip("\n")


def workspace_listing(repo: Repo) -> str:
    """What git sees in the work tree now, as ``git ls-tree -r``."""
    repo.git("add", "-A")
    return tree_listing(repo, repo.git("write-tree").stdout.strip())


def reverted_by_git(repo: Repo, commit: str, into: Path, head: str = "HEAD") -> Repo:
    """A clone of ``repo`` whose work tree is ``head`` with ``commit`` reverted by git."""
    oracle = clone(repo, into)
    oracle.git("checkout", "-q", "-f", "--detach", head)
    oracle.git("revert", "--no-commit", commit)
    return oracle
