"""The merge that explains a tree names its conflicts, and merges, as ``git merge-tree`` does.

Git is the oracle: ``git merge-tree --write-tree --name-only`` of the same two commits
lists the conflicted paths once each. libgit2 keeps a conflict's entries under their
own paths, so a change inside a file the other side moved comes as two conflicts (the
old path, the new one); snapline named both, and a merge that git would call one
conflict counted two (found by the git machine: tests/history_refs/
test_merge_renamed_conflict.py). Where a side moved a file onto a path the other side
also holds, libgit2 named conflicts git resolves, and kept a file git merged into
(the git machine again: tests/history_refs/test_merge_moved_onto.py): the merge
:mod:`snapline.store.refs.combine` tries is git's own there (``store/refs/gitmerge.py``).
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from snapline.store.refs.git import open_repository
from snapline.store.refs.gitmerge import merge
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
    # Both move d/a.txt; theirs writes a new one: git puts it at the moved path, cleanly.
    "moved by both, the source written again": (
        lambda root: _move(root, "d/a.txt", "d/e/f.txt"),
        lambda root: (_move(root, "d/a.txt", "d/e/f.txt"), _write("d/a.txt", _set(1, b"x"))(root)),
    ),
    # Ours moves d/a.txt to n.txt; theirs edits d/a.txt and adds n.txt: one conflict, n.txt.
    "moved onto a path the other side added": (
        lambda root: _move(root, "d/a.txt", "n.txt"),
        lambda root: (_write("d/a.txt", _set(2, b"red"))(root), _write("n.txt", b"other\n")(root)),
    ),
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
    assert done.returncode in (0, 1), done.stdout + done.stderr  # 1: conflicts
    tree, *named = done.stdout.splitlines()
    expected = sorted(set(named))

    repo = open_repository(root)
    trees = [
        git(root, "rev-parse", f"{ref}^{{tree}}").strip() for ref in ("main", "ours", "theirs")
    ]
    made = merge(repo, *trees)
    assert list(made.conflicts) == expected
    # The merged files, but where a conflict's markers name the sides (commits, here).
    assert _files(root, made.tree, expected) == _files(root, tree, expected)


def _files(root: Path, tree: str, conflicts: list[str]) -> dict[str, str]:
    listed = git(root, "ls-tree", "-r", tree).splitlines()
    return {
        path: entry
        for entry, path in (line.split("\t") for line in listed)
        if path not in conflicts
    }


def test_without_git_the_merge_is_libgit2s(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = make_repo(tmp_path / "repo", {"b.txt": _SIX, "d/a.txt": _SIX})
    changes = CASES["moved onto a path the other side added"]
    for branch, change in zip(("ours", "theirs"), changes, strict=True):
        git(root, "switch", "-q", "-c", branch, "main")
        change(root)
        git(root, "add", "-A")
        git(root, "commit", "-q", "-m", branch)
    trees = [git(root, "rev-parse", f"{r}^{{tree}}").strip() for r in ("main", "ours", "theirs")]
    repo = open_repository(root)
    monkeypatch.setenv("PATH", str(tmp_path / "no-git-here"))
    # libgit2 alone names the moved file's old path too (its conflict entries' paths).
    assert merge(repo, *trees) == repo.merge(*trees)
    assert merge(repo, *trees).conflicts == ("d/a.txt", "n.txt")
