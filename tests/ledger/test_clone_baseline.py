"""A clone's index copies none of the baseline the workspace holds, and loses none of it.

The ledger keeps no baseline file until a snapshot changes it; an index rebuilt from the
ledger keeps none either (issue 30: a fresh clone checked at the speed of reading it
once). The versions stay where they are, the workspace file and git's ``HEAD``. (0.2's
writers published a baseline version as an object when a snapshot changed it; nothing
writes a ledger now.)
"""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

from tests.ledger.conftest import Repo, clone
from tests.object_form import object_content, sha256


def _sha(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def _blob_hashes(root: Path) -> set[str]:
    db = sqlite3.connect(root / ".snapline" / "index.db")
    try:
        return {str(row[0]) for row in db.execute("SELECT hash FROM blobs")}
    finally:
        db.close()


def _object_hashes(root: Path) -> set[str]:
    objects = root / ".snapline" / "ledger" / "objects"
    return {sha256(object_content(p)) for p in objects.glob("*/*")}


def test_a_clone_copies_no_baseline_and_rebuilds_it_from_git_after_an_outside_edit(
    origin: Repo, tmp_path: Path
) -> None:
    repo = clone(origin, tmp_path / "clone")
    # The oracle is git's own copy of the committed file, not snapline's.
    committed = repo.git("cat-file", "blob", "HEAD:README.md").stdout.encode()
    assert committed == (repo.path / "README.md").read_bytes()
    repo.ok("verify")
    assert _sha(committed) not in _blob_hashes(repo.path)
    assert _sha(committed) not in _object_hashes(repo.path)

    # Every recorded version rebuilt and hash-checked, the baseline's from the files.
    deep = repo.snap("verify", "--deep")
    assert deep.returncode == 0, deep.stdout + deep.stderr
