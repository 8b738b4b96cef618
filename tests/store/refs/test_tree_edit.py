"""``update_tree`` against git: the tree git's own index writes for the same edits.

The trees on a changed path are rebuilt from the bytes of their other entries
(``store/refs/tree_edit.py``); git's ``read-tree``, ``update-index`` and ``write-tree``
say what each must be, git's order of names (``lib-x`` < ``lib.py`` < ``lib/``) and a
tree that an old tool wrote with a mode git no longer writes (``040000``) included.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from snapline.store.refs.git import open_repository
from snapline.store.refs.values import Entry
from tests.store.refs.lines import GIT_ENV, git, git_bytes, make_repo

FILES = {
    "README.md": b"# a project\n",
    "lib.py": b"x = 1\n",
    "lib-x": b"dash\n",
    "lib/a.py": b"a\n",
    "lib/deep/b.py": b"b\n",
    "lib/deep/c.py": b"c\n",
    "docs/only.md": b"only\n",
}

CASES: dict[str, dict[str, bytes | None]] = {
    "modify deep": {"lib/deep/b.py": b"b2\n"},
    "add in a new directory": {"lib/new/d.py": b"d\n", "libz/e.py": b"e\n"},
    "remove a directory's only file": {"docs/only.md": None},
    "remove one of two": {"lib/deep/c.py": None},
    "names in git's order": {"lib.a": b"1\n", "lib0": b"2\n", "lib/-": b"3\n", "lib/0": b"4\n"},
    "a file where a directory was": {
        "lib/deep/b.py": None,
        "lib/deep/c.py": None,
        "lib/deep": b"f\n",
    },
    "a directory where a file was": {"lib.py": None, "lib.py/inner": b"i\n"},
    "everything at once": {
        "README.md": None,
        "lib-x": b"dash2\n",
        "lib/a.py": None,
        "lib/deep/b.py": b"bb\n",
        "z/y/x.txt": b"x\n",
    },
}


def _git_tree(repo: Path, base: str, edits: dict[str, bytes | None]) -> str:
    """The tree git writes: ``base`` read into a fresh index, ``edits`` applied."""
    index = repo / ".git" / "oracle-index"
    env = {**GIT_ENV, "GIT_INDEX_FILE": str(index)}
    index.unlink(missing_ok=True)

    def run(*args: str, data: bytes | None = None) -> str:
        done = subprocess.run(
            ["git", *args], cwd=repo, input=data, capture_output=True, env=env, check=True
        )
        return done.stdout.decode().strip()

    run("read-tree", base)
    for path, data in sorted(edits.items(), key=lambda item: item[1] is not None):
        if data is None:
            run("update-index", "--force-remove", "--", path)
        else:
            blob = run("hash-object", "-w", "--stdin", data=data)
            run("update-index", "--add", "--replace", "--cacheinfo", f"100644,{blob},{path}")
    return run("write-tree")


@pytest.mark.parametrize("case", sorted(CASES))
def test_update_tree_writes_what_git_writes(tmp_path: Path, case: str) -> None:
    work = make_repo(tmp_path / "work", FILES)
    repo = open_repository(work)
    base = git(work, "rev-parse", "HEAD^{tree}").strip()
    edits = CASES[case]
    made = repo.update_tree(
        base,
        {
            path: None if data is None else Entry(repo.write_blob(data), 0o100644)
            for path, data in edits.items()
        },
    )
    assert made == _git_tree(work, base, edits)


def test_a_tree_with_a_mode_git_no_longer_writes_is_written_as_git_would(
    tmp_path: Path,
) -> None:
    work = make_repo(tmp_path / "work", FILES)
    repo = open_repository(work)
    inner = git(work, "rev-parse", "HEAD:lib").strip()
    readme = git(work, "rev-parse", "HEAD:README.md").strip()
    # An old tool's tree: its subtree's mode written with a leading zero.
    data = (
        b"100644 README.md\x00" + bytes.fromhex(readme) + b"040000 lib\x00" + bytes.fromhex(inner)
    )
    crafted = git(work, "hash-object", "-t", "tree", "-w", "--literally", "--stdin", data=data)
    base = crafted.strip()
    made = repo.update_tree(base, {"README.md": Entry(repo.write_blob(b"new\n"), 0o100644)})
    assert made == _git_tree(work, base, {"README.md": b"new\n"})
    raw = git_bytes(work, "cat-file", "tree", made)
    assert b"40000 lib\x00" in raw
    assert b"040000" not in raw
