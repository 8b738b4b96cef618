"""Row R6 counts what a real ``git push`` sends, through a wrapper set as the remote's receive-pack.

A byte count, not a time: a push of a commit holding 200 KB of random bytes (which no
compression shrinks) must be counted at 200 KB or more, the push must still land on
the remote, and a second push with nothing new must count no pack at all.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from benchmarks.on_refs import _counting_receive_pack, _pushed

_ENV = {
    **os.environ,
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.invalid",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.invalid",
}


def _git(cwd: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "init.defaultBranch=main", *args],
        cwd=cwd,
        env=_ENV,
        capture_output=True,
        check=True,
        text=True,
    )
    return done.stdout.strip()


def test_the_wrapper_counts_each_push_and_the_push_lands(tmp_path: Path) -> None:
    remote, clone = tmp_path / "remote.git", tmp_path / "clone"
    _git(tmp_path, "init", "-q", "--bare", str(remote))
    _git(tmp_path, "init", "-q", str(clone))
    _git(clone, "remote", "add", "origin", str(remote))
    script = _counting_receive_pack(tmp_path / "pushed")
    _git(clone, "config", "remote.origin.receivepack", str(script))
    (clone / "noise.bin").write_bytes(os.urandom(200_000))
    _git(clone, "add", "noise.bin")
    _git(clone, "commit", "-q", "-m", "noise")

    _git(clone, "push", "-q", "origin", "main")
    first = _pushed(tmp_path / "pushed")
    _git(clone, "push", "-q", "origin", "main")  # up to date: git sends no pack
    both = _pushed(tmp_path / "pushed")

    assert _git(remote, "rev-parse", "main") == _git(clone, "rev-parse", "HEAD")
    assert len(first) == 1 and first[0] >= 200_000
    assert len(both) == 2 and min(both) < 1_000
