"""Issue 40, point 9: ``run`` finds a store its command deleted or replaced, always.

Regression: ``snapline run -- rm -rf .snapline``, a command that changed nothing else,
exited 0 saying "the command changed nothing" with the store gone, while ``guard`` with
the same command exited 3. Only a command that also changed a file was caught (by the
commit's presence check, which a command that changed nothing never reached).
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from snapline import Workspace
from snapline.snapshots.record.presence import StoreVanishedError
from tests.cli.conftest import run_script

_SCRIPTS = {
    "deleted": "rm -rf .snapline",
    # Moved aside and copied back: the copy is another directory (the one moved aside
    # still holds its inode), so this case does not depend on inode reuse.
    "replaced": "mv .snapline ../aside && cp -r ../aside .snapline",
}


def _workspace(path: Path) -> Path:
    path.mkdir(parents=True)
    (path / "a.txt").write_text("a\n")
    Workspace.init(path).close()
    return path


@pytest.mark.parametrize("what", ["deleted", "replaced"])
def test_run_whose_command_only_removes_the_store_exits_3_as_guard_does(
    tmp_path: Path, what: str
) -> None:
    ran = _workspace(tmp_path / "ran" / "ws")
    guarded = _workspace(tmp_path / "guarded" / "ws")
    script = _SCRIPTS[what]

    run = run_script("run", "--", "sh", "-c", script, cwd=ran)
    guard = run_script("guard", "--", "sh", "-c", script, cwd=guarded)

    assert run.returncode == 3, run.stderr
    assert "changed nothing" not in run.stderr
    said = run.stderr.strip().splitlines()
    assert len(said) == 1 and f"was {what} during the operation" in said[0]
    # Word for word what guard says of the same command, but for the workspace's path.
    assert guard.returncode == 3, guard.stderr
    assert said[0].replace(str(ran), "ROOT") == guard.stderr.strip().replace(str(guarded), "ROOT")
    if what == "deleted":
        assert not (ran / ".snapline").exists()
        assert run_script("init", cwd=ran).returncode == 0
    else:
        assert (ran / "a.txt").read_text() == "a\n"
        assert run_script("verify", cwd=ran).returncode == 0


def test_run_json_names_the_error(tmp_path: Path) -> None:
    root = _workspace(tmp_path / "ws")
    done = run_script("run", "--json", "--", "rm", "-rf", ".snapline", cwd=root)
    assert done.returncode == 3, done.stderr
    assert json.loads(done.stdout)["kind"] == "StoreVanishedError"


def test_a_copy_given_the_deleted_stores_inode_number_is_still_found(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `rm -rf .snapline && cp -r copy .snapline`: ext4 may give the copy's directory the
    # number the deleted one had (2 runs of 20 here, before the store's inode was held).
    # Forced here by construction: the path reports the number the store had at open.
    root = _workspace(tmp_path / "ws")
    index = root / ".snapline" / "index.db"  # the store's file, held open and stat'ed
    real_stat = os.stat
    with Workspace.open(root) as ws:
        ws.write_file("a.txt", "b\n")
        opened = real_stat(index)
        shutil.copytree(root / ".snapline", tmp_path / "copy")
        shutil.rmtree(root / ".snapline")
        shutil.copytree(tmp_path / "copy", root / ".snapline")

        def reused(name: Any, *args: Any, **kwargs: Any) -> os.stat_result:
            info = real_stat(name, *args, **kwargs)
            if os.fspath(name) != str(index):
                return info
            fields = list(info)
            fields[1], fields[2] = opened.st_ino, opened.st_dev  # st_ino, st_dev
            return os.stat_result(fields)

        monkeypatch.setattr(os, "stat", reused)
        assert os.stat(index).st_ino == opened.st_ino  # the reuse, as constructed
        with pytest.raises(StoreVanishedError) as caught:
            ws.write_file("a.txt", "c\n")
        assert caught.value.what == "replaced" and caught.value.exit_code == 3
        monkeypatch.undo()
    assert (root / "a.txt").read_text() == "b\n"  # the write was put back


def test_run_replacing_the_store_by_an_earlier_copy_exits_3_every_time(tmp_path: Path) -> None:
    # The issue's own command, through the console script: the copy is made before the
    # run, so its directory is created after the store's is deleted and may take its
    # inode number on a file system that reuses them. Held open, that inode cannot be.
    root = _workspace(tmp_path / "ws")
    copy = tmp_path / "copy"
    for _ in range(3):
        shutil.rmtree(copy, ignore_errors=True)
        shutil.copytree(root / ".snapline", copy)
        done = run_script(
            "run", "--", "sh", "-c", f"rm -rf .snapline && cp -r {copy} .snapline", cwd=root
        )
        assert done.returncode == 3, done.stderr
        assert "was replaced during the operation" in done.stderr
