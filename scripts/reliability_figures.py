"""Run the reliability suite and print the figures it counted, for docs/guarantees.md.

    python scripts/reliability_figures.py            # the default suite (about 2 minutes)
    SNAPLINE_STRESS=1 python scripts/reliability_figures.py   # the long mode

Every figure comes from tests/reliability/figures.py counters that the tests bump as they
actually kill, inject, write and check; nothing here is estimated. The script exits with
pytest's own exit code, so figures from a red run are never mistaken for a green one.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

_LABELS = [
    ("crash_steps_killed", "named crash steps killed (SIGKILL) and recovered"),
    ("kill_loop_kills", "random-delay kills survived"),
    ("kill_loop_killed_busy", "of them landing after the writer acknowledged a snapshot"),
    ("kill_loop_acknowledged", "snapshots acknowledged to a killed writer"),
    ("kill_loop_acknowledged_lost", "acknowledged snapshots lost"),
    ("faults_injected", "I/O faults injected (EIO, ENOSPC) and survived"),
    ("concurrency_writers", "concurrent writer processes"),
    ("concurrency_records", "snapshots they recorded (numbers 1..N, no gap, no duplicate)"),
    ("concurrency_reader_runs", "reader commands run meanwhile (log, verify)"),
    ("concurrency_snapshots_seen_by_readers", "snapshots listed by readers, each whole"),
    ("concurrency_seconds", "seconds the writers took"),
    ("busy_writers_refused", "writers refused as busy (exit 4), store intact"),
    ("hostile_stores", "damaged or tampered stores tried"),
    ("hostile_writes_refused", "writing commands refused on a damaged store"),
    ("hostile_paths", "crafted stores or journals with paths leaving the root"),
    ("oddities", "workspace oddities recorded, rebuilt and rolled back"),
    ("big_file_mb", "size of the large file (MB)"),
    ("big_file_peak_rss_above_idle_mb", "peak memory above the process before `init` (MB)"),
    ("state_machine_snapshots", "snapshots made by the state machine"),
    ("state_machine_checks", "full model checks after a state-machine step"),
]


def main() -> int:
    with tempfile.TemporaryDirectory() as scratch:
        target = Path(scratch) / "figures.json"
        env = {**os.environ, "SNAPLINE_FIGURES": str(target)}
        started = time.monotonic()
        result = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/reliability"],
            cwd=ROOT,
            env=env,
            check=False,
        )
        elapsed = time.monotonic() - started
        figures = json.loads(target.read_text()) if target.exists() else {}
    mode = "SNAPLINE_STRESS=1" if os.environ.get("SNAPLINE_STRESS") == "1" else "default"
    print()
    print(f"| figure ({mode} run, {elapsed:.0f} s, pytest exit {result.returncode}) | value |")
    print("|---|---:|")
    for key, label in _LABELS:
        if key in figures:
            print(f"| {label} | {figures[key]:,} |")
    for key in sorted(figures.keys() - {k for k, _ in _LABELS}):
        print(f"| {key} | {figures[key]:,} |")
    return result.returncode


if __name__ == "__main__":
    raise SystemExit(main())
