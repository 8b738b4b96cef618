"""A clone's index copies none of the baseline the workspace holds, and loses none of it.

The ledger keeps no baseline file until a snapshot changes it; an index rebuilt from the
ledger keeps none either (issue 30: a fresh clone checked at the speed of reading it
once). The versions stay where they are, the workspace file and git's ``HEAD``, and a
snapshot that changes one first keeps it and publishes it as a ledger object, so the
history never loses a version it could rebuild before.
"""

from __future__ import annotations

import hashlib
import shutil
import sqlite3
from pathlib import Path

from snapline import Workspace
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

    # Changed outside snapline: the workspace no longer holds the baseline version.
    repo.write("README.md", "# changed outside\n")
    repo.ok("record", "-m", "readme")
    # Published as an object (taken from git's HEAD), so other clones can rebuild it.
    assert _sha(committed) in _object_hashes(repo.path)
    assert "+# changed outside" in repo.ok("diff", "0", "latest").stdout

    repo.ok("rollback", "--to", "0", "README.md")
    assert (repo.path / "README.md").read_bytes() == committed
    repo.ok("verify", "--full")


def test_a_write_over_a_baseline_file_keeps_it_first_outside_git(
    origin: Repo, tmp_path: Path
) -> None:
    # A copy of the workspace without its index and without git: the baseline is in the
    # workspace files only, and a journaled write replaces one.
    root = tmp_path / "copy"
    shutil.copytree(origin.path, root, symlinks=True)
    shutil.rmtree(root / ".git")
    for path in (root / ".snapline").glob("index.db*"):
        path.unlink()
    before = (root / "README.md").read_bytes()

    with Workspace.open(root) as ws:
        assert _sha(before) not in _blob_hashes(root)
        assert ws.content_at("README.md", 0) == before  # read from the workspace file
        ws.write_file("README.md", b"# rewritten\n")
        assert ws.content_at("README.md", 0) == before
        assert ws.verify().ok
    assert _sha(before) in _object_hashes(root)

    # Another index rebuilt from this ledger still has it, with the workspace moved on.
    for path in (root / ".snapline").glob("index.db*"):
        path.unlink()
    with Workspace.open(root) as ws:
        assert ws.content_at("README.md", 0) == before
        ws.rollback(to=0, paths=["README.md"])
    assert (root / "README.md").read_bytes() == before
