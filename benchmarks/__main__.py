"""``python -m benchmarks``: measure snapline against git and write ``docs/benchmarks.md``.

Quick mode (the default, ``make bench``) uses 10k-file workspaces and a 1,000-snapshot
history and takes a few minutes on two cores; ``--full`` (``make bench-full``) uses
100k files and 10,000 snapshots. Workspaces are generated under ``bench-work/`` (or
``--workdir``) and removed afterwards unless ``--keep`` is given.
"""

from __future__ import annotations

import argparse
import compileall
import os
import shutil
import sys
import time
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path

from benchmarks.cases import ORDER, Config, method_notes, run_all, run_peers
from benchmarks.report import (
    RowResult,
    machine_info,
    place_peers,
    render_markdown,
    render_peers,
    render_text,
    snapline_version,
    update_full_rows,
)
from benchmarks.timing import file_creation_cost
from benchmarks.workspace_gen import DEFAULT_SEED

__all__ = ["main", "parse_args"]

REPO_ROOT = Path(__file__).resolve().parent.parent


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line (see ``--help``)."""
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks",
        description="Measure snapline side by side with git and write docs/benchmarks.md.",
    )
    parser.add_argument("--full", action="store_true", help="100k files and 10,000 snapshots")
    parser.add_argument("--files", type=int, help="tracked files per workspace")
    parser.add_argument("--history", type=int, help="snapshots in the long history")
    parser.add_argument("--repeats", type=int, help="kept rounds per fast measurement")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED, help="generator seed")
    parser.add_argument("--workdir", type=Path, help="where to generate (default bench-work/)")
    parser.add_argument("--keep", action="store_true", help="keep the generated workspaces")
    parser.add_argument(
        "--rows",
        help=f"comma-separated rows to run ({', '.join(ORDER)}); prints them only, "
        "or with --full and --output FILE replaces them in FILE's full-run summary",
    )
    parser.add_argument(
        "--peers",
        action="store_true",
        help="run only rows P1-P5 against stepback and rewind-ai, installing them from the "
        "package index into --peers-venv (needs the network), and replace the peers' "
        "section of the report",
    )
    parser.add_argument(
        "--peers-venv",
        type=Path,
        metavar="PATH",
        help="the peers' virtual environment (default bench-work/peers-venv)",
    )
    parser.add_argument(
        "--output",
        help="markdown report path, '-' for none (default docs/benchmarks.md)",
    )
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    """Run the benchmarks; returns the exit code."""
    args = parse_args(argv)
    if args.rows and args.output not in (None, "-") and not args.full:
        print(
            "python -m benchmarks: --rows with --output replaces rows of a full run's "
            "summary; add --full, or leave out --output to print the rows",
            file=sys.stderr,
        )
        return 2
    files = args.files or (100_000 if args.full else 10_000)
    history = args.history or (10_000 if args.full else 1_000)
    repeats = args.repeats or (9 if args.full else 7)
    base = (args.workdir or REPO_ROOT / "bench-work").resolve()
    base.mkdir(parents=True, exist_ok=True)
    workdir = base / f"run-{datetime.now():%Y%m%d-%H%M%S}"
    workdir.mkdir()
    config = Config(
        files=files,
        history=history,
        warmup=1,
        repeats=repeats,
        slow_repeats=3,
        workdir=workdir,
        seed=args.seed,
        full=args.full,
        python=sys.executable,
        repo_root=REPO_ROOT,
    )
    only = None if args.rows is None else {r.strip() for r in args.rows.split(",")}
    output = args.output or ("-" if only else str(REPO_ROOT / "docs" / "benchmarks.md"))
    started = datetime.now(timezone.utc)
    clock = time.perf_counter()

    def log(message: str) -> None:
        print(f"[{time.perf_counter() - clock:6.1f}s] {message}", file=sys.stderr, flush=True)

    log(f"workspaces in {workdir}")
    # An installed wheel ships its modules byte-compiled; an editable checkout (and a
    # shell with PYTHONDONTWRITEBYTECODE set) would compile them in every CLI process.
    compileall.compile_dir(REPO_ROOT / "snapline", quiet=1)
    machine = machine_info(workdir)
    machine["file creation in the workspaces (create + write 1 KB + close)"] = (
        f"{file_creation_cost(workdir) * 1e6:.0f} µs a file"
    )
    load_before = os.getloadavg()[0]
    try:
        if args.peers:
            venv = (args.peers_venv or REPO_ROOT / "bench-work" / "peers-venv").resolve()
            results, machine["peers"] = run_peers(config, log, venv)
        else:
            results = run_all(config, log, only)
    finally:
        if args.keep:
            log(f"kept {workdir}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)
    elapsed = time.perf_counter() - clock
    at_end = snapline_version()
    if at_end != machine["snapline"]:
        machine["snapline"] += (
            f" at the start, {at_end} at the end: the code changed during the run"
        )
    # Other work on the machine shows up as noise in every figure; say how busy it was.
    machine["load average (1 min) before / after"] = f"{load_before:.2f} / {os.getloadavg()[0]:.2f}"
    print(render_text(results))
    if output != "-":
        mode = "full" if args.full else "quick"
        command = ".venv/bin/python -m benchmarks" + (" --full" if args.full else "")
        target = Path(output)
        previous = target.read_text(encoding="utf-8") if target.exists() else None
        if args.peers:
            block = render_peers(
                results,
                machine=machine,
                command=".venv/bin/python -m benchmarks --peers"
                + (f" --files {files}" if args.files else ""),
                started=started,
                elapsed=time.perf_counter() - clock,
            )
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(place_peers(previous, block), encoding="utf-8")
            log(f"wrote the peers' section of {output}")
            log(f"done in {elapsed:.0f}s")
            return _exit_code(results, log)
        if only:
            if previous is None:
                log(f"{output} does not exist: nothing to update")
                return 1
            measured = (
                f"on {started.astimezone(timezone.utc):%Y-%m-%d %H:%M} UTC, "
                f"`{command} --rows {','.join(r.number for r in results)}`, "
                f"snapline {machine['snapline']}"
            )
            try:
                updated = update_full_rows(previous, results, measured)
            except ValueError as error:
                log(f"{output} was left as it was: {error}")
                return 1
            target.write_text(updated, encoding="utf-8")
            log(f"replaced rows {', '.join(r.number for r in results)} in {output}")
            log(f"done in {elapsed:.0f}s")
            return _exit_code(results, log)
        markdown = render_markdown(
            results,
            previous=previous,
            machine=machine,
            mode=mode,
            command=command,
            method=method_notes(config),
            started=started,
            elapsed=elapsed,
        )
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(markdown, encoding="utf-8")
        log(f"wrote {output}")
    log(f"done in {elapsed:.0f}s")
    return _exit_code(results, log)


def _exit_code(results: list[RowResult], log: Callable[[str], None]) -> int:
    # Unmet goals are results, not errors; a row that could not be measured is an error.
    failed = [r.number for r in results if r.skipped and r.skipped.startswith("failed")]
    if failed:
        log(f"rows that failed: {', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
