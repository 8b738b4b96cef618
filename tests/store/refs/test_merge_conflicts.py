"""``GitRepository.merge`` names its conflicts where ``git merge-tree`` names them.

Git is the oracle: ``git merge-tree --write-tree --name-only`` of the same two commits
lists the conflicted paths once each. libgit2 keeps a conflict's entries under their
own paths, so a change inside a file the other side moved comes as two conflicts (the
old path, the new one); snapline named both, and a merge that git would call one
conflict counted two (found by the git machine: tests/history_refs/
test_merge_renamed_conflict.py).
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from snapline.store.refs.git import open_repository
from tests.store.refs.lines import GIT_ENV, git, make_repo

_SIX = b"".join(b"line %d\n" % i for i in range(6))


def _set(line: int, word: bytes) -> bytes:
    lines = _SIX.splitlines(keepends=True)
    lines[line] = word + b"\n"
    return b"".join(lines)


def _move(root: Path, source: str, target: str) -> None:
    (root / target).parent.mkdir(parents=True, exist_ok=True)
    (root / source).rename(root / target)


def _write(path: str, data: bytes) -> Callable[[Path], None]:
    def change(root: Path) -> None:
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_bytes(data)

    return change


def _moved_and_set(root: Path) -> None:
    _write("d/a.txt", _set(4, b"red"))(root)
    _move(root, "d/a.txt", "d/e/f.txt")


CASES: dict[str, tuple[Callable[[Path], None], Callable[[Path], None]]] = {
    "in place": (_write("d/a.txt", _set(4, b"red")), _write("d/a.txt", _set(4, b"green"))),
    "moved by theirs": (_write("d/a.txt", _set(4, b"green")), _moved_and_set),
    "moved by ours": (_moved_and_set, _write("d/a.txt", _set(4, b"green"))),
    "modify/delete": (_write("b.txt", _set(1, b"blue")), lambda root: (root / "b.txt").unlink()),
    "moved and modify/delete": (
        lambda root: (_write("d/a.txt", _set(4, b"green"))(root), (root / "b.txt").unlink()),
        lambda root: (_moved_and_set(root), _write("b.txt", _set(1, b"blue"))(root)),
    ),
    "add/add": (_write("n.txt", b"one\n"), _write("n.txt", b"two\n")),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_conflicts_are_named_as_git_names_them(tmp_path: Path, case: str) -> None:
    root = make_repo(tmp_path / "repo", {"b.txt": _SIX, "d/a.txt": _SIX})
    ours, theirs = CASES[case]
    for branch, change in (("ours", ours), ("theirs", theirs)):
        git(root, "switch", "-q", "-c", branch, "main")
        change(root)
        git(root, "add", "-A")
        git(root, "commit", "-q", "-m", branch)
    done = subprocess.run(
        ["git", "merge-tree", "--write-tree", "--name-only", "--no-messages", "ours", "theirs"],
        cwd=root,
        capture_output=True,
        text=True,
        env=GIT_ENV,
        check=False,
    )
    assert done.returncode == 1, done.stdout + done.stderr  # 1: conflicts
    expected = sorted(set(done.stdout.splitlines()[1:]))

    repo = open_repository(root)
    trees = [
        git(root, "rev-parse", f"{ref}^{{tree}}").strip() for ref in ("main", "ours", "theirs")
    ]
    assert list(repo.merge(*trees).conflicts) == expected
