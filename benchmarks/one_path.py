"""Rows D1-D4: do the cold path's lean twins still pay for themselves? (issue 29, point 4)

Once the warm server runs a command, the hand-written parsers of a plain ``record``,
``verify`` and the hook (``cli/fast.py``, ``cli/checking.py``, ``cli/hook.py``) and the
model-less answers of ``workspace/rows.py`` matter only to a cold process: CI, the
first command, a command after the server's idle hour. Each row times the same command,
cold, both ways in one run, alternately:

- D1-D3: the lean path against the typer command line, which parses the same command
  (a root option, ``--timeout 30``, its default, sends the command through typer);
- D4: a plain ``record`` as it is, against the same record in a process that first
  imports the snapshot models (pydantic), which is the least the twin spares: without
  it, a record would answer from the models.

A row is met when the lean path takes under 0.9 of the other, so that it saves a tenth
of the command; the decision in docs/benchmarks.md follows the row.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from benchmarks.hooks import hook_event
from benchmarks.report import Figure, RowResult
from benchmarks.timing import Sample, Series, alternate, ratio, run_process
from benchmarks.workspace_gen import BIG_FILE

if TYPE_CHECKING:
    from benchmarks.cases import Bench

__all__ = ["ONE_PATH_ROWS", "row_one_path"]

ONE_PATH_ROWS = ("D1", "D2", "D3", "D4")
"""D1 record, D2 verify, D3 the hook: lean path vs typer; D4 record: rows vs models."""

KEEP_BELOW = 0.9
"""A lean twin stays when it takes under this share of the one path's time."""

_MODELS_FIRST = (
    "import sys; import snapline.snapshots.snapshot, snapline.snapshots.read.convert; "
    "from snapline.cli import main; sys.argv = ['snapline', *sys.argv[1:]]; main()"
)
"""The console script's entry, after importing the models a plain record never loads."""


def row_one_path(bench: Bench) -> list[RowResult]:
    """Rows D1-D4 on the main tree, cold (no server), each pair timed alternately."""
    from benchmarks.cases import ensure_baselines

    ensure_baselines(bench)
    root = bench.tree("main").root
    env = {**bench.cli_env, "SNAPLINE_SERVER": "0"}
    snapline = [str(bench.snapline_bin)]
    typer = [*snapline, "--timeout", "30"]
    rounds = bench.rounds(bench.config.repeats)

    def edited(argv: list[str]) -> Callable[[int], Sample]:
        def sample(_: int) -> Sample:
            bench.edit_on_disk(root, BIG_FILE, bench.next_index("main"))
            return timed(argv, None)

        return sample

    def plain(argv: list[str], stdin: bytes | None = None) -> Callable[[int], Sample]:
        return lambda _: timed(argv, stdin)

    def timed(argv: list[str], stdin: bytes | None) -> Sample:
        run = run_process(argv, cwd=root, env=env, stdin=stdin)
        run.check(" ".join(argv[-3:]))
        return Sample(run.seconds)

    record = ["record", "-m", "edit", BIG_FILE]
    bench.log("rows D1-D4: the lean paths against the one path, cold")
    d1 = alternate(
        [("lean", edited([*snapline, *record])), ("one", edited([*typer, *record]))], **rounds
    )
    d2 = alternate(
        [("lean", plain([*snapline, "verify"])), ("one", plain([*typer, "verify"]))], **rounds
    )
    pre = hook_event(root, "PreToolUse", BIG_FILE)
    hook = ["hook", "claude-code"]
    d3 = alternate(
        [("lean", plain([*snapline, *hook], pre)), ("one", plain([*typer, *hook], pre))], **rounds
    )
    models = [bench.config.python, "-c", _MODELS_FIRST, *record]
    d4 = alternate([("lean", edited([*snapline, *record])), ("one", edited(models))], **rounds)
    lean_record = "`snapline record -m edit F` (cli/fast.py)"
    return [
        _row(
            "D1",
            "cold `snapline record F`: cli/fast.py's parser vs typer's",
            d1,
            lean_record,
            "`snapline --timeout 30 record -m edit F` (typer)",
        ),
        _row(
            "D2",
            "cold `snapline verify`: cli/checking.py's parser vs typer's",
            d2,
            "`snapline verify` (cli/checking.py)",
            "`snapline --timeout 30 verify` (typer)",
        ),
        _row(
            "D3",
            "cold PreToolUse hook: cli/hook.py's parser vs typer's",
            d3,
            "`snapline hook claude-code` (cli/hook.py)",
            "the same after `--timeout 30` (typer)",
        ),
        _row(
            "D4",
            "cold `snapline record F`: workspace/rows.py vs the snapshot models",
            d4,
            "`snapline record -m edit F` (rows, no pydantic)",
            "the same record after importing the models (pydantic)",
        ),
    ]


def _row(number: str, title: str, series: dict[str, Series], lean: str, one: str) -> RowResult:
    value = ratio(series["lean"].stats, series["one"].stats)
    keep = value < KEEP_BELOW
    return RowResult(
        number=number,
        title=title,
        goal=f"< {KEEP_BELOW:g} keeps it",
        snapline=Figure(lean, stats=series["lean"].stats),
        git=Figure(one, stats=series["one"].stats),
        ratio=value,
        ratio_label="lean ÷ one path (medians)",
        reference_name="one path",
        met=keep,
        notes=[
            "No server: whole processes, as CI and a first command run them.",
            "Met: the lean twin saves a tenth or more and stays. Not met: it goes, and the "
            "command takes the one path.",
        ],
    )
