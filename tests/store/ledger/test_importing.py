"""Rebuilding the local index in bulk: it answers exactly what the index it replaced did."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path
from typing import Any

from snapline import Workspace
from snapline.content import pack_raw, unpack
from tests.object_form import object_content, sha256
from tests.store.ledger.written import ledger_workspace


def _answers(ws: Workspace, paths: list[str]) -> dict[str, Any]:
    def content(path: str, number: int) -> object:
        try:
            return ws.content_at(path, number)
        except Exception as error:  # the same refusal counts as the same answer
            return type(error).__name__

    latest = ws.latest
    return {
        "latest": latest,
        "snapshots": list(ws.snapshots()),
        "shown": [ws.snapshot(n) for n in range(latest + 1)],
        "tracked": ws.tracked(),
        "content": {(p, n): content(p, n) for p in paths for n in range(latest + 1)},
        "verified": ws.verify().ok,
    }


def _remove_index(root: Path) -> None:
    for path in (root / ".snapline").glob("index.db*"):
        path.unlink()


def test_a_rebuilt_index_answers_what_the_first_one_did(tmp_path: Path) -> None:
    root = ledger_workspace(tmp_path / "ws")
    with Workspace.open(root) as ws:  # the first index, built one snapshot at a time
        asked = sorted(
            {change.path for n in range(ws.latest + 1) for change in ws.snapshot(n).files}
        )
        before = _answers(ws, asked)
    _remove_index(root)

    with Workspace.open(root) as ws:
        after = _answers(ws, asked)

    assert after == before
    assert before["verified"]


def test_a_rebuilt_index_holds_the_ledger_objects_raw_and_no_copy_of_the_baseline(
    tmp_path: Path,
) -> None:
    root = ledger_workspace(tmp_path / "ws")
    Workspace.open(root).close()

    db = sqlite3.connect(root / ".snapline" / "index.db")
    try:
        blobs = db.execute("SELECT hash, size, data FROM blobs").fetchall()
        cached = db.execute("SELECT count(*) FROM stat_cache").fetchone()[0]
    finally:
        db.close()
    objects = root / ".snapline" / "ledger" / "objects"
    kept = {sha256(object_content(p)) for p in objects.glob("*/*")}
    assert kept  # versions stored whole, and baseline versions a snapshot changed
    # The baseline's other files stay in the workspace: nothing copies them (issue 30).
    assert {hash_ for hash_, _, _ in blobs} <= kept
    for hash_, size, data in blobs:
        assert bytes(data[:1]) == b"r", hash_
        content = unpack(bytes(data), limit=size)
        assert hash_ == "sha256:" + hashlib.sha256(content).hexdigest()
    # The baseline's files still at their version were hashed on the way in: cached.
    assert cached > 0


def test_pack_raw_is_the_uncompressed_codec() -> None:
    data = b"x" * 1000
    assert pack_raw(data) == b"r" + data
    assert unpack(pack_raw(data), limit=len(data)) == data
