"""Random sequences of changes: a check served warm always says what the whole walk says.

The oracle is the same command without a server (``SNAPLINE_SERVER=0``), which walks
the whole tree. After every change ``status --json`` must give the same drift, and at
the end ``verify`` the same output and exit code. Few examples, no timing: each step is
real processes against a real server and real inotify.
"""

from __future__ import annotations

import itertools
import shutil
from pathlib import Path

from hypothesis import example, given, settings
from hypothesis import strategies as st

from snapline import Workspace
from tests.cli.conftest import run_script
from tests.cli.warm.conftest import Warm
from tests.cli.warm.monitoring import same_as_walk, walked_status, warm_status

FILES = ["a.txt", "d/b.txt", "d/e/c.txt", "x/y.txt", "x/z/w.txt"]
DIRS = ["d", "d/e", "x", "x/z", "n/m"]
PLACES = FILES + DIRS

operations = st.one_of(
    st.tuples(st.just("write"), st.sampled_from(FILES), st.integers(0, 3)),
    st.tuples(st.just("delete"), st.sampled_from(PLACES), st.just(0)),
    st.tuples(st.just("rename"), st.sampled_from(PLACES), st.sampled_from(range(len(PLACES)))),
    st.tuples(st.just("to_dir"), st.sampled_from(FILES), st.just(0)),
    st.tuples(st.just("symlink"), st.sampled_from(FILES), st.just(0)),
    st.tuples(st.just("chmod"), st.sampled_from(FILES), st.just(0)),
    st.tuples(st.just("ignore"), st.sampled_from(["", "d", "x"]), st.integers(0, 2)),
    st.tuples(st.just("record"), st.just(""), st.just(0)),
)
_examples = itertools.count()


def _apply(root: Path, op: tuple[str, str, int]) -> None:
    kind, rel, number = op
    path = root / rel
    if kind == "write":
        if path.parent.exists() and not path.parent.is_dir():
            return
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        elif path.is_symlink():
            path.unlink()
        path.write_text(f"version {number}\n" * (number + 1))
    elif kind == "delete":
        if path.is_symlink() or path.is_file():
            path.unlink()
        elif path.is_dir():
            shutil.rmtree(path)
    elif kind == "rename":
        target = root / PLACES[number]
        if not (path.exists() or path.is_symlink()) or target.exists() or target.is_symlink():
            return
        if target.is_relative_to(path):
            return
        target.parent.mkdir(parents=True, exist_ok=True)
        path.rename(target)
    elif kind == "to_dir" and path.is_file() and not path.is_symlink():
        path.unlink()
        path.mkdir()
        (path / "inner.txt").write_text("inside\n")
    elif kind == "symlink" and path.parent.is_dir() and not path.parent.is_symlink():
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        elif path.exists() or path.is_symlink():
            path.unlink()
        path.symlink_to("a.txt")
    elif kind == "chmod" and path.is_file() and not path.is_symlink():
        path.chmod(path.stat().st_mode ^ 0o100)
    elif kind == "ignore" and (path.is_dir() and not path.is_symlink()):
        pattern = ["*.txt", "z/", "!b.txt"][number]
        with (path / ".gitignore").open("a") as handle:
            handle.write(pattern + "\n")
    elif kind == "record":
        assert run_script("resync", "-m", "outside", cwd=root).returncode in (0, 1)


@settings(max_examples=8)
@given(steps=st.lists(operations, min_size=1, max_size=8))
# A tracked file that becomes a directory: the path the monitor names is a directory.
@example(steps=[("to_dir", "d/b.txt", 0)])
# A directory moved away, a file written where it was, the old one moved back under it.
@example(steps=[("rename", "d", PLACES.index("n/m")), ("write", "d/b.txt", 1), ("record", "", 0)])
def test_warm_checks_agree_with_the_whole_walk(
    warm: Warm, tmp_path: Path, steps: list[tuple[str, str, int]]
) -> None:
    root = tmp_path / f"ws{next(_examples)}"
    for rel in FILES[:3]:
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(f"{rel}\n")
    Workspace.init(root).close()
    warm_status(root, warm)  # the monitor starts; this check walks and leaves a token
    for step in steps:
        _apply(root, step)
        assert warm_status(root, warm) == walked_status(root), step
    same_as_walk(root, warm)
