"""Measuring: the alternating runner, child processes with their peak RSS, and statistics.

Two tools compared in one run must see the same machine: page cache, CPU frequency and
whatever else runs on the box drift over minutes. :func:`alternate` therefore runs the
contenders in turn (A B A B …) after a warm-up round that is thrown away, and reports
median, minimum and maximum of each, so a ratio of medians compares like with like.
"""

from __future__ import annotations

import contextlib
import cProfile
import os
import pstats
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "GNU_TIME",
    "ProcessRun",
    "Sample",
    "Series",
    "Stats",
    "alternate",
    "file_creation_cost",
    "profile_summary",
    "ratio",
    "run_process",
    "summarize",
]


@dataclass(frozen=True)
class Stats:
    """Median, minimum and maximum of a list of samples (seconds, bytes, …)."""

    samples: tuple[float, ...]

    @property
    def median(self) -> float:
        return statistics.median(self.samples)

    @property
    def min(self) -> float:
        return min(self.samples)

    @property
    def max(self) -> float:
        return max(self.samples)


def summarize(samples: Sequence[float]) -> Stats:
    """The :class:`Stats` of ``samples``.

    Raises:
        ValueError: If there are no samples.
    """
    if not samples:
        raise ValueError("no samples to summarize")
    return Stats(tuple(float(s) for s in samples))


def ratio(numerator: Stats, denominator: Stats) -> float:
    """Ratio of medians, ``numerator ÷ denominator`` (``inf`` when the denominator is 0)."""
    bottom = denominator.median
    return float("inf") if bottom == 0 else numerator.median / bottom


@dataclass(frozen=True)
class Sample:
    """One timed run: wall seconds, the peak RSS that matters (bytes), and anything else."""

    seconds: float
    peak_rss: int | None = None
    info: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Series:
    """Every kept sample of one contender, and the warm-up ones (for peak RSS only)."""

    name: str
    samples: tuple[Sample, ...]
    warmup: tuple[Sample, ...] = ()

    @property
    def stats(self) -> Stats:
        return summarize([s.seconds for s in self.samples])

    @property
    def peak_rss(self) -> int | None:
        """The largest peak RSS of any run, warm-up included (memory is not timing)."""
        peaks = [s.peak_rss for s in self.samples + self.warmup if s.peak_rss is not None]
        return max(peaks) if peaks else None

    def infos(self, key: str) -> list[Any]:
        """The values of ``key`` in every sample's ``info`` that has it."""
        return [s.info[key] for s in self.samples if key in s.info]


Runner = Callable[[int], Sample]
"""Runs one measurement; gets the run's index (warm-up runs included), returns a Sample."""


def alternate(
    runners: Sequence[tuple[str, Runner]], *, warmup: int, repeats: int
) -> dict[str, Series]:
    """Run each runner in turn, ``warmup + repeats`` rounds; keep the last ``repeats``.

    Args:
        runners: ``(name, runner)`` pairs, run in this order in every round.
        warmup: Rounds run first and discarded (page cache, stat caches, imports).
        repeats: Rounds kept.

    Returns:
        One :class:`Series` per name. Runners that measure memory should do it in the
        warm-up rounds (``index < warmup``), where measuring cannot disturb a timing.
    """
    kept: dict[str, list[Sample]] = {name: [] for name, _ in runners}
    dropped: dict[str, list[Sample]] = {name: [] for name, _ in runners}
    for index in range(warmup + repeats):
        for name, runner in runners:
            sample = runner(index)
            (kept if index >= warmup else dropped)[name].append(sample)
    return {name: Series(name, tuple(kept[name]), tuple(dropped[name])) for name in kept}


@dataclass(frozen=True)
class ProcessRun:
    """A finished child process: wall time, exit code, output, and peak RSS if measured."""

    seconds: float
    returncode: int
    stdout: str
    stderr: str
    peak_rss: int | None = None

    def check(self, what: str) -> ProcessRun:
        """Raise ``RuntimeError`` naming ``what`` and its stderr when the process failed."""
        if self.returncode != 0:
            raise RuntimeError(
                f"{what} failed with exit code {self.returncode}:\n{self.stderr[-2000:]}"
            )
        return self


GNU_TIME = Path("/usr/bin/time")


def run_process(
    argv: Sequence[str],
    *,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    stdin: bytes | Path | None = None,
    capture: bool = True,
    measure_rss: bool = False,
) -> ProcessRun:
    """Run ``argv`` to completion, timed from the outside.

    Peak RSS is only measured on request, through GNU ``time``: Linux counts in a
    child's ``ru_maxrss`` the memory of the process it was forked from (the harness, with
    its trees and tables) up to the ``exec``, so ``wait4`` here would report the harness's
    size for any small child. ``time`` forks the child from a process of about 1 MB. The
    wrapper adds a fork and an exec, so a run that measures memory is not used for timing.

    Args:
        argv: The command.
        cwd: Its working directory.
        env: Its environment (default: ours).
        stdin: Bytes to feed it, or a file to read its input from.
        capture: Keep its standard output (standard error is always kept).
        measure_rss: Measure the peak RSS (``None`` in the result when GNU time is missing).
    """
    with contextlib.ExitStack() as stack:
        out = stack.enter_context(tempfile.TemporaryFile())
        err = stack.enter_context(tempfile.TemporaryFile())
        rss_file = None
        command = list(argv)
        if measure_rss and GNU_TIME.exists():
            rss_file = Path(stack.enter_context(tempfile.TemporaryDirectory())) / "rss"
            command = [str(GNU_TIME), "-f", "%M", "-o", str(rss_file), *command]
        source: Any = subprocess.DEVNULL
        if isinstance(stdin, Path):
            source = stack.enter_context(open(stdin, "rb"))
        elif stdin is not None:
            source = subprocess.PIPE
        start = time.perf_counter()
        process = subprocess.Popen(
            command,
            cwd=cwd,
            env=None if env is None else dict(env),
            stdin=source,
            stdout=out if capture else subprocess.DEVNULL,
            stderr=err,
        )
        if isinstance(stdin, bytes):
            assert process.stdin is not None
            with process.stdin:
                process.stdin.write(stdin)
        returncode = process.wait()
        seconds = time.perf_counter() - start
        out.seek(0)
        err.seek(0)
        peak = None
        if rss_file is not None:
            # GNU time reports kilobytes on its last line (earlier ones: "Command exited…").
            peak = int(rss_file.read_text().split()[-1]) * 1024
        return ProcessRun(
            seconds=seconds,
            returncode=returncode,
            stdout=out.read().decode("utf-8", "replace"),
            stderr=err.read().decode("utf-8", "replace"),
            peak_rss=peak,
        )


def file_creation_cost(directory: Path, count: int = 1000) -> float:
    """Seconds to create, write (1 KB) and close one new file in ``directory``, on average.

    File creation speed differs by orders of magnitude between filesystems and VMs, and
    git's init creates one loose object file per source file: this figure says how much
    of the init comparison is the filesystem.
    """
    probe = directory / "file-creation-probe"
    probe.mkdir()
    start = time.perf_counter()
    for index in range(count):
        with open(probe / f"f{index}", "wb") as handle:
            handle.write(b"x" * 1024)
    seconds = (time.perf_counter() - start) / count
    for index in range(count):
        os.unlink(probe / f"f{index}")
    probe.rmdir()
    return seconds


def profile_summary(profile: cProfile.Profile | Path, limit: int = 25) -> dict[str, Any]:
    """Where a cProfile run spent its time.

    Args:
        profile: A finished profiler, or a file written by ``python -m cProfile -o``.
        limit: How many functions to keep in ``top``.

    Returns:
        ``total`` (seconds of the run), ``areas`` (``[area, self seconds]`` pairs, largest
        first: SQLite, hashing, directory walk, ignore rules, …) and ``top`` (dicts with
        ``function``, ``ncalls``, ``tottime`` and ``cumtime``, by cumulative time).
    """
    stats = pstats.Stats(str(profile) if isinstance(profile, Path) else profile)
    table: dict[Any, Any] = stats.stats  # type: ignore[attr-defined]
    areas: dict[str, float] = {}
    rows = []
    for (filename, line, name), (_, calls, tottime, cumtime, _) in table.items():
        area = _area(filename, name)
        areas[area] = areas.get(area, 0.0) + tottime
        rows.append(
            {
                "function": _short_function(filename, line, name),
                "ncalls": calls,
                "tottime": tottime,
                "cumtime": cumtime,
            }
        )
    by_self = sorted(rows, key=lambda row: row["tottime"], reverse=True)
    rows.sort(key=lambda row: row["cumtime"], reverse=True)
    return {
        "total": sum(areas.values()),
        "areas": sorted(([a, t] for a, t in areas.items()), key=lambda p: -p[1]),
        "top": rows[:limit],
        "self": by_self[:limit],
    }


# First match wins: (area, substrings of "filename:function" that put a function there).
_AREAS = (
    ("fsync", ("fsync",)),
    ("SQLite", ("sqlite3",)),
    ("hashing (SHA-256)", ("sha256", "hashlib", "hexdigest", "openssl")),
    ("compression (zlib)", ("zlib",)),
    ("diffing (diff-match-patch)", ("diff_match_patch", "snapline/diffing.py")),
    ("ignore rules (wildmatch)", ("scanning/wildmatch.py", "scanning/ignore.py")),
    # After the ignore rules: a regex compiled while importing a module is not one.
    ("regular expressions (re)", ("re.Pattern", "/re/")),
    ("directory walk (scandir, lstat)", ("scandir", "DirEntry", "scanning/walk.py", "lstat")),
    ("file reads and writes", ("io.open", "BufferedReader", "BufferedWriter", "FileIO")),
    ("other system calls (open, rename, chmod, unlink…)", ("posix.",)),
    ("pydantic models", ("pydantic",)),
    (
        "imports (finding, loading and running modules)",
        ("importlib", "<frozen", "marshal", "builtins.exec", "(<module>)", "builtins.compile"),
    ),
    ("pathlib", ("pathlib",)),
    ("subprocess and locks", ("subprocess", "filelock", "posix.wait", "fcntl")),
)


def _area(filename: str, name: str) -> str:
    key = f"{filename}:({name})"
    for area, markers in _AREAS:
        if any(marker in key for marker in markers):
            return area
    if "/snapline/" in filename:
        return "other snapline code"
    return "other (Python runtime, stdlib)"


def _short_function(filename: str, line: int, name: str) -> str:
    if filename == "~":
        return name
    for marker in ("/snapline/", "/benchmarks/", "/site-packages/", "/lib/python3"):
        if marker in filename:
            filename = filename[filename.index(marker) + 1 :]
            break
    else:
        # Anything else (the run's own `snapline` launcher, a script) by its name only:
        # the page never names a path of the machine it was measured on.
        filename = os.path.basename(filename) or filename
    return f"{filename}:{line}({name})"
