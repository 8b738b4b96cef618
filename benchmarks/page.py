"""Row 11: the review page (issue 17) of a 1,000-snapshot history, its time and its size.

The history is made for the row: a 200-file tree, 1,000 one-line edits cycling through
its small files, three sessions, three tools and a milestone every 100 snapshots, so the
page has what a real one has (sections, a timeline, filters, a diff per snapshot).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from benchmarks.report import Evidence, Figure, RowResult, format_bytes
from benchmarks.timing import Sample, alternate, run_process
from benchmarks.workspace_gen import generate

if TYPE_CHECKING:
    from benchmarks.cases import Bench

__all__ = ["PAGE_BYTES", "PAGE_HISTORY", "PAGE_SECONDS", "row_report_page"]

PAGE_HISTORY = 1_000
PAGE_SECONDS = 2.0
PAGE_BYTES = 5_000_000
_FILES = 200
_MILESTONE_EVERY = 100


def row_report_page(bench: Bench) -> list[RowResult]:
    """Row 11: ``ws.report(path)`` of a 1,000-snapshot history (goal: ≤ 2 s, ≤ 5 MB)."""
    layout = generate(bench.config.workdir / "page", _FILES, seed=bench.config.seed)
    page = bench.config.workdir / "page.html"
    with bench.worker() as worker:
        worker.call("init", root=str(layout.root))
        bench.log(f"row 11: recording {PAGE_HISTORY:,} snapshots for the review page")
        worker.call(
            "page_history",
            paths=list(layout.history_files),
            count=PAGE_HISTORY,
            milestone_every=_MILESTONE_EVERY,
        )

        def report(_: int) -> Sample:
            reply = worker.call("report", path=str(page))
            return Sample(reply["seconds"], reply.get("peak_rss"), reply)

        bench.log("row 11: the review page")
        series = alternate([("report", report)], **bench.rounds(bench.config.repeats))
        size = page.stat().st_size
        figure = Figure(
            f"`ws.report(path)`, {PAGE_HISTORY:,} snapshots, long-lived Workspace",
            stats=series["report"].stats,
            peak_rss=series["report"].peak_rss,
        )
        cli = _cli_figure(bench, layout.root, page)
        assert figure.stats is not None
        met = figure.stats.median <= PAGE_SECONDS and size <= PAGE_BYTES
        row = RowResult(
            number="11",
            title=f"review page of a {PAGE_HISTORY:,}-snapshot history (`snapline report`)",
            goal=f"≤ {PAGE_SECONDS:g} s and ≤ {PAGE_BYTES / 1e6:g} MB",
            snapline=figure,
            met=met,
            extra=[Figure("page size", value=size, unit="B"), *cli],
            notes=[
                f"{_FILES}-file tree; {PAGE_HISTORY:,} one-line edits cycling through "
                f"{len(layout.history_files)} small files, 3 sessions, 3 tools, a milestone "
                f"every {_MILESTONE_EVERY} snapshots. The page holds every snapshot's diff, "
                f"highlighted; {size:,} bytes ({format_bytes(size)}). Generating it includes "
                "`ws.verify()` (history and workspace).",
            ],
        )
        if not met:
            reply = worker.call("report", path=str(page), profile=True)
            row.evidence.append(Evidence("cProfile of one `ws.report(path)`", reply.get("profile")))
    return [row]


def _cli_figure(bench: Bench, root: object, page: object) -> list[Figure]:
    """``snapline report`` as a whole process, once, for scale (imports included)."""
    if not bench.snapline_bin.exists():
        return []
    argv = [str(bench.snapline_bin), "--root", str(root), "report", "-o", str(page)]
    run = run_process(argv, env=bench.cli_env).check("snapline report")
    return [Figure("`snapline report -o FILE` (whole process, one run)", value=run.seconds)]
