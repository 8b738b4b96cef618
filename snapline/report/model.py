"""What a review page shows, as immutable records: gathered by ``collect``, drawn by ``render``.

Nothing here reads a store or writes HTML; the records hold the history's own text,
unescaped, and the renderer escapes every piece of it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import Enum

__all__ = [
    "Authors",
    "DiffView",
    "FileEntry",
    "JoinedLine",
    "PageModel",
    "ProblemEntry",
    "Scope",
    "Section",
    "SnapshotEntry",
    "Totals",
    "Verdict",
]


class Verdict(str, Enum):
    """The verification result the page leads with."""

    OK = "ok"
    DRIFT = "drift"  # only files changed outside snapline
    PROBLEMS = "problems"  # the history has problems, none of them damage
    DAMAGED = "damaged"  # the store is damaged or cannot be read


@dataclass(frozen=True)
class Scope:
    """Which part of the history a page covers; every field ``None`` means all of it.

    Attributes:
        milestone: Only this milestone's snapshots.
        start: Only snapshots from this number on.
        end: Only snapshots up to this number.
        session: Only snapshots of this session.
    """

    milestone: int | None = None
    start: int | None = None
    end: int | None = None
    session: str | None = None

    def describe(self) -> str:
        """The scope in words, for the page's header (``""`` for the whole history)."""
        parts = []
        if self.milestone is not None:
            parts.append(f"milestone {self.milestone}")
        if self.start is not None or self.end is not None:
            first = "" if self.start is None else str(self.start)
            last = "" if self.end is None else str(self.end)
            parts.append(f"snapshots {first}..{last}")
        if self.session is not None:
            parts.append(f"session {self.session}")
        return ", ".join(parts)


@dataclass(frozen=True)
class ProblemEntry:
    """One problem the verification found."""

    kind: str
    message: str
    path: str | None
    corrupt: bool


@dataclass(frozen=True)
class FileEntry:
    """One file a snapshot changed.

    Attributes:
        path: The path after the change.
        kind: ``added``, ``modified``, ``deleted`` or ``renamed``.
        old_path: The path before a rename.
        size: Bytes of the new version (``None`` for a deletion).
        binary: The diff names the file without showing lines.
        hash_only: Above the large-file limit: only its hash was recorded.
    """

    path: str
    kind: str
    old_path: str | None
    size: int | None
    binary: bool
    hash_only: bool


@dataclass(frozen=True)
class DiffView:
    """A snapshot's unified diff as the page shows it.

    Attributes:
        text: The diff, or its first lines when it was cut.
        total_lines: Lines in the whole diff.
        shown_lines: Lines of it in ``text``.
        omitted: Why the diff is not on the page at all (the page's budget was spent),
            or ``None``.
        shortened: Some lines were too long and are shown in part.
    """

    text: str
    total_lines: int
    shown_lines: int
    omitted: str | None = None
    shortened: bool = False

    @property
    def cut(self) -> bool:
        """Whether part of the diff is missing from the page."""
        return self.omitted is not None or self.shortened or self.shown_lines < self.total_lines


@dataclass(frozen=True)
class SnapshotEntry:
    """One snapshot as listed on the page.

    ``prompt`` is the agent prompt it answered, ``(session, n, at, text)``, when the
    Claude Code hook stamped it (``text`` empty when only a digest was kept). ``check``
    is its latest check (``snapline guard``): whether it passed, and the command line
    with its exit code.
    """

    number: int
    time: datetime
    tool: str
    session: str | None
    description: str
    files: tuple[FileEntry, ...]
    lines_added: int
    lines_removed: int
    diff: DiffView
    prompt: tuple[str, int, int, str] | None = None
    check: tuple[bool, str] | None = None
    ref: str | None = None
    joins: tuple[JoinedLine, ...] = ()


@dataclass(frozen=True)
class JoinedLine:
    """A line of history a merge snapshot joined (a branch merged in git), shown under it.

    Attributes:
        head: The id of its latest snapshot, which names the line.
        fork: The main-line snapshot it continues from.
        snapshots: Its snapshots, oldest first, each with its own diff and its
            ``ref`` (``id:PREFIX``); not counted in the page's totals, which the merge's
            own diff already holds.
        milestones: The milestones closed on it: ``(number, title, first, last)``.
    """

    head: str
    fork: int
    snapshots: tuple[SnapshotEntry, ...]
    milestones: tuple[tuple[int, str, int, int], ...]


@dataclass(frozen=True)
class Totals:
    """What a set of snapshots adds up to.

    ``lines_added``/``lines_removed`` are summed over each snapshot's own diff, so a line
    added in one snapshot and removed in the next counts in both. ``sessions`` counts
    session ids; snapshots recorded without one add none.
    """

    snapshots: int
    files: int
    lines_added: int
    lines_removed: int
    sessions: int
    tools: int

    @classmethod
    def of(cls, snapshots: tuple[SnapshotEntry, ...]) -> Totals:
        """The totals of ``snapshots``."""
        paths: set[str] = set()
        for snapshot in snapshots:
            for entry in snapshot.files:
                paths.add(entry.path)
                if entry.old_path is not None:
                    paths.add(entry.old_path)
        return cls(
            snapshots=len(snapshots),
            files=len(paths),
            lines_added=sum(s.lines_added for s in snapshots),
            lines_removed=sum(s.lines_removed for s in snapshots),
            sessions=len({s.session for s in snapshots if s.session is not None}),
            tools=len({s.tool for s in snapshots}),
        )


@dataclass(frozen=True)
class Authors:
    """The lines on disk now of the files a section's snapshots touched, by who wrote them.

    Counted as ``snapline blame --summary`` counts those files, whoever wrote each line
    and whenever (in this milestone or another).

    Attributes:
        files: How many of the files were counted.
        lines: Their lines.
        kinds: Lines per kind, in the order ``agent``, ``person``, ``baseline``,
            ``unrecorded``.
        sessions: An agent's lines per session (its tool when it had none), most first.
        people: A person's lines per session (``person`` when none was given), most first.
        skipped: The files not counted, with why (binary, tracked by hash only, deleted).
    """

    files: int
    lines: int
    kinds: tuple[tuple[str, int], ...]
    sessions: tuple[tuple[str, int], ...]
    people: tuple[tuple[str, int], ...]
    skipped: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class Section:
    """A milestone (``number`` set) or the open range after the last one (``number`` ``None``).

    ``first``/``last`` are the milestone's own range, or the open range's. ``authors``
    counts the lines of the files its snapshots touched (``None``: they touched none).
    """

    number: int | None
    title: str
    description: str
    tags: tuple[str, ...]
    time: datetime | None
    first: int
    last: int | None
    snapshots: tuple[SnapshotEntry, ...]
    totals: Totals
    authors: Authors | None = None


@dataclass(frozen=True)
class PageModel:
    """Everything one review page shows.

    Attributes:
        title: The workspace's name.
        root: The workspace root.
        generated: When the page was made.
        latest: The latest snapshot number.
        scope: The part of the history shown.
        verdict: The verification result.
        problems: What the verification found.
        totals: Over every snapshot shown.
        milestones: How many milestones have a section.
        sections: Milestones in order, then the open range.
    """

    title: str
    root: str
    generated: datetime
    latest: int
    scope: Scope
    verdict: Verdict
    problems: tuple[ProblemEntry, ...]
    totals: Totals
    milestones: int
    sections: tuple[Section, ...]
