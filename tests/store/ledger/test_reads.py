"""Reading a ledger file costs memory in proportion to the file, not to the limit.

Every ledger read is bounded (a crafted gigantic file is refused), and the bound must
not be what is allocated: ``read(limit + 1)`` asked Python for a gibibyte per snapshot
file, which was a tenth of ``verify --full``'s time on 10,000 snapshots (issue 30).
"""

from __future__ import annotations

import os
import tracemalloc
from pathlib import Path

import pytest

from snapline.store.ledger.files import Ledger, LedgerFileError

_GIB = 1 << 30


def _ledger(tmp_path: Path, data: bytes) -> Ledger:
    ledger = Ledger(tmp_path / "ledger")
    ledger.write_new("snapshots", "00000001-a.snap", data)
    return ledger


def test_a_small_file_is_read_without_allocating_the_limit(tmp_path: Path) -> None:
    ledger = _ledger(tmp_path, b"x" * 4096)

    tracemalloc.start()
    try:
        data = ledger.read("snapshots", "00000001-a.snap", _GIB)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()

    assert data == b"x" * 4096
    assert peak < 1 << 20, peak


def test_a_file_larger_than_the_limit_is_refused(tmp_path: Path) -> None:
    ledger = _ledger(tmp_path, b"x" * 100)

    with pytest.raises(LedgerFileError, match="more than the 99"):
        ledger.read("snapshots", "00000001-a.snap", 99)
    assert ledger.read("snapshots", "00000001-a.snap", 100) == b"x" * 100


def test_a_file_that_grows_while_read_is_read_to_its_end_or_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ledger = _ledger(tmp_path, b"x" * 100)
    location = ledger.file("snapshots", "00000001-a.snap")
    real_fstat = os.fstat

    def grown(fd: int) -> os.stat_result:
        # The size seen before the file grew: another writer appends meanwhile.
        result = real_fstat(fd)
        with open(location, "ab") as handle:
            handle.write(b"y" * 50)
        monkeypatch.setattr(os, "fstat", real_fstat)
        return result

    monkeypatch.setattr(os, "fstat", grown)
    assert ledger.read("snapshots", "00000001-a.snap", 1000) == b"x" * 100 + b"y" * 50
    monkeypatch.setattr(os, "fstat", grown)
    with pytest.raises(LedgerFileError, match="more than the 180"):
        ledger.read("snapshots", "00000001-a.snap", 180)
