"""Rebuilding the local index in bulk: it answers exactly what the index it replaced did."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from snapline import Workspace
from snapline.content import pack_raw, unpack
from tests.object_form import object_content, sha256

_EDITED = [f"src/f{n:03d}.txt" for n in range(0, 40, 3)]


def _tree(root: Path, files: int) -> list[str]:
    paths = [f"src/f{n:03d}.txt" for n in range(files)]
    for n, path in enumerate(paths):
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text("".join(f"file {n} line {i}\n" for i in range(n % 7 + 1)))
    (root / "same-a.txt").write_text("the same bytes\n")
    (root / "same-b.txt").write_text("the same bytes\n")
    (root / "empty.txt").write_text("")
    (root / "blob.bin").write_bytes(bytes(range(256)) * 3)
    return [*paths, "same-a.txt", "same-b.txt", "empty.txt", "blob.bin"]


def _history(ws: Workspace, files: int) -> list[str]:
    """Edits, an add, a delete, an edit back to the baseline's bytes; the paths touched."""
    edited = [p for p in _EDITED if int(p[5:8]) < files]
    for round_ in range(3):
        for path in edited:
            ws.write_file(path, f"round {round_} of {path}\n".encode())
    ws.write_file("new/added.txt", b"added later\n")
    ws.delete_file("same-b.txt")
    ws.write_file("same-a.txt", b"changed\n")
    ws.write_file("same-a.txt", b"the same bytes\n")
    return [*edited, "new/added.txt", "same-a.txt", "same-b.txt"]


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


@pytest.mark.parametrize("files", [6, 400], ids=["few-files", "threaded-and-listed"])
def test_a_rebuilt_index_answers_what_the_original_did(tmp_path: Path, files: int) -> None:
    paths = _tree(tmp_path, files)
    with Workspace.init(tmp_path, in_tree=True) as ws:
        touched = _history(ws, files)
        # Every path the history touched, and a sample of those it never did.
        asked = sorted({*touched, *paths[:: max(1, len(paths) // 25)]})
        before = _answers(ws, asked)
    _remove_index(tmp_path)

    with Workspace.open(tmp_path) as ws:
        after = _answers(ws, asked)

    assert after == before
    assert before["verified"]


def test_a_rebuilt_index_holds_the_ledger_objects_raw_and_no_copy_of_the_baseline(
    tmp_path: Path,
) -> None:
    _tree(tmp_path, 300)
    with Workspace.init(tmp_path, in_tree=True) as ws:
        _history(ws, 300)
    _remove_index(tmp_path)
    Workspace.open(tmp_path).close()

    db = sqlite3.connect(tmp_path / ".snapline" / "index.db")
    try:
        blobs = db.execute("SELECT hash, size, data FROM blobs").fetchall()
        cached = db.execute("SELECT count(*) FROM stat_cache").fetchone()[0]
    finally:
        db.close()
    objects = tmp_path / ".snapline" / "ledger" / "objects"
    kept = {sha256(object_content(p)) for p in objects.glob("*/*")}
    assert kept  # the edited files' baseline versions, and every later version
    # The baseline's other files stay in the workspace: nothing copies them (issue 30).
    assert {hash_ for hash_, _, _ in blobs} == kept
    for hash_, size, data in blobs:
        assert bytes(data[:1]) == b"r", hash_
        content = unpack(bytes(data), limit=size)
        assert hash_ == "sha256:" + hashlib.sha256(content).hexdigest()
    # The baseline's unchanged files were hashed once on the way in: their stat is cached.
    assert cached >= 300 - len(_EDITED)


def test_pack_raw_is_the_uncompressed_codec() -> None:
    data = b"x" * 1000
    assert pack_raw(data) == b"r" + data
    assert unpack(pack_raw(data), limit=len(data)) == data
