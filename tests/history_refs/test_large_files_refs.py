"""A file over the large-file limit goes onto git's refs, as the in-tree layout keeps it.

In the tree such a file is tracked by its hash only (``storage hash-only``): the index
keeps no copy. On the refs a snapshot's ``state`` is the workspace's files, so the file's
bytes go into git as a blob (git's own, shared with the user's commits), read from the
work tree and checked against the recorded hash; the record and the index still say
"hash-only". ``init`` and ``record`` said "cannot be written to git's refs" (exit 1).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from tests.history_refs.gitrepo import ENV, GIT, new_repo

_LIMIT = 1000


def _show(path: Path, spec: str) -> bytes:
    done = subprocess.run(
        [*GIT, "show", spec], cwd=path, capture_output=True, env=ENV, check=True, timeout=60
    )
    return done.stdout


def test_a_large_file_is_kept_in_the_baseline_and_its_records(tmp_path: Path) -> None:
    repo = new_repo(tmp_path / "work", {"a.txt": "a\n"})
    big = os.urandom(5 * _LIMIT)
    (repo.path / "big.bin").write_bytes(big)
    done = repo.snap("init", "--large-file-limit", str(_LIMIT))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 tracked by hash only" in done.stdout
    assert "Traceback" not in done.stderr
    (line,) = repo.git("for-each-ref", "--format=%(refname)", "refs/snapline/lines/").split()
    assert _show(repo.path, f"{line}:state/big.bin") == big
    assert "storage hash-only" in _show(repo.path, f"{line}:record").decode()

    bigger = os.urandom(6 * _LIMIT)
    (repo.path / "big.bin").write_bytes(bigger)
    repo.ok("record", "big.bin", "-m", "a new big file")
    assert _show(repo.path, f"{line}:state/big.bin") == bigger
    assert repo.snap("verify").returncode == 0
    assert repo.git("status", "--porcelain") == "?? big.bin\n"
