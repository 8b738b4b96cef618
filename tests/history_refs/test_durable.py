"""A record on git's refs makes its objects and its ref durable before the index counts it.

The index (SQLite, fsynced) is what says a snapshot was recorded; the snapshot itself is
a commit, its trees and blobs, and the line's ref. libgit2 fsyncs none of them unless
told to, so a power cut after the index committed could leave a row naming a commit or
a ref move that never reached the disk. The system calls are watched with strace, the
way a power cut's window is seen: every fsync of the process, in order, with its path.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

from tests.history_refs.gitrepo import ENV, SNAPLINE, new_repo

_CALL = re.compile(r"^(?:\d+ +)?(fsync|fdatasync)\(\d+<(?P<path>[^>]*)>\)")


def _synced(cwd: Path, *args: str) -> list[str]:
    """The paths the command fsynced (or fdatasynced), in order."""
    strace = shutil.which("strace")
    assert strace, "this test watches fsync with strace: install it (apt-get install strace)"
    log = cwd.parent / "strace.log"
    done = subprocess.run(
        [strace, "-f", "-qq", "-y", "-e", "trace=fsync,fdatasync", "-o", str(log), SNAPLINE, *args],
        cwd=cwd,
        env={**ENV, "SNAPLINE_SERVER": "0"},
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    lines = log.read_text().splitlines()
    return [found["path"] for line in lines if (found := _CALL.match(line))]


def test_a_record_syncs_its_objects_and_its_ref_before_the_index_commits(tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "work", {"a.txt": "one\n"})
    repo.ok("init")
    (repo.path / "a.txt").write_text("two\n")
    paths = _synced(repo.path, "record", "a.txt", "-m", "edit")
    git_dir = os.path.realpath(repo.path / ".git")
    objects = [i for i, path in enumerate(paths) if path.startswith(f"{git_dir}/objects/")]
    refs = [i for i, path in enumerate(paths) if path.startswith(f"{git_dir}/refs/snapline/")]
    index = [i for i, path in enumerate(paths) if path.startswith(f"{git_dir}/snapline/index")]
    # blob, record, the tree, state's tree, the commit: each object file and its folder
    assert len(objects) >= 5, paths
    assert refs, paths
    assert index, paths
    assert max(objects) < min(refs), "an object was synced after the ref that names it moved"
    assert max(refs) < max(index), "the index committed before the ref was synced"
