"""Issue 14, item 18: a store deleted or replaced mid-operation is an error, not a success.

Regression: ``snapline run -- rm -rf .snapline`` printed "recorded snapshot 1" and
exited 0, though the snapshot went into a file that no longer had a name.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from snapline import Workspace
from snapline.cli.app import app
from snapline.snapshots.record.presence import StoreVanishedError
from tests.cli_runner import CliRunner

_DELETE = "import shutil; shutil.rmtree('.snapline'); open('out.txt', 'w').write('x')"
_REPLACE = (
    "import shutil; shutil.copytree('.snapline', '../copy'); shutil.rmtree('.snapline'); "
    "shutil.copytree('../copy', '.snapline'); open('out.txt', 'w').write('x')"
)
_MOVE = "import os; os.rename('.snapline', '../moved'); open('out.txt', 'w').write('x')"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "a.txt").write_text("a\n")
    Workspace.init(root).close()
    return root


@pytest.mark.parametrize(
    ("code", "what"), [(_DELETE, "deleted"), (_REPLACE, "replaced"), (_MOVE, "deleted")]
)
def test_run_that_removes_the_store_fails_clearly(root: Path, code: str, what: str) -> None:
    result = CliRunner().invoke(app, ["--root", str(root), "run", "--", sys.executable, "-c", code])
    assert result.exit_code == 3, result.output
    assert "recorded snapshot" not in result.output
    assert f"was {what} during the operation" in result.output
    assert "nothing was recorded" in result.output
    assert len(result.output.strip().splitlines()) == 1


@pytest.mark.parametrize("what", ["deleted", "replaced"])
def test_a_long_lived_workspace_notices_its_store_went(root: Path, what: str) -> None:
    with Workspace.open(root) as ws:
        ws.write_file("a.txt", "b\n")
        if what == "deleted":
            shutil.rmtree(root / ".snapline")
        else:
            shutil.copytree(root / ".snapline", root.parent / "copy")
            shutil.rmtree(root / ".snapline")
            shutil.copytree(root.parent / "copy", root / ".snapline")
        for operation in (
            lambda: ws.write_file("a.txt", "c\n"),
            lambda: ws.run([sys.executable, "-c", "open('n.txt', 'w').write('n')"]),
        ):
            with pytest.raises(StoreVanishedError) as caught:
                operation()
            assert caught.value.what == what and caught.value.exit_code == 3
        # A plan's writes are put back when its snapshot cannot be committed.
        assert (root / "a.txt").read_text() == "b\n"
    if what == "replaced":
        with Workspace.open(root) as ws:
            assert ws.latest == 1
