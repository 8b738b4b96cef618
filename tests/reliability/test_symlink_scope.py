"""Issue 14, item 13: a path given through a symlink never changes an operation's scope.

Regression: with a tracked symlink ``here -> .``, ``snapline rollback --to 0 here``
rolled back the whole workspace. A symlink named last is a tracked file (its own
scope); a path whose parent inside the root is a symlink is refused.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from snapline import UnsafePathError, Workspace
from snapline.cli.app import app
from tests.cli_runner import CliRunner, Result
from tests.reliability import figures
from tests.reliability.helpers import tree

# Link name -> target, each created in the workspace (relative to the link's directory).
_LINKS = {
    "here": ".",
    "to-dir": "d",
    "d/up": "..",
    "d/e/upup": "../..",
    "chain": "here",
    "chain2": "chain",
    "abs": "{root}",
    "to-sub": "d/e",
}


def _workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    (root / "d" / "e").mkdir(parents=True)
    for path in ("a.txt", "d/b.txt", "d/e/c.txt"):
        (root / path).write_text("v1\n")
    for link, target in _LINKS.items():
        os.symlink(target.format(root=root), root / link)
    Workspace.init(root).close()
    for path in ("a.txt", "d/b.txt", "d/e/c.txt"):
        (root / path).write_text("v2\n")
    with Workspace.open(root) as ws:
        ws.record()
    return root


def _cli(root: Path, cwd: Path, *args: str) -> Result:
    here = os.getcwd()
    os.chdir(cwd)
    try:
        return CliRunner().invoke(app, list(args), catch_exceptions=False)
    finally:
        os.chdir(here)


@pytest.mark.parametrize("link", sorted(_LINKS))
def test_rolling_back_a_symlink_rolls_back_only_the_link(tmp_path: Path, link: str) -> None:
    root = _workspace(tmp_path)
    before = tree(root)
    with Workspace.open(root) as ws:
        result = ws.rollback(0, link)
        assert result.snapshot is None  # the link itself never changed
    assert tree(root) == before
    for cwd in (root, root / "d"):
        arg = os.path.relpath(root / link, cwd)
        cli = _cli(root, cwd, "rollback", "--to", "0", arg)
        assert cli.exit_code == 0, cli.output
        assert tree(root) == before, (cwd, arg, cli.output)
    # Through the link (every one here points to a directory) is refused, not followed.
    through = f"{link}/a.txt"
    with Workspace.open(root) as ws:
        for operation in (
            lambda: ws.rollback(0, through),
            lambda: ws.record(through),
            lambda: ws.write_file(through, "x\n"),
        ):
            with pytest.raises(UnsafePathError) as caught:
                operation()
            assert "symlink" in str(caught.value)
    cli = _cli(root, root, "rollback", "--to", "0", through)
    assert cli.exit_code == 2 and "symlink" in cli.output
    assert tree(root) == before
    # The root itself, named from below, still means everything.
    cli = _cli(root, root / "d", "rollback", "--to", "0", "..")
    assert cli.exit_code == 0, cli.output
    assert (root / "d" / "b.txt").read_text() == "v1\n"
    assert (root / "a.txt").read_text() == "v1\n"
    figures.add("symlink_scope", 7)
