"""Benchmark rows of issue 16: the processes, rollback, the peers.

The plumbing on tiny inputs: the rows run, time what they say and report what they
could not measure; their figures are not checked for speed.
"""

from __future__ import annotations

import dataclasses
import difflib
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

import pytest

from benchmarks import peers
from benchmarks.cases import Bench, Config, help_series, row_blocks, row_help, run_all
from benchmarks.peers import Peer, install_peers, row_peers
from benchmarks.report import (
    PEERS_START,
    Figure,
    RowResult,
    place_peers,
    render_markdown,
    render_peers,
)
from benchmarks.timing import summarize
from benchmarks.workspace_gen import block_edit, source_text

REPO_ROOT = Path(__file__).resolve().parents[2]
WHEN = datetime(2026, 1, 1, tzinfo=timezone.utc)


def _bench(workdir: Path, files: int = 60) -> Bench:
    workdir.mkdir(parents=True, exist_ok=True)
    config = Config(
        files=files,
        history=5,
        warmup=0,
        repeats=2,
        slow_repeats=1,
        workdir=workdir,
        seed=3,
        full=False,
        python=sys.executable,
        repo_root=REPO_ROOT,
        quick_repeats=2,
    )
    return Bench(config, lambda _: None)


def _changed(before: str, after: str) -> tuple[int, int, int]:
    """Lines removed, lines added and the number of separate blocks of the change."""
    matcher = difflib.SequenceMatcher(None, before.split("\n"), after.split("\n"), False)
    blocks = [op for op in matcher.get_opcodes() if op[0] != "equal"]
    return (
        sum(i2 - i1 for _, i1, i2, _, _ in blocks),
        sum(j2 - j1 for _, _, _, j1, j2 in blocks),
        len(blocks),
    )


def test_a_block_edit_changes_the_lines_asked_for_in_many_blocks() -> None:
    text = source_text(3_000, seed=1)

    edited = block_edit(text, 1_200, seed=4)

    assert edited == block_edit(text, 1_200, seed=4)
    assert edited != block_edit(text, 1_200, seed=5)
    removed, added, blocks = _changed(text, edited)
    # Replaced and deleted lines are removed, replaced and inserted ones added (about one
    # block in eight each deletes or inserts); difflib may match a few new lines to old.
    assert 900 <= removed <= 1_200 and 900 <= added <= 1_200
    assert blocks >= 1_200 / 12


def test_the_library_block_times_rollback_and_verify_as_processes(tmp_path: Path) -> None:
    bench = _bench(tmp_path / "work")

    results = {r.number: r for r in run_all(bench.config, lambda _: None, {"6c", "6d", "7"})}

    assert sorted(results) == ["6c", "6d", "7"]
    assert all(r.skipped is None for r in results.values()), results
    rollback = results["7"]
    assert rollback.snapline is not None and "`snapline rollback --to 0`" in rollback.snapline.label
    assert [f.label.split(" of")[0] for f in rollback.extra] == ["library `ws.rollback`"]
    verify, full = results["6c"], results["6d"]
    assert verify.goal == "≤ 3" and full.goal == "≤ 0.5"
    assert full.git is not None and "git fsck" in full.git.label
    usage = subprocess.run(
        [str(bench.snapline_bin), "verify", "--help"], capture_output=True, text=True, check=True
    )
    has_full = "--full" in usage.stdout
    assert ("does not exist" in full.notes[0]) is not has_full


def test_help_version_and_block_rows(tmp_path: Path) -> None:
    bench = _bench(tmp_path / "work")

    help_row, version = row_help(bench)
    (blocks,) = row_blocks(bench)

    # Row W7 asks for the same series: one figure for one command, not timed again.
    assert help_row.snapline is not None
    assert help_series(bench)["help"].stats == help_row.snapline.stats

    assert (help_row.number, version.number) == ("5", "5b")
    assert version.reference_name == "python" and version.goal == "≤ 1.5"
    assert version.git is not None and "python -c pass" in version.git.label
    assert blocks.number == "9b" and blocks.goal == "≤ 50 ms median"
    assert blocks.snapline is not None and blocks.snapline.stats is not None
    assert len(blocks.snapline.stats.samples) == 2
    assert "Stored as: delta." in blocks.notes


def test_peers_that_do_not_install_say_so(tmp_path: Path) -> None:
    # An interpreter that cannot make a venv: nothing is installed, every peer says why.
    found = install_peers(tmp_path / "venv", "false", lambda _: None)

    assert set(found) == {"stepback", "rewind-ai"}
    assert all(p.version is None and "python -m venv" in (p.problem or "") for p in found.values())


def test_peer_rows_without_the_peers_are_not_measured_and_say_why(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bench = _bench(tmp_path / "work")
    missing = {
        "stepback": Peer("stepback", None, "`pip install stepback` failed: no index"),
        "rewind-ai": Peer("rewind-ai", None, "`pip install rewind-ai` failed: no index"),
    }
    monkeypatch.setattr(peers, "install_peers", lambda *_: missing)

    rows = row_peers(bench, tmp_path / "venv")

    assert [r.number for r in rows] == ["P1", "P2", "P3"]
    assert [r.skipped for r in rows] == [
        "not measured: stepback is not installed",
        "not measured: rewind-ai is not installed",
        "not measured: stepback is not installed",
    ]
    assert rows[1].notes[0] == "`pip install rewind-ai` failed: no index"


def _peer_row() -> RowResult:
    return RowResult(
        number="P1",
        title="record vs stepback",
        goal="< 1",
        snapline=Figure("`snapline record F`", stats=summarize([0.2])),
        git=Figure("stepback checkpoint", stats=summarize([0.4])),
        ratio=0.5,
        reference_name="stepback",
        met=True,
    )


def test_the_peers_section_is_placed_replaced_and_carried_over() -> None:
    block = render_peers(
        [_peer_row()], machine={"peers": "stepback 0.2.0"}, command="c", started=WHEN, elapsed=1
    )
    quick = render_markdown(
        [dataclasses.replace(_peer_row(), number="4", reference_name="git")],
        machine={},
        mode="quick",
        command="python -m benchmarks",
        method=[],
        started=WHEN,
        elapsed=1.0,
    )

    assert "Run of 2026-01-01 00:00 UTC" in block and "stepback 0.2.0" in block
    assert "| | snapline | stepback | ratio | goal | result |" in block
    assert "| 200 ms | 400 ms (stepback) | 0.50 | < 1 | met |" in block
    assert PEERS_START not in quick  # never run: no section
    placed = place_peers(quick, block)
    assert placed.index(PEERS_START) < placed.index("## 4. ")
    again = place_peers(placed, block.replace("2026-01-01", "2026-02-02"))
    assert again.count(PEERS_START) == 1 and "2026-02-02" in again
    carried = render_markdown(
        [],
        machine={},
        mode="quick",
        command="python -m benchmarks",
        method=[],
        started=WHEN,
        elapsed=1.0,
        previous=again,
    )
    assert carried.count(PEERS_START) == 1 and "Run of 2026-02-02 00:00 UTC" in carried
