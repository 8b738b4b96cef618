"""``verify``'s checkpoint: the default checks what changed since it, ``--full`` everything.

The first verify reads the whole history and, finding it sound, keeps a checkpoint in
the local index. After it, each damage of :data:`tests.ledger.test_tamper.CORRUPT` (old
history edited or deleted) must still be caught by the default verify, as must damage
to anything recorded after the checkpoint. What the checkpoint trusts, the local
index's copy of the history before it, is held by ``--full`` and by a fresh clone.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from tests.ledger.conftest import Repo, clone, copy, output
from tests.ledger.test_tamper import CORRUPT


def _checked(tmp_path: Path, origin: Repo) -> Repo:
    # A copy of the working repository whose verify has kept a checkpoint.
    repo = copy(origin, tmp_path / "copy")
    first = repo.json("verify")
    assert first["ok"] and first.get("since") is None  # the first check reads everything
    return repo


def test_the_first_verify_is_full_the_next_checks_only_what_is_new(
    origin: Repo, tmp_path: Path
) -> None:
    repo = _checked(tmp_path, origin)
    assert repo.json("verify").get("since") == 3  # the next trusts the checkpoint
    assert "0..3 verified (all by an earlier check;" in repo.ok("verify").stdout
    assert repo.json("verify", "--full").get("since") is None


@pytest.mark.parametrize("damage", list(CORRUPT))
def test_old_history_damaged_after_the_checkpoint_is_caught_by_the_default(
    origin: Repo, tmp_path: Path, damage: str
) -> None:
    repo = _checked(tmp_path, origin)
    _path, name = CORRUPT[damage](repo)

    result = repo.snap("verify")
    text = output(result)
    assert result.returncode == 3, text
    assert name in text


def test_old_history_tampered_is_caught_by_full_and_by_a_fresh_clone(
    origin: Repo, tmp_path: Path
) -> None:
    # What the default trusts: the local index's copy of the history before the
    # checkpoint. Edited behind snapline's back, only a whole check reads it again.
    repo = _checked(tmp_path, origin)
    _edit_index(repo, "UPDATE snapshots SET description = 'forged' WHERE number = 1")
    assert repo.json("verify").get("since") == 3

    full = repo.snap("verify", "--full")
    assert full.returncode == 3, output(full)
    assert "snapshot 1" in output(full)

    # The committed history edited and pushed: a clone has no checkpoint to trust.
    path = repo.snapshot_file(1)
    path.write_bytes(path.read_bytes().replace(b'description "return 2"', b'description "r2"'))
    repo.commit("tampered")
    fresh = clone(repo, tmp_path / "fresh")
    result = fresh.snap("verify")
    assert result.returncode == 3, output(result)
    assert path.name in output(result)


def test_a_verify_that_finds_problems_keeps_no_checkpoint(origin: Repo, tmp_path: Path) -> None:
    repo = copy(origin, tmp_path / "copy")
    path = repo.snapshot_file(2)
    saved = path.read_bytes()
    path.write_bytes(saved.replace(b'description "add notes"', b'description "add notez"'))
    assert repo.snap("verify").returncode == 3
    path.write_bytes(saved)  # repaired: the next check is a whole one again
    assert repo.json("verify").get("since") is None
    assert repo.json("verify").get("since") == 3


def test_a_rebuilt_index_has_no_checkpoint(origin: Repo, tmp_path: Path) -> None:
    repo = _checked(tmp_path, origin)
    (repo.path / ".snapline" / "index.db").unlink()
    assert repo.json("verify").get("since") is None


def test_a_fresh_clone_checks_everything(origin: Repo, tmp_path: Path) -> None:
    fresh = clone(origin, tmp_path / "fresh")
    assert fresh.json("verify").get("since") is None
    assert fresh.json("verify").get("since") == 3


def _edit_index(repo: Repo, statement: str) -> None:
    db = sqlite3.connect(repo.path / ".snapline" / "index.db")
    try:
        with db:
            db.execute(statement)
    finally:
        db.close()
