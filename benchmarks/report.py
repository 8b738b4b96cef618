"""Results and how they read: the row records, the terminal table and ``docs/benchmarks.md``."""

from __future__ import annotations

import os
import platform
import re
import sqlite3
import subprocess
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from benchmarks.limits import limit_of
from benchmarks.timing import Stats

__all__ = [
    "Evidence",
    "Figure",
    "RowResult",
    "format_bytes",
    "format_seconds",
    "machine_info",
    "place_peers",
    "render_markdown",
    "render_peers",
    "render_text",
    "share_of",
    "shown_path",
    "snapline_version",
    "update_full_rows",
]


@dataclass(frozen=True)
class Figure:
    """One contender's measurement: timings (``stats``) or a single ``value``.

    ``unit`` is ``"s"`` for seconds or ``"B"`` for bytes; ``peak_rss`` is in bytes.
    """

    label: str
    stats: Stats | None = None
    value: float | None = None
    unit: str = "s"
    peak_rss: int | None = None

    @property
    def headline(self) -> float | None:
        """The number a ratio or goal is judged on: the median, or the single value."""
        return self.stats.median if self.stats is not None else self.value

    def short(self) -> str:
        """The headline, formatted (``"8.4 ms"``)."""
        return _format(self.headline, self.unit)

    def long(self) -> str:
        """Median with min-max and the sample count, or the value."""
        if self.stats is None:
            return self.short()
        stats = self.stats
        spread = f"{_format(stats.min, self.unit)} - {_format(stats.max, self.unit)}"
        return f"{_format(stats.median, self.unit)} ({spread}, n={len(stats.samples)})"


@dataclass(frozen=True)
class Evidence:
    """What limits a measurement: a cProfile summary and/or lines of explanation."""

    title: str
    profile: dict[str, Any] | None = None
    lines: tuple[str, ...] = ()


@dataclass
class RowResult:
    """One goal of the issue, measured.

    ``met`` is ``None`` when the row could not be measured (``skipped`` says why).
    ``git`` is the reference snapline is judged against; ``reference_name`` heads its
    column (``"git"``, ``"python"``, a peer's name).
    """

    number: str
    title: str
    goal: str
    snapline: Figure | None = None
    git: Figure | None = None
    ratio: float | None = None
    ratio_label: str = "snapline ÷ git (medians)"
    reference_name: str = "git"
    met: bool | None = None
    extra: list[Figure] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    evidence: list[Evidence] = field(default_factory=list)
    skipped: str | None = None

    def verdict(self) -> str:
        if self.skipped:
            return self.skipped
        if self.met is None:
            return "information"
        return "met" if self.met else "NOT MET"


def format_seconds(seconds: float) -> str:
    """``0.0042`` → ``"4.2 ms"``."""
    if seconds < 1e-3:
        return f"{seconds * 1e6:.0f} µs"
    if seconds < 1:
        return f"{seconds * 1e3:.1f} ms" if seconds < 0.1 else f"{seconds * 1e3:.0f} ms"
    return f"{seconds:.2f} s"


def format_bytes(size: float) -> str:
    """``1_572_864`` → ``"1.5 MiB"``."""
    value = float(size)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(value) < 1024 or unit == "GiB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    raise AssertionError("unreachable")


def _format(value: float | None, unit: str) -> str:
    if value is None:
        return "—"
    if unit == "s":
        return format_seconds(value)
    if unit == "B":
        return format_bytes(value)
    return f"{value:.3g} {unit}".strip()


def machine_info(workdir: Path) -> dict[str, str]:
    """The machine a run was made on, as label → value."""
    model = "unknown"
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    memory = "unknown"
    try:
        with open("/proc/meminfo", encoding="utf-8") as meminfo:
            total_kib = int(meminfo.readline().split()[1])
            memory = format_bytes(total_kib * 1024)
    except (OSError, ValueError, IndexError):
        pass
    return {
        "CPU": f"{model}, {os.cpu_count()} logical CPUs (nproc {_nproc()})",
        "memory": memory,
        "OS": f"{platform.system()} {platform.release()}",
        "filesystem of the workspaces": _filesystem(workdir),
        "Python": platform.python_version(),
        "git": _command_output(["git", "--version"]).removeprefix("git version "),
        "SQLite (Python's sqlite3)": sqlite3.sqlite_version,
        "snapline": snapline_version(),
    }


def render_text(results: list[RowResult]) -> str:
    """The summary as an aligned plain-text table for the terminal."""
    header = ("#", "work", "snapline", "git", "ratio", "goal", "result")
    lines = [header] + [_summary_cells(r) for r in results]
    widths = [min(58, max(len(row[i]) for row in lines)) for i in range(len(header))]
    out = []
    for index, row in enumerate(lines):
        cells = [cell if len(cell) <= widths[i] else cell[: widths[i] - 1] + "…"
                 for i, cell in enumerate(row)]  # fmt: skip
        out.append("  ".join(cell.ljust(widths[i]) for i, cell in enumerate(cells)).rstrip())
        if index == 0:
            out.append("  ".join("-" * w for w in widths))
    return "\n".join(out)


FULL_START = "<!-- full-run summary: start -->"
FULL_END = "<!-- full-run summary: end -->"


def render_markdown(
    results: list[RowResult],
    *,
    machine: dict[str, str],
    mode: str,
    command: str,
    method: list[str],
    started: datetime,
    elapsed: float,
    previous: str | None = None,
) -> str:
    """The whole ``docs/benchmarks.md``.

    The issue's goals are stated for 100k files, which only ``--full`` measures, so the
    summary of the latest full run is kept between markers; a quick run carries it over
    from ``previous`` (the file it replaces) into its own report.
    """
    when = f"{started.astimezone(timezone.utc):%Y-%m-%d %H:%M} UTC"
    summary = [
        "| # | work | snapline | git | ratio | goal | result |",
        "|---|---|---|---|---|---|---|",
        *("| " + " | ".join(_escape(c) for c in _summary_cells(r)) + " |" for r in results),
    ]
    if mode == "full":
        header = f"Full run of {when}, `{command}`, snapline {machine.get('snapline', '?')}:"
        summary = _full_block([header], summary)
    out = [
        "# Benchmarks",
        "",
        "<!-- Generated by `python -m benchmarks`; edit benchmarks/, not this file. -->",
        "",
        f"Measured {when} in **{mode}** mode "
        f"({format_seconds(elapsed)} in all). Reproduce with `{command}`; `make bench` runs "
        "the quick mode (10k files), `make bench-full` the 100k-file figures; "
        "`make bench-peers` (which needs the network, to install them) measures snapline "
        "against its peers stepback and rewind-ai in a section of its own.",
        "",
        "## Machine",
        "",
        "| | |",
        "|---|---|",
        *(f"| {key} | {value} |" for key, value in machine.items()),
        "",
        "## Method",
        "",
        *(f"- {line}" for line in method),
        "",
        "## Summary",
        "",
        *summary,
        "",
    ]
    if mode != "full":
        out += ["## Latest full run (100k files, 10,000 snapshots)", ""]
        kept = _full_summary(previous)
        out += [kept, ""] if kept else ["No `make bench-full` run is recorded yet.", ""]
    # The peers' figures come from their own runs (they need the network to install):
    # carried over as they are, with their date, until `make bench-peers` runs again.
    peers = _kept_block(previous, PEERS_START, PEERS_END)
    if peers:
        out += [peers, ""]
    for result in results:
        out += _row_section(result)
    unmet = [r for r in results if r.met is False]
    out += ["## What limits it", ""]
    if not unmet:
        out += ["Every measured goal is met.", ""]
    for result in unmet:
        out += _limits_section(result)
    return "\n".join(out).rstrip() + "\n"


def _summary_cells(result: RowResult) -> tuple[str, ...]:
    ratio = "—" if result.ratio is None else f"{result.ratio:.2f}"
    if result.skipped:
        return (result.number, result.title, "—", "—", "—", result.goal, result.skipped)
    return (
        result.number,
        result.title,
        result.snapline.short() if result.snapline else "—",
        _reference_cell(result),
        ratio,
        result.goal,
        result.verdict(),
    )


def _reference_cell(result: RowResult) -> str:
    if result.git is None:
        return "—"
    if result.reference_name == "git":
        return result.git.short()
    # The column is git's; a row judged against something else says what.
    return f"{result.git.short()} ({result.reference_name})"


def _row_section(result: RowResult) -> list[str]:
    out = [f"## {result.number}. {result.title}", ""]
    if result.skipped:
        out += [f"**{result.skipped}.**", ""]
        out += [f"- {note}" for note in result.notes]
        return [*out, ""] if result.notes else out
    ratio = "—" if result.ratio is None else f"**{result.ratio:.2f}**"
    verdict = f"**{result.verdict()}**"
    timed = any(f is not None and f.stats is not None for f in (result.snapline, result.git))
    out += [
        f"| | snapline | {result.reference_name} | ratio | goal | result |",
        "|---|---|---|---|---|---|",
        ("| median (min - max, runs) | " if timed else "| figure | ")
        + " | ".join(
            [
                _escape(result.snapline.long()) if result.snapline else "—",
                _escape(result.git.long()) if result.git else "—",
                ratio,
                _escape(result.goal),
                verdict,
            ]
        )
        + " |",
        f"| what was run | {_escape(result.snapline.label) if result.snapline else '—'} | "
        f"{_escape(result.git.label) if result.git else '—'} | "
        f"{_escape(result.ratio_label) if result.ratio is not None else ''} | | |",
    ]
    peaks = [result.snapline, result.git]
    if any(f is not None and f.peak_rss for f in peaks):
        cells = [format_bytes(f.peak_rss) if f and f.peak_rss else "—" for f in peaks]
        out.append(f"| peak RSS (whole process) | {cells[0]} | {cells[1]} | | | |")
    out.append("")
    if result.extra:
        out += ["| also measured | median (min - max, runs) | peak RSS |", "|---|---|---|"]
        for figure in result.extra:
            peak = format_bytes(figure.peak_rss) if figure.peak_rss else "—"
            out.append(f"| {_escape(figure.label)} | {_escape(figure.long())} | {peak} |")
        out.append("")
    out += [f"- {note}" for note in result.notes]
    if result.notes:
        out.append("")
    return out


def _limits_section(result: RowResult) -> list[str]:
    measured = result.snapline.short() if result.snapline else "—"
    if result.ratio is not None:
        measured = f"ratio {result.ratio:.2f} ({measured})"
    out = [f"### {result.number}. {result.title}: goal {result.goal}, measured {measured}", ""]
    limit = limit_of(result.number)
    if limit:
        out += [limit, ""]
    if not result.evidence:
        out += ["No profile was taken for this row.", ""]
    for evidence in result.evidence:
        out += [f"**{evidence.title}**", ""]
        out += [f"- {line}" for line in evidence.lines]
        if evidence.lines:
            out.append("")
        if evidence.profile:
            out += _profile_tables(evidence.profile)
    return out


def _profile_tables(profile: dict[str, Any]) -> list[str]:
    total = profile["total"] or 1e-9
    largest = ", ".join(
        f"{area} {100 * seconds / total:.0f}%" for area, seconds in profile["areas"][:3]
    )
    out = [
        f"Largest areas: {largest}.",
        "",
        f"Self time by area (cProfile, {format_seconds(profile['total'])} profiled; "
        "profiling inflates small calls):",
        "",
        "| area | self time | share |",
        "|---|---|---|",
    ]
    for area, seconds in profile["areas"][:8]:
        out.append(f"| {area} | {format_seconds(seconds)} | {100 * seconds / total:.0f}% |")
    out += [
        "",
        "Top functions by cumulative time:",
        "",
        "| function | calls | cumulative | self |",
        "|---|---|---|---|",
    ]
    for row in profile["top"][:15]:
        out.append(
            f"| `{row['function']}` | {row['ncalls']} | {format_seconds(row['cumtime'])} "
            f"| {format_seconds(row['tottime'])} |"
        )
    out += [
        "",
        "Top functions by self time:",
        "",
        "| function | calls | self | cumulative |",
        "|---|---|---|---|",
    ]
    for row in profile.get("self", [])[:10]:
        out.append(
            f"| `{row['function']}` | {row['ncalls']} | {format_seconds(row['tottime'])} "
            f"| {format_seconds(row['cumtime'])} |"
        )
    out.append("")
    return out


def _escape(text: str) -> str:
    return text.replace("|", "\\|")


def _nproc() -> str:
    return _command_output(["nproc"]) or "?"


def _filesystem(path: Path) -> str:
    kind = _command_output(["stat", "-f", "-c", "%T", str(path)])
    best, device = "", kind or "unknown"
    try:
        with open("/proc/mounts", encoding="utf-8") as mounts:
            for line in mounts:
                fields = line.split()
                target = fields[1]
                if str(path).startswith(target) and len(target) > len(best):
                    best, device = target, f"{fields[2]} ({fields[0]} on {target}, {fields[3]})"
    except OSError:
        pass
    return device


def snapline_version() -> str:
    """snapline's version and the commit of the checkout being measured.

    Other work may land while a run is going on; the harness asks again at the end.
    """
    package = Path(__file__).resolve().parent.parent / "snapline"
    match = re.search(r'__version__ = "([^"]+)"', _read(package / "__init__.py"))
    version = match.group(1) if match else "?"
    head = _command_output(["git", "-C", str(package), "rev-parse", "--short", "HEAD"])
    dirty = _command_output(["git", "-C", str(package), "status", "--porcelain", "--", "."])
    state = f"commit {head}" + (" with uncommitted changes" if dirty else "") if head else ""
    return f"{version} ({state})" if state else version


def shown_path(path: Path | str) -> str:
    """How the page names a path: never a path of the machine it was measured on.

    Args:
        path: Any path the run used (the interpreter, a repository).

    Returns:
        The path relative to the checkout when it is inside it; else only its last
        name (its folder's name when that is a bare ``repo`` or ``.git``), so a page
        committed from one machine reads the same on every other.
    """
    # Not resolved: the checkout's .venv/bin/python is a link to the system's Python.
    resolved = Path(os.path.abspath(path))
    checkout = Path(__file__).resolve().parent.parent
    if resolved.is_relative_to(checkout):
        return resolved.relative_to(checkout).as_posix()
    name = resolved.name
    return resolved.parent.name if name in {"repo", ".git"} and resolved.parent.name else name


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except OSError:
        return ""


def _command_output(argv: list[str]) -> str:
    try:
        return subprocess.run(argv, capture_output=True, text=True, check=False).stdout.strip()
    except OSError:
        return ""


def share_of(profile: dict[str, Any] | None, marker: str) -> float | None:
    """The largest cumulative share of the run taken by a function whose name has ``marker``.

    Returns ``None`` when the profile has no such function among its top entries.
    """
    if not profile or not profile["total"]:
        return None
    times = [row["cumtime"] for row in profile["top"] if marker in row["function"]]
    entry = max((row["cumtime"] for row in profile["top"]), default=0.0) or profile["total"]
    return max(times) / entry if times else None


def _full_summary(previous: str | None) -> str | None:
    return _kept_block(previous, FULL_START, FULL_END)


def _full_block(header: list[str], table: list[str]) -> list[str]:
    """The full run's summary between its markers: header, table, and what limits the misses.

    A quick run carries the block over as it is, so the misses of the goals set for
    100,000 files keep their explanation next to their figures.
    """
    missed = [cells[0] for cells in _table_cells(table) if cells[-1] == "NOT MET"]
    out = [FULL_START]
    for line in header:
        out += [line, ""]
    out += table
    notes: dict[str, list[str]] = {}
    for number in missed:
        limit = limit_of(number)
        notes.setdefault(limit or "No note is written for this row yet.", []).append(number)
    if notes:
        out += ["", "What limits the rows missed at this size (in detail: *What limits it*):", ""]
        out += [f"- **{', '.join(numbers)}.** {note}" for note, numbers in notes.items()]
    return [*out, FULL_END]


def _table_cells(table: list[str]) -> list[list[str]]:
    # The body rows of a summary table, as cells (header and rule skipped).
    rows = [line for line in table if line.startswith("| ") and not line.startswith("| # ")]
    return [[cell.strip() for cell in row.strip("|").split(" | ")] for row in rows]


def update_full_rows(document: str, results: list[RowResult], measured: str) -> str:
    """``document`` with the rows of ``results`` replaced in its full-run summary.

    For a full run of a few rows (``--full --rows``): the other rows keep the figures
    of the run that measured them, and a line under the block's header says which rows
    were measured again, and ``measured`` (when, how, on which commit), so every figure
    says where it comes from. An earlier such line for the same rows or fewer goes.

    Raises:
        ValueError: If the document has no full-run summary, or it lacks one of the rows.
    """
    block = _full_summary(document)
    if block is None:
        raise ValueError("the report has no full-run summary to update: run --full first")
    lines = block.splitlines()[1:-1]
    first_row = next(i for i, line in enumerate(lines) if line.startswith("| # "))
    table = [line for line in lines[first_row:] if line.startswith("|")]
    numbers = [cells[0] for cells in _table_cells(table)]
    again = [result.number for result in results]
    header = [
        line for line in lines[:first_row] if line and not set(_remeasured(line)) <= set(again)
    ]
    header.append(f"Rows {', '.join(again)} measured again {measured}:")
    for result in results:
        if result.number not in numbers:
            raise ValueError(f"row {result.number} is not in the full-run summary")
        cells = "| " + " | ".join(_escape(c) for c in _summary_cells(result)) + " |"
        table[numbers.index(result.number) + 2] = cells
    updated = "\n".join(_full_block(header, table))
    return document.replace(block, updated)


def _remeasured(line: str) -> list[str]:
    # The rows a header line says were measured again; none for the run's own line.
    match = re.match(r"Rows ([0-9a-z, ]+) measured again ", line)
    return match.group(1).split(", ") if match else ["(the run)"]


def _kept_block(previous: str | None, start_marker: str, end_marker: str) -> str | None:
    if not previous or start_marker not in previous or end_marker not in previous:
        return None
    start = previous.index(start_marker)
    end = previous.index(end_marker) + len(end_marker)
    return previous[start:end]


PEERS_START = "<!-- peers: start -->"
PEERS_END = "<!-- peers: end -->"


def render_peers(
    results: list[RowResult],
    *,
    machine: dict[str, str],
    command: str,
    started: datetime,
    elapsed: float,
) -> str:
    """The peers' section of ``docs/benchmarks.md`` (rows P1-P5), between its markers.

    It is a section of its own, dated, so that a later ``make bench`` (which does not run
    the peers) carries it over unchanged; :func:`place_peers` puts it into the document.
    """
    when = f"{started.astimezone(timezone.utc):%Y-%m-%d %H:%M} UTC"
    load = machine.get("load average (1 min) before / after", "?")
    out = [
        PEERS_START,
        "## Peers: stepback and rewind-ai (`make bench-peers`)",
        "",
        f"Run of {when} ({format_seconds(elapsed)} in all), `{command}`, snapline "
        f"{machine.get('snapline', '?')}, {machine.get('peers', 'peers unknown')}, load "
        f"average (1 min) before / after {load}. "
        "The peers are installed from the package index into `bench-work/peers-venv`; "
        "`make bench` never installs or runs them, and keeps this section as it is.",
        "",
        "| # | work | snapline | peer | ratio | goal | result |",
        "|---|---|---|---|---|---|---|",
        *("| " + " | ".join(_escape(c) for c in _summary_cells(r)) + " |" for r in results),
        "",
    ]
    for result in results:
        out += [line.replace("## ", "### ", 1) if line.startswith("## ") else line
                for line in _row_section(result)]  # fmt: skip
    unmet = [r for r in results if r.met is False]
    if unmet:
        out += ["### What limits the peers' rows", ""]
        for result in unmet:
            out += [line.replace("### ", "#### ", 1) if line.startswith("### ") else line
                    for line in _limits_section(result)]  # fmt: skip
    out.append(PEERS_END)
    return "\n".join(out)


def place_peers(document: str | None, block: str) -> str:
    """``document`` with its peers' section replaced by ``block`` (or added).

    A document without one gets it before its first row section (after the summaries),
    where :func:`render_markdown` keeps it.
    """
    if not document:
        return "# Benchmarks\n\n" + block + "\n"
    if PEERS_START in document and PEERS_END in document:
        start = document.index(PEERS_START)
        end = document.index(PEERS_END) + len(PEERS_END)
        return document[:start] + block + document[end:]
    match = re.search(r"^## \d", document, flags=re.MULTILINE)
    at = match.start() if match else len(document)
    return document[:at] + block + "\n\n" + document[at:]
