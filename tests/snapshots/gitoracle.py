"""Git as the oracle of a restore: each state committed to a real git repository.

A workspace state is committed with real ``git`` (its own repository beside the
workspace, the workspace as its work tree, ``.snapline/`` excluded). After a restore,
the workspace is read by git again (a fresh index, ``git add -A``, ``git write-tree``)
and its tree id must equal the committed one: every path, its content, its mode
(``100644``, ``100755``) and its symlink target (``120000``), as git sees them. Git
keeps no empty directories, so a restore must leave none either (:func:`empty_dirs`).

The states themselves (:data:`BEFORE`, :data:`AFTER`) hold every change of type a
restore must make in both directions: a flat directory emptied, a nested tree removed,
a directory replaced by a file and by a symlink, a file by a directory and by a symlink,
a symlink by a directory, and a case-only rename.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from pathlib import Path

__all__ = [
    "AFTER",
    "BEFORE",
    "CASES",
    "Oracle",
    "State",
    "empty_dirs",
    "is_exact",
    "materialise",
    "state",
]

State = dict[str, tuple[str, bytes]]
"""Path -> (``file``, ``exec`` or ``link``; the content, or the link target)."""

_COMMON: State = {
    "README.md": ("file", b"# demo\n"),
    "src/app.py": ("file", b"print('hello')\n"),
}

BEFORE: State = {
    **_COMMON,
    # a flat directory of two files, emptied by AFTER
    "pkg/a": ("file", b"1\n"),
    "pkg/b": ("file", b"2\n"),
    # a nested tree with a binary and an executable, removed by AFTER
    "deep/x/y/z.txt": ("file", b"z\n"),
    "deep/x/w.bin": ("file", bytes(range(256))),
    "deep/x/run.sh": ("exec", b"#!/bin/sh\necho run\n"),
    "deep/top.txt": ("file", b"top\n"),
    # a directory that becomes a file, and one that becomes a symlink
    "x/one.txt": ("file", b"one\n"),
    "x/two.txt": ("file", b"two\n"),
    "d/f.txt": ("file", b"f\n"),
    "d/sub/g.txt": ("file", b"g\n"),
    # a file that becomes a directory, and one that becomes a symlink
    "fd": ("file", b"was a file\n"),
    "fl": ("exec", b"#!/bin/sh\n"),
    # a symlink that becomes a directory
    "ld": ("link", b"src"),
    # a case-only rename
    "Case.txt": ("file", b"case\n"),
}


def state(extra: State) -> State:
    """``extra`` beside the files every state shares (``README.md``, ``src/app.py``)."""
    return {**_COMMON, **extra}


AFTER: State = {
    **_COMMON,
    "x": ("file", b"f\n"),
    "d": ("link", b"README.md"),
    "fd/inner.txt": ("file", b"inner\n"),
    "fd/more/deeper.txt": ("file", b"deeper\n"),
    "fl": ("link", b"src/app.py"),
    "ld/k.txt": ("file", b"k\n"),
    "case.txt": ("file", b"case\n"),
}


CASES: dict[str, tuple[State, State]] = {
    "empty-a-directory": (
        {"pkg/a": ("file", b"1\n"), "pkg/b": ("file", b"2\n")},
        {},
    ),
    "remove-a-nested-tree": (
        {
            "deep/x/y/z.txt": ("file", b"z\n"),
            "deep/x/w.bin": ("file", bytes(range(256))),
            "deep/x/run.sh": ("exec", b"#!/bin/sh\n"),
            "deep/top.txt": ("file", b"top\n"),
        },
        {},
    ),
    "directory-to-file": (
        {"x/one.txt": ("file", b"one\n"), "x/two.txt": ("file", b"two\n")},
        {"x": ("file", b"f\n")},
    ),
    "directory-to-symlink": (
        {"d/f.txt": ("file", b"f\n"), "d/sub/g.txt": ("file", b"g\n")},
        {"d": ("link", b"src")},
    ),
    "file-moved-over-its-directory": (
        {"mv/f": ("file", b"moved\n")},
        {"mv": ("file", b"moved\n")},  # recorded as a rename of mv/f to mv
    ),
    "file-to-symlink": ({"fl": ("exec", b"#!/bin/sh\n")}, {"fl": ("link", b"src/app.py")}),
    "case-only-rename": (
        {"Case.txt": ("file", b"case\n"), "Dir/in.txt": ("file", b"in\n")},
        {"case.txt": ("file", b"case\n"), "dir/in.txt": ("file", b"in\n")},
    ),
}
"""One change of type each, as (before, after) beside the common files; the reverse
direction (file to directory, symlink to directory...) is the same pair read backwards."""


def materialise(root: Path, state: State) -> None:
    """Make the files under ``root`` (outside ``.snapline/``) exactly ``state``, by hand."""
    for entry in os.listdir(root):
        if entry in (".snapline", ".git"):
            continue
        path = root / entry
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            path.unlink()
    for rel, (kind, data) in state.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if kind == "link":
            os.symlink(os.fsdecode(data), path)
        else:
            path.write_bytes(data)
            path.chmod(0o755 if kind == "exec" else 0o644)


def empty_dirs(root: Path) -> list[str]:
    """Every empty directory under ``root`` (outside ``.snapline/``): git keeps none."""
    found = []
    for dirpath, dirnames, filenames in os.walk(root):
        rel = Path(dirpath).relative_to(root).as_posix()
        if rel == ".":
            dirnames[:] = [d for d in dirnames if d not in (".snapline", ".git")]
            continue
        if not dirnames and not filenames:
            found.append(rel)
    return sorted(found)


class Oracle:
    """A git repository (``git_dir``) whose work tree is the workspace ``root``."""

    def __init__(self, root: Path, git_dir: Path) -> None:
        self.root = root
        self.git_dir = git_dir
        self._index = git_dir / "oracle-index"
        self._git("init", "-q", "--bare", str(git_dir), bare=True)
        (git_dir / "info").mkdir(exist_ok=True)
        (git_dir / "info" / "exclude").write_text(".snapline/\n")

    def commit(self, message: str) -> str:
        """Commit the workspace as it is; returns the commit's tree id."""
        tree = self.tree()
        self._git("commit-tree", tree, "-m", message)
        return tree

    def tree(self) -> str:
        """The tree id git gives the workspace as it is now (a fresh index each time)."""
        self._index.unlink(missing_ok=True)
        self._git("add", "-A", ".")
        return self._git("write-tree").strip()

    def listing(self, tree: str) -> str:
        """``git ls-tree -r`` of ``tree``: mode, type, id and path of every entry."""
        return self._git("ls-tree", "-r", tree)

    def _git(self, *args: str, bare: bool = False) -> str:
        env = {
            **os.environ,
            "GIT_INDEX_FILE": str(self._index),
            "GIT_AUTHOR_NAME": "oracle",
            "GIT_AUTHOR_EMAIL": "oracle@example.invalid",
            "GIT_COMMITTER_NAME": "oracle",
            "GIT_COMMITTER_EMAIL": "oracle@example.invalid",
            "GIT_CONFIG_NOSYSTEM": "1",
            "HOME": str(self.git_dir.parent),
        }
        prefix = ["git"] if bare else ["git", "--git-dir", str(self.git_dir), "--work-tree", "."]
        done = subprocess.run(
            [*prefix, "-c", "core.fileMode=true", "-c", "core.symlinks=true", *args],
            cwd=self.root,
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        return done.stdout


def is_exact(oracle: Oracle, tree: str) -> str | None:
    """``None`` when the workspace is exactly ``tree``; else what differs, for the assert."""
    now = oracle.tree()
    problems = []
    if now != tree:
        problems.append(f"git sees\n{oracle.listing(now)}\nwanted\n{oracle.listing(tree)}")
    empty = empty_dirs(oracle.root)
    if empty:
        problems.append(f"empty directories left: {empty}")
    for dirpath, _, filenames in os.walk(oracle.root):
        for name in filenames:
            info = os.lstat(os.path.join(dirpath, name))
            if not (stat.S_ISREG(info.st_mode) or stat.S_ISLNK(info.st_mode)):
                problems.append(f"{name} is neither a file nor a symlink")
    return "\n".join(problems) or None
