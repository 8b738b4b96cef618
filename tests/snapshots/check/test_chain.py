"""The chain hash, computed whole or from change lines added one by one (the baseline)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from snapline import Workspace
from snapline.snapshots.check import chain as chain_module
from snapline.snapshots.check.chain import GENESIS, ChainLines, chain_hash
from snapline.store import ChangeRow, SnapshotRow

HEADER = SnapshotRow(
    number=0, id="a" * 32, parent_id=None, time="2026-11-22T00:00:00+00:00", tool="init",
    description="", session=None, metadata="{}", skipped='[["build/","ignored"]]', version=1,
    chain_hash="",
)  # fmt: skip


def _change(path: str, size: int) -> ChangeRow:
    return ChangeRow(
        snapshot=0, path=path, kind="added", old_path=None, base_hash=None,
        result_hash=f"sha256:{size:064x}", base_mode=None, result_mode=0o100644, size=size,
        storage="full", forward=None, reverse=None, content=f"sha256:{size:064x}", chain=0,
        chain_bytes=0,
    )  # fmt: skip


names = st.text(st.characters(min_codepoint=32, max_codepoint=0x10FFFF), min_size=1)


@given(
    files=st.dictionaries(names, st.integers(0, 2**40), max_size=40),
    spool=st.sampled_from([64, 1 << 20]),
)
def test_lines_added_in_order_hash_as_the_whole(
    files: dict[str, int], spool: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(chain_module, "_SPOOL_LIMIT", spool)  # 64: spilled to disk
    changes = [_change(path, size) for path, size in files.items()]
    with ChainLines() as lines:
        for change in sorted(changes, key=lambda c: c.path):
            lines.add(change)
        assert lines.chain_hash(GENESIS, HEADER) == chain_hash(GENESIS, HEADER, changes)
        # Asking twice gives the same answer: the lines are read, not used up.
        assert lines.chain_hash(GENESIS, HEADER) == chain_hash(GENESIS, HEADER, changes)


def test_lines_out_of_order_are_refused() -> None:
    with ChainLines() as lines:
        lines.add(_change("b", 1))
        with pytest.raises(ValueError) as before:
            lines.add(_change("a", 2))
        with pytest.raises(ValueError) as same:
            lines.add(_change("b", 3))
    assert str(before.value) == "changes out of path order: 'a' after 'b'"
    assert str(same.value) == "changes out of path order: 'b' after 'b'"


def test_a_large_baseline_validates(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(chain_module, "_SPOOL_LIMIT", 256)
    for index in range(600):  # more than two batches of rows
        (root / f"d{index % 7}").mkdir(exist_ok=True)
        (root / f"d{index % 7}/f{index}.txt").write_text(f"{index}\n" * (index % 5))
    (root / "bad\udcffname.txt").write_bytes(b"not UTF-8 in the name\n")
    (root / ".gitignore").write_text("*.log\n")
    (root / "skip.log").write_text("ignored\n")
    with Workspace.init(root) as ws:
        assert ws.validate().ok
        assert len(ws.tracked()) == 602
        assert [(s.path, s.reason) for s in ws.snapshot(0).skipped] == [("skip.log", "ignored")]
