"""A pull request's review as Markdown: what a range of snapshots did, and who wrote the lines.

Written for ``$GITHUB_STEP_SUMMARY`` or a pull-request comment and readable anywhere
else: plain Markdown tables without a link, an image or HTML, so any host renders it
and none needs network access. It names the range's snapshots, the milestones it
touches, the agent prompts it answered, the files it changed, the lines of those files
on disk now by who wrote them (an agent session or a person in the range, or earlier),
and the guard outcomes of its snapshots.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from snapline.blame.file import NotBlamableError, blame_file
from snapline.blame.lines import Hunks
from snapline.blame.model import LineKind
from snapline.blame.origins import Origins
from snapline.snapshots.read.prompts import prompt_of
from snapline.snapshots.read.reconstruct import ContentUnavailableError, Reconstructor
from snapline.store import StoreReader

if TYPE_CHECKING:
    from snapline.guard import CheckOutcome
    from snapline.snapshots.snapshot import Report

__all__ = ["cell", "range_summary", "verdict"]


@dataclass
class _Lines:
    """Lines of the changed files by who wrote them, in the range or before it."""

    agent: Counter[str] = field(default_factory=Counter)
    person: Counter[str] = field(default_factory=Counter)
    earlier: int = 0
    unrecorded: int = 0
    per_file: dict[str, tuple[int, int, int, int, int]] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)


def cell(text: str) -> str:
    """Text safe in a Markdown table cell: no pipe, no line break, no markup that links."""
    for char in "\\`*_[]<>|":
        text = text.replace(char, "\\" + char)
    return text.replace("\n", " ")


def _count(
    store: StoreReader,
    reconstructor: Reconstructor,
    files: Iterable[tuple[str, bytes | None]],
    first: int,
    last: int,
) -> _Lines:
    found = _Lines()
    origins = Origins(store)
    for path, disk, diff in _ahead(store, reconstructor, files):
        try:
            blamed = blame_file(store, reconstructor, path, disk, diff, origins=origins)
        except (NotBlamableError, ContentUnavailableError) as error:
            found.skipped[path] = str(error)
            continue
        tally = Counter[str]()
        for line in blamed.lines:
            origin = line.origin
            if origin.kind == LineKind.UNRECORDED:
                found.unrecorded += 1
                tally["unrecorded"] += 1
            elif origin.number is None or not first <= origin.number <= last:
                found.earlier += 1
                tally["earlier"] += 1
            elif origin.kind == LineKind.PERSON:
                found.person[origin.session or ""] += 1
                tally["person"] += 1
            else:
                found.agent[origin.author] += 1
                tally["agent"] += 1
        found.per_file[path] = (
            len(blamed.lines),
            tally["agent"],
            tally["person"],
            tally["earlier"],
            tally["unrecorded"],
        )
    return found


def _ahead(
    store: StoreReader, reconstructor: Reconstructor, files: Iterable[tuple[str, bytes | None]]
) -> Iterator[tuple[str, bytes | None, Hunks]]:
    """Each file with a line diff that did its versions' diffs ahead, a group at a time."""
    from snapline.blame.batch import groups
    from snapline.blame.gitdiff import line_diff

    for group, diff in groups(store, reconstructor, files, line_diff()):
        for path, disk in group:
            yield path, disk, diff


def range_summary(
    store: StoreReader,
    reconstructor: Reconstructor,
    first: int,
    last: int,
    disk: Mapping[str, bytes | None],
    checks: Mapping[int, CheckOutcome],
    title: str = "snapshots",
    unrecorded: str = "not recorded yet",
    verification: Report | None = None,
) -> str:
    """The Markdown review of snapshots ``first..last`` (both included).

    Args:
        store: The history (read inside one ``store.read()``).
        reconstructor: Rebuilds recorded versions.
        first: The first snapshot of the range.
        last: The last one.
        disk: The bytes on disk (``None``: absent) of every tracked file the range changed.
        checks: The latest check of each checked snapshot, by number.
        title: What the heading calls the range, before its numbers.
        unrecorded: What the lines no snapshot of this history wrote are called (one
            line's review of a file several lines changed: the others' lines too).
        verification: ``verify``'s result, shown after the snapshots (``None``: not shown).

    Returns:
        The Markdown text, ending in a newline.
    """
    rows = store.snapshots.select(first=first, last=last)
    out = [f"## snapline: {title} {first}-{last}", ""]
    if not rows:
        return "\n".join([*out, "No snapshot in this range.", ""])
    changed = sorted(
        {p for _, path, old in store.changes.paths(first, last) for p in (path, old) if p}
    )
    lines = _count(store, reconstructor, sorted(disk.items()), first, last)
    prompts = sorted(
        {(str(s["session"]), int(s["n"])) for s in map(prompt_of, rows) if s is not None}
    )
    milestones = [m for m in store.milestones.all() if m.last >= first and m.first <= last]
    ran = {n: c for n, c in checks.items() if first <= n <= last}
    failed = sorted(n for n, c in ran.items() if not c.passed)
    agent_total, person_total = sum(lines.agent.values()), sum(lines.person.values())
    out += [
        "| | |",
        "|---|---|",
        f"| snapshots | {len(rows)} ({first}-{last}) |",
        *([] if verification is None else [f"| verify | {verdict(verification)} |"]),
        f"| milestones | {len(milestones)}"
        + (
            f", open after {milestones[-1].last}"
            if milestones and milestones[-1].last < last
            else ""
        )
        + " |",
        f"| prompts | {len(prompts)} in {len({s for s, _ in prompts})} sessions |",
        f"| files changed | {len(changed)} |",
        f"| lines by agents | {agent_total} |",
        f"| lines by people | {person_total} |",
        f"| guard | {len(ran) - len(failed)} passed, {len(failed)} failed |",
        "",
    ]
    if milestones:
        out += ["### Milestones", "", "| milestone | title | snapshots |", "|---|---|---|"]
        out += [f"| M{m.number} | {cell(m.title)} | {m.first}-{m.last} |" for m in milestones]
        out.append("")
    if prompts:
        out += ["### Prompts", "", "| session | prompts |", "|---|---|"]
        for session in sorted({s for s, _ in prompts}):
            numbers = ", ".join(str(n) for s, n in prompts if s == session)
            out.append(f"| {cell(session)} | {numbers} |")
        out.append("")
    out += ["### Lines on disk, by who wrote them", ""]
    out += ["| who | lines |", "|---|---|"]
    out += [f"| agent {cell(who)} | {n} |" for who, n in lines.agent.most_common()]
    out += [
        f"| person {cell(who)} |".replace("  ", " ") + f" {n} |"
        for who, n in lines.person.most_common()
    ]
    out += [f"| before snapshot {first} | {lines.earlier} |"]
    if lines.unrecorded:
        out.append(f"| {unrecorded} | {lines.unrecorded} |")
    out.append("")
    out += ["### Files", "", "| file | lines | agent | person | earlier | unrecorded |"]
    out.append("|---|---|---|---|---|---|")
    for path in changed:
        counts = lines.per_file.get(path)
        if counts is not None:
            out.append(f"| {cell(path)} | " + " | ".join(map(str, counts)) + " |")
        elif path in lines.skipped:
            out.append(f"| {cell(path)} | not counted: {cell(lines.skipped[path])} | | | | |")
        else:
            out.append(f"| {cell(path)} | gone | | | | |")
    out.append("")
    if ran:
        out += ["### Guard", "", "| snapshot | check | outcome |", "|---|---|---|"]
        for number in sorted(ran):
            check = ran[number]
            command = cell(" ".join(check.command))
            outcome = "passed" if check.passed else f"failed (exit {check.exit_code})"
            out.append(f"| {number} | {command} | {outcome} |")
        out.append("")
    return "\n".join(out)


def verdict(report: Report) -> str:
    """``verify``'s result in one cell: passed, or the problems (the first five named)."""
    if report.ok:
        return "passed"
    named = "; ".join(cell(f"{p.kind} {p.path}" if p.path else p.kind) for p in report.problems[:5])
    more = len(report.problems) - 5
    return f"failed, {len(report.problems)} problems: {named}" + (
        f"; and {more} more" if more > 0 else ""
    )
