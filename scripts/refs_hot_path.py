"""Cold ``snapline record F`` and ``snapline status`` on the history's refs, by layout (issue 37).

Makes a tree of 1,000 files, runs ``snapline init`` (the default layout: in a git
repository of those files, committed, the history on its refs; with ``--outside-git``,
no repository, the history on the private one, ``.snapline/repo``), then 21 rounds of:
edit one file, ``snapline record`` it, ``snapline status``, each a whole process; prints
the median and the minimum of each, in wall time and in CPU time (user + system of the
process: what a shared, loaded machine disturbs least). Bytecode is cached (outside the
checkout) and a round is run first to warm it, so the numbers are the commands', not the
compiler's.

    .venv/bin/python scripts/refs_hot_path.py refs
    .venv/bin/python scripts/refs_hot_path.py private --outside-git
    PYTHONPATH=/path/to/other/checkout .venv/bin/python scripts/refs_hot_path.py other

A measurement, not a test: nothing here asserts a time.
"""

from __future__ import annotations

import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SNAPLINE = str(Path(sys.executable).with_name("snapline"))
ROUNDS = 21


def main() -> None:
    """Measure and print one layout's numbers."""
    label, options = sys.argv[1], sys.argv[2:]
    if options not in ([], ["--outside-git"]):
        sys.exit(f"usage: {sys.argv[0]} LABEL [--outside-git]")
    in_git = not options
    cache = Path(tempfile.gettempdir()) / "snapline-refs-hot-path-pycache"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull)
    env["PYTHONPYCACHEPREFIX"] = str(cache)
    git = ["git", "-c", "user.name=m", "-c", "user.email=m@example.invalid"]
    root = Path(tempfile.mkdtemp(prefix=f"snapline-{label}-"))
    try:
        for i in range(1000):
            folder = root / f"d{i % 20}"
            folder.mkdir(exist_ok=True)
            (folder / f"f{i}.py").write_text(f"x = {i}\n" * 50)
        if in_git:
            for command in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "start"]):
                subprocess.run([*git, *command], cwd=root, check=True)

        def run(*args: str) -> tuple[float, float]:
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            subprocess.run([SNAPLINE, *args], cwd=root, env=env, check=True, capture_output=True)
            wall = time.perf_counter() - start
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
            return wall, cpu

        run("init")
        record: list[tuple[float, float]] = []
        status: list[tuple[float, float]] = []
        for n in range(ROUNDS + 1):
            (root / "d0" / "f0.py").write_text(f"x = {n}\n" * 50)
            took = run("record", "d0/f0.py"), run("status")
            if n:  # the first round warms the bytecode cache
                record.append(took[0])
                status.append(took[1])
        if in_git:
            dirty = subprocess.run(
                ["git", "status", "--porcelain", "--ignored"],
                cwd=root,
                capture_output=True,
                text=True,
                check=True,
            ).stdout.split("\n")
            print(f"{label}: git status {[line for line in dirty if line]}")
        else:
            print(f"{label}: outside git, the history in {root / '.snapline' / 'repo'}")
        for name, times in (("record", record), ("status", status)):
            wall, cpu = [t[0] * 1000 for t in times], [t[1] * 1000 for t in times]
            print(
                f"  {name}: wall median {statistics.median(wall):.0f} ms (min {min(wall):.0f}), "
                f"CPU median {statistics.median(cpu):.0f} ms (min {min(cpu):.0f})"
            )
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
