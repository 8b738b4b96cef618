"""Where a cold command's time goes against its reference: its imports alone, timed.

A cold ``snapline record F`` is judged against ``python -c "import sqlite3"`` (rows W5,
R9). Before any of its own work, the process imports modules: the standard library's
that it loads (``pathlib``, ``typing``, ``json``, ``hashlib``, ``sqlite3``…), then
snapline's own and diff-match-patch. This evidence runs the command once, notes every
module it loaded, and times two stand-in processes that import only those modules (the
standard library's alone, then all of them), alternating with the reference as the row
itself does. The three medians say how much of the goal's budget the imports take before
the command does anything.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

from benchmarks.report import Evidence
from benchmarks.timing import Sample, alternate, ratio, run_process

if TYPE_CHECKING:
    from benchmarks.cases import Bench

__all__ = ["import_budget", "stand_ins"]

_LIST = (
    "import sys; sys.argv = ['snapline', *{args!r}]\n"
    "from snapline.cli import main\n"
    "try:\n    main()\n"
    "finally:\n"
    "    open({out!r}, 'w').write('\\n'.join(sorted(sys.modules)))\n"
)


def import_budget(
    bench: Bench, args: list[str], cwd: Path, env: dict[str, str], goal: float
) -> Evidence:
    """The imports of ``snapline ARGS`` (run once in ``cwd``) timed alone, against the reference.

    Args:
        bench: The run.
        args: The command's arguments (it runs once, so it must be one that may).
        cwd: Where it runs.
        env: Its environment (the row's: no server).
        goal: The row's goal, a ratio to ``python -c "import sqlite3"``.
    """
    scripts = stand_ins(bench.cli_python, args, cwd, env, bench.config.workdir)

    def timed(argv: list[str]) -> Sample:
        return Sample(run_process(argv, cwd=cwd, env=env).check(argv[1]).seconds)

    python = bench.cli_python
    series = alternate(
        [
            ("python", lambda _: timed([python, "-c", "import sqlite3"])),
            ("standard", lambda _: timed([python, str(scripts["standard"])])),
            ("all", lambda _: timed([python, str(scripts["all"])])),
        ],
        **bench.rounds(bench.config.repeats),
    )
    floor = series["python"].stats
    standard = len(scripts["standard"].read_text(encoding="utf-8").splitlines())
    own = len(scripts["all"].read_text(encoding="utf-8").splitlines()) - standard

    def said(key: str) -> str:
        stats = series[key].stats
        return f"{stats.median * 1000:.1f} ms ({ratio(stats, floor):.2f}x)"

    return Evidence(
        f"The imports of `snapline {' '.join(args)}` alone, against "
        f'`python -c "import sqlite3"` ({floor.median * 1000:.1f} ms; the goal is {goal:g}x)',
        lines=(
            f"The {standard} standard-library modules it loads, imported and nothing "
            f"else: {said('standard')}.",
            f"With its {own} others (snapline's own, diff-match-patch) too, and nothing "
            f"else: {said('all')}.",
        ),
    )


def stand_ins(
    python: str, args: list[str], cwd: Path, env: dict[str, str], workdir: Path
) -> dict[str, Path]:
    """Run ``snapline ARGS`` once; the scripts that import only what it loaded.

    Returns:
        ``standard``: a script importing the standard library's modules it loaded;
        ``all``: one importing every module it loaded.
    """
    listing = workdir / "budget-modules.txt"
    code = _LIST.format(args=args, out=str(listing))
    run_process([python, "-c", code], cwd=cwd, env=env).check("snapline")
    loaded = [name for name in listing.read_text(encoding="utf-8").split() if _importable(name)]
    standard = [name for name in loaded if name.split(".")[0] in sys.stdlib_module_names]
    scripts = {}
    for label, names in (("standard", standard), ("all", loaded)):
        script = workdir / f"budget-{label}.py"
        script.write_text("".join(f"import {name}\n" for name in names), encoding="utf-8")
        scripts[label] = script
    return scripts


def _importable(name: str) -> bool:
    # Not `__main__`, nor a name no import statement can spell.
    return name != "__main__" and all(part.isidentifier() for part in name.split("."))
