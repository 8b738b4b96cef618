"""Gathering a page's records from a history, through the reads a :class:`PageReader` names.

Each snapshot's diff is ``reader.diff(n - 1, n)``: what that one snapshot changed, from
which its lines added and removed are counted. Each section's files are blamed by
``reader.blame_summary`` (report/authors.py). Milestones come from
``reader.milestones.list()``; the verification result from ``reader.verify()`` unless
the caller already has one (``snapline verify --report``).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from datetime import datetime, timezone
from typing import TYPE_CHECKING

from snapline.errors import SnaplineError
from snapline.report.authors import with_authors
from snapline.report.diffs import Budget, binary_paths, count_lines, cut_lines
from snapline.report.model import (
    FileEntry,
    JoinedLine,
    PageModel,
    ProblemEntry,
    Scope,
    Section,
    SnapshotEntry,
    Totals,
    Verdict,
)

if TYPE_CHECKING:
    from snapline.guard.outcome import CheckOutcome
    from snapline.milestones.lines import OtherLine
    from snapline.milestones.milestone import Milestone
    from snapline.report.reader import PageReader
    from snapline.snapshots.snapshot import Report, Snapshot

__all__ = ["ReportScopeError", "collect", "verdict_of"]

# Problems of these kinds mean only that the disk differs from the history.
_DRIFT_KINDS = frozenset({"modified", "deleted", "untracked", "unreadable"})


class ReportScopeError(SnaplineError):
    """A page's scope that cannot be honoured (a milestone together with a range)."""

    exit_code = 2
    detail: str

    def _message(self) -> str:
        return f"{self.detail}; give either a milestone or a snapshot range"


def collect(
    reader: PageReader,
    scope: Scope,
    *,
    verification: Report | None = None,
    budget: Budget | None = None,
) -> PageModel:
    """Gather everything the page for ``scope`` shows.

    Args:
        reader: The history to read (an open workspace hands itself).
        scope: The part of the history to show.
        verification: A result of ``reader.verify()`` already at hand; ``None`` runs it.
        budget: How much diff text the page may hold (default :class:`Budget`).

    Returns:
        The page's records.

    Raises:
        ReportScopeError: If both a milestone and a snapshot range are given.
        MilestoneNotFoundError: If the milestone does not exist.
        SnapshotNotFoundError: If the range names a snapshot that does not exist.
        SnapshotRangeError: If the range runs backwards.
    """
    first, last = _range(reader, scope)
    milestones = reader.milestones.list()
    verdict, problems = _verification(reader, verification)
    budget = budget or Budget()
    # Snapshot 0 is the baseline: the whole workspace as it was found, not a change to
    # review (and with every file of a large tree, no small thing to load).
    checks = reader.check_outcomes()
    lines = reader.milestones.lines() if reader.side_snapshots() else []
    entries = [
        _entry(
            reader,
            snapshot,
            budget,
            _joined(reader, lines, snapshot, budget),
            checks.get(snapshot.number),
        )
        for snapshot in reader.snapshots(since=max(first, 1), until=last, session=scope.session)
        if snapshot.number >= 1
    ]
    sections = with_authors(reader, _sections(milestones, entries, scope, first, last))
    shown = tuple(entries)
    return PageModel(
        title=os.path.basename(os.fspath(reader.root)) or os.fspath(reader.root),
        root=os.fspath(reader.root),
        generated=datetime.now(timezone.utc),
        latest=reader.latest,
        scope=scope,
        verdict=verdict,
        problems=problems,
        totals=Totals.of(shown),
        milestones=sum(1 for s in sections if s.number is not None),
        sections=sections,
    )


def verdict_of(report: Report) -> Verdict:
    """The headline of a verification result: ok, drift, problems or a damaged store."""
    if report.ok:
        return Verdict.OK
    if report.corrupt:
        return Verdict.DAMAGED
    if all(p.kind in _DRIFT_KINDS for p in report.problems):
        return Verdict.DRIFT
    return Verdict.PROBLEMS


def _range(reader: PageReader, scope: Scope) -> tuple[int, int]:
    from snapline.snapshots.read.history import SnapshotNotFoundError, SnapshotRangeError

    latest = reader.latest
    if scope.milestone is not None:
        if scope.start is not None or scope.end is not None:
            raise ReportScopeError(
                f"milestone {scope.milestone} and a snapshot range were both given"
            )
        milestone = reader.milestones.get(scope.milestone)
        return milestone.first, milestone.last
    first = 0 if scope.start is None else scope.start
    last = latest if scope.end is None else scope.end
    for number in (first, last):
        if not 0 <= number <= latest:
            raise SnapshotNotFoundError(number, latest)
    if first > last:
        raise SnapshotRangeError(first, last)
    return first, last


def _verification(
    reader: PageReader, report: Report | None
) -> tuple[Verdict, tuple[ProblemEntry, ...]]:
    if report is None:
        try:
            report = reader.verify()
        except SnaplineError as error:
            # The history could still be read this far: show it, headed by why the
            # check itself failed.
            problem = ProblemEntry(kind="store", message=str(error), path=None, corrupt=True)
            return Verdict.DAMAGED, (problem,)
    problems = tuple(
        ProblemEntry(kind=p.kind, message=p.message, path=p.path, corrupt=p.severity == "corrupt")
        for p in report.problems
    )
    return verdict_of(report), problems


def _joined(
    reader: PageReader, lines: list[OtherLine], snapshot: Snapshot, budget: Budget
) -> tuple[JoinedLine, ...]:
    """The lines ``snapshot`` joined, each snapshot of them with its own diff."""
    if not snapshot.merges:
        return ()
    found = []
    for line in lines:
        if line.joined_by != snapshot.number:
            continue
        entries = tuple(
            _entry(reader, reader.snapshot(f"id:{side.id}"), budget, side=True)
            for side in line.snapshots
        )
        closed = tuple(
            (m.row.number, m.row.title, m.row.first, m.row.last) for m in line.milestones
        )
        found.append(
            JoinedLine(head=line.head, fork=line.fork, snapshots=entries, milestones=closed)
        )
    return tuple(found)


def _entry(
    reader: PageReader,
    snapshot: Snapshot,
    budget: Budget,
    joins: tuple[JoinedLine, ...] = (),
    check: CheckOutcome | None = None,
    *,
    side: bool = False,
) -> SnapshotEntry:
    import shlex

    from snapline.snapshots.kinds import Storage

    # A joined line's snapshot: its own change, from its parent on its line.
    diff = (
        reader.diff(f"id:{snapshot.parent_id}", f"id:{snapshot.id}")
        if side
        else reader.diff(snapshot.number - 1, snapshot.number)
    )
    added, removed = count_lines(diff)
    binary = binary_paths(diff) if "\nBinary files " in diff else set()
    files = tuple(
        FileEntry(
            path=change.path,
            kind=change.kind.value,
            old_path=change.old_path,
            size=change.size,
            binary=change.path in binary,
            hash_only=change.storage is Storage.HASH_ONLY,
        )
        for change in snapshot.files
    )
    return SnapshotEntry(
        number=snapshot.number,
        time=snapshot.time,
        tool=snapshot.tool,
        session=snapshot.session,
        description=snapshot.description,
        files=files,
        lines_added=added,
        lines_removed=removed,
        diff=cut_lines(diff, budget),
        prompt=_prompt(snapshot.metadata),
        check=None
        if check is None
        else (check.passed, f"{shlex.join(check.command)} (exit {check.exit_code})"),
        ref=f"id:{snapshot.id[:12]}" if side else None,
        joins=joins,
    )


def _prompt(metadata: object) -> tuple[str, int, int, str] | None:
    # The stamp the Claude Code hook writes, read as `before-prompt:` reads it.
    from snapline.snapshots.read.prompts import prompt_stamp

    stamp = prompt_stamp(metadata)
    if stamp is None:
        return None
    text = stamp.get("text")
    return stamp["session"], stamp["n"], stamp["at"], text if isinstance(text, str) else ""


def _sections(
    milestones: Iterable[Milestone],
    entries: list[SnapshotEntry],
    scope: Scope,
    first: int,
    last: int,
) -> tuple[Section, ...]:
    sections = []
    index = 0
    open_start = 1
    for milestone in milestones:
        open_start = milestone.last + 1
        if milestone.last < first or milestone.first > last:
            continue
        if scope.milestone is not None and milestone.number != scope.milestone:
            continue
        members = []
        while index < len(entries) and entries[index].number <= milestone.last:
            if entries[index].number >= milestone.first:
                members.append(entries[index])
            index += 1
        if not members and scope.session is not None:
            continue
        chosen = tuple(members)
        sections.append(
            Section(
                number=milestone.number,
                title=milestone.title,
                description=milestone.description,
                tags=milestone.tags,
                time=milestone.time,
                first=milestone.first,
                last=milestone.last,
                snapshots=chosen,
                totals=Totals.of(chosen),
            )
        )
    rest = tuple(e for e in entries[index:] if e.number >= open_start)
    # The whole history's page says so even when nothing is open: that is news too.
    whole = scope.milestone is None and scope.session is None and scope.end is None
    if rest or (whole and (last >= open_start or open_start > 1)):
        sections.append(
            Section(
                number=None,
                title="Open: not in a milestone yet",
                description="",
                tags=(),
                time=None,
                first=open_start,
                last=rest[-1].number if rest else None,
                snapshots=rest,
                totals=Totals.of(rest),
            )
        )
    return tuple(sections)
