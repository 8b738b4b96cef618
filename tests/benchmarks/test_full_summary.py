"""The full run's summary says what limits each missed row, and can take rows measured again."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import pytest

from benchmarks.__main__ import main
from benchmarks.cases import ORDER
from benchmarks.limits import LIMITS
from benchmarks.report import (
    FULL_END,
    FULL_START,
    Figure,
    RowResult,
    render_markdown,
    update_full_rows,
)
from benchmarks.timing import summarize


def _row(number: str, met: bool, seconds: float = 2.0) -> RowResult:
    return RowResult(
        number=number,
        title=f"work {number}",
        goal="≤ 1",
        snapline=Figure("snapline", stats=summarize([seconds])),
        git=Figure("git", stats=summarize([1.0])),
        ratio=seconds,
        met=met,
    )


def _report(mode: str, rows: list[RowResult], previous: str | None = None) -> str:
    return render_markdown(
        rows,
        machine={"snapline": "0.1.0 (commit aaaaaaa)"},
        mode=mode,
        command="python -m benchmarks",
        method=[],
        started=datetime(2026, 1, 1, tzinfo=timezone.utc),
        elapsed=1.0,
        previous=previous,
    )


def _block(document: str) -> str:
    return document[document.index(FULL_START) : document.index(FULL_END)]


def test_a_quick_report_carries_over_the_latest_full_summary() -> None:
    full = _report("full", [_row("1", True, 0.5)])
    quick = _report("quick", [_row("1", True, 0.5)], previous=full)
    first = _report("quick", [_row("1", True, 0.5)])

    assert "Full run of 2026-01-01 00:00 UTC" in quick
    assert "| 1 | work 1 | 500 ms | 1.00 s | 0.50 | ≤ 1 | met |" in quick
    assert "No `make bench-full` run is recorded yet." in first


def test_a_full_run_says_what_limits_each_missed_row_and_a_quick_run_keeps_it() -> None:
    full = _report(
        "full", [_row("2a", True, 0.1), _row("3a", False), _row("3b", False), _row("7", False)]
    )
    quick = _report("quick", [_row("2a", True, 0.1)], previous=full)

    block = _block(full)
    assert f"- **3a, 3b.** {LIMITS['3a']}" in block
    assert f"- **7.** {LIMITS['7']}" in block
    assert "**2a" not in block
    assert _block(quick) == block


def test_a_missed_row_of_a_quick_run_has_its_limit_in_words() -> None:
    quick = _report("quick", [_row("7", False)])

    limits = quick[quick.index("## What limits it") :]
    assert LIMITS["7"] in limits


def test_rows_measured_again_replace_theirs_and_say_when() -> None:
    full = _report("full", [_row("3a", False), _row("7", False)])

    once = update_full_rows(full, [_row("3a", True, 1.0)], "on day one")
    twice = update_full_rows(once, [_row("3a", False, 3.0)], "on day two")

    block = _block(once)
    assert "| 3a | work 3a | 1.00 s | 1.00 s | 1.00 | ≤ 1 | met |" in block
    assert "| 7 | work 7 | 2.00 s | 1.00 s | 2.00 | ≤ 1 | NOT MET |" in block
    assert "Full run of 2026-01-01 00:00 UTC" in block
    assert "Rows 3a measured again on day one:" in block
    assert "**3a" not in block and f"- **7.** {LIMITS['7']}" in block
    block = _block(twice)
    assert "| 3a | work 3a | 3.00 s | 1.00 s | 3.00 | ≤ 1 | NOT MET |" in block
    assert "day one" not in block and "Rows 3a measured again on day two:" in block
    assert f"- **3a.** {LIMITS['3a']}" in block
    assert twice.count(FULL_START) == 1 and twice.count(FULL_END) == 1


def test_a_row_the_summary_lacks_is_refused_and_nothing_is_written() -> None:
    full = _report("full", [_row("7", False)])

    with pytest.raises(ValueError, match="row 3a is not in the full-run summary"):
        update_full_rows(full, [_row("3a", True)], "today")
    with pytest.raises(ValueError, match="no full-run summary"):
        update_full_rows("# Benchmarks\n", [_row("7", True)], "today")


def test_rows_written_to_a_report_need_the_full_mode(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "benchmarks.md"

    code = main(["--rows", "7", "--output", str(report), "--workdir", str(tmp_path / "work")])

    assert code == 2
    assert "add --full" in capsys.readouterr().err
    assert not report.exists() and not (tmp_path / "work").exists()


def test_every_limit_note_is_for_a_row_the_benchmarks_measure() -> None:
    assert set(LIMITS) <= set(ORDER)
