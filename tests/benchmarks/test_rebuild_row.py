"""Benchmark row 15 (index rebuild).

The plumbing on a tiny input: a rebuild of a few snapshots. The figures are not checked
for speed, only that the row measures what it says: the index removed and rebuilt.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from benchmarks import rebuild
from benchmarks.cases import Bench, Config
from benchmarks.rebuild import remove_index, row_index_rebuild
from snapline import Workspace

REPO_ROOT = Path(__file__).resolve().parents[2]


def _bench(workdir: Path, files: int = 60) -> Bench:
    workdir.mkdir(parents=True, exist_ok=True)
    config = Config(
        files=files,
        history=5,
        warmup=0,
        repeats=1,
        slow_repeats=1,
        workdir=workdir,
        seed=3,
        full=False,
        python=sys.executable,
        repo_root=REPO_ROOT,
    )
    return Bench(config, lambda _: None)


def test_index_rebuild_row_times_a_rebuilt_index(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bench = _bench(tmp_path / "work")
    removed: list[int] = []

    def counting(root: Path) -> int:
        removed.append(remove_index(root))
        return removed[-1]

    monkeypatch.setattr(rebuild, "remove_index", counting)

    (row,) = row_index_rebuild(bench, snapshots=4)

    # Before each timed `log`, `Workspace.open` and `verify` (and the profile when unmet).
    assert len(removed) == 3 + (row.met is False) and min(removed) >= 1

    assert row.number == "15"
    assert row.snapline is not None and row.snapline.stats is not None
    assert row.git is not None and row.git.stats is not None
    assert row.met is (row.snapline.stats.median <= 2.0)
    assert [len(f.stats.samples) for f in row.extra if f.stats] == [1, 1, 1]
    root = bench.config.workdir / "rebuild"
    assert (root / ".snapline" / "index.db").is_file()  # the last command rebuilt it
    with Workspace.open(root) as ws:
        assert ws.latest == 4 and ws.verify().ok


def test_remove_index_deletes_the_local_index_only(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "a.txt").write_text("a\n")
    Workspace.init(root).close()  # outside git: the index beside the private repository
    # What a process killed with the index open leaves beside it.
    for name in ("index.db-wal", "index.db-shm"):
        (root / ".snapline" / name).write_bytes(b"")

    assert remove_index(root) == 3
    assert not list((root / ".snapline").glob("index.db*"))
    assert (root / ".snapline" / "repo" / "HEAD").is_file()  # the history stays
    assert remove_index(root) == 0
    with Workspace.open(root) as ws:  # and the index is built again from it
        assert ws.latest == 0 and ws.verify().ok


def test_an_unmet_rebuild_says_what_the_open_spent_its_time_on() -> None:
    top = [
        {"function": "snapline/workspace/__init__.py:95(open)", "cumtime": 8.0},
        {"function": "snapline/store/ledger/sync.py:92(read_snapshot)", "cumtime": 2.0},
        {"function": "snapline/store/ledger/importing.py:156(_import_baseline)", "cumtime": 6.0},
    ]

    lines = rebuild._shares({"total": 8.0, "top": top}, 1_001, 10_000)

    assert lines == (
        "Reading and parsing the 1,001 snapshot files: 25% of the open.",
        "Taking the baseline's content from the workspace (read and hash its "
        "10,000 files into the index): 75% of the open.",
    )
