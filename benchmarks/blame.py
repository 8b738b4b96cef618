"""Row B1: ``snapline blame --summary`` of the whole long-history workspace vs ``git blame``.

The workspace is L, the tree with the long history (``files`` files, ``history``
snapshots of one-line edits cycling through its small files: 10k files and 1,000
snapshots in quick mode, 100k and 10,000 with ``--full``); git's side is B, the same
tree with the same history imported as commits. ``snapline blame --summary --json``
blames every tracked file on disk in one process; git has no whole-tree blame, so its
figure is ``git blame --porcelain FILE`` of every tracked file, one process each, as a
script would run it. Both say who wrote every line of every file.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from benchmarks.report import Figure, RowResult
from benchmarks.timing import Sample, alternate, run_process

if TYPE_CHECKING:
    from benchmarks.cases import Bench

__all__ = ["BLAME_ROWS", "row_blame"]

BLAME_ROWS = ("B1",)


def row_blame(bench: Bench) -> list[RowResult]:
    """Row B1: who wrote every line of every file, snapline against git (information)."""
    from benchmarks.cases import prepare_histories

    if "long_latest" not in bench.facts:  # the library rows did not run: make L and B now
        with bench.worker() as main, bench.worker() as long:
            prepare_histories(bench, main, long)
    long_root, repo = bench.tree("long").root, bench.tree("git").root
    files = bench.git(repo, "ls-files", "-z").stdout.split("\0")
    files = [name for name in files if name]
    argv = [str(bench.snapline_bin), "--root", str(long_root), "blame", "--summary", "--json"]

    def snapline(_: int) -> Sample:
        run = run_process(argv, env=bench.cli_env).check("snapline blame --summary")
        total = json.loads(run.stdout)["total"]
        return Sample(run.seconds, None, {"lines": total["lines"]})

    def git(_: int) -> Sample:
        runs = [bench.git(repo, "blame", "--porcelain", "--", name) for name in files]
        return Sample(sum(r.seconds for r in runs))

    bench.log(f"row B1: blame of {len(files):,} files, snapline and git")
    series = alternate([("snapline", snapline), ("git", git)], warmup=0, repeats=2)
    ours, theirs = series["snapline"], series["git"]
    lines = ours.samples[-1].info["lines"]
    ratio = ours.stats.median / theirs.stats.median if theirs.stats.median else None
    return [
        RowResult(
            number="B1",
            title=f"who wrote every line of {len(files):,} files "
            f"({bench.facts.get('long_latest', bench.config.history):,}-snapshot history)",
            goal="information (issue 38: fast enough for a whole repository)",
            snapline=Figure("`snapline blame --summary --json`, one process", stats=ours.stats),
            git=Figure(
                f"`git blame --porcelain FILE`, {len(files):,} processes", stats=theirs.stats
            ),
            ratio=ratio,
            notes=[
                f"{lines:,} lines blamed. git has no whole-tree blame: its figure is one "
                "`git blame` process per tracked file, as a script runs it. snapline also "
                "compares each file on disk with its latest snapshot (unrecorded lines).",
            ],
        )
    ]
