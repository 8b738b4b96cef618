"""Who wrote the lines each section touched: ``blame --summary`` of its files, per section.

A section's files are the paths its snapshots changed, as named after each change (a
rename's new path; its old one lives on under that name). They are blamed once for the
whole page, through ``reader.blame_summary``, and each section adds up its own files'
counts, so a file touched by two milestones is counted in both, the same way.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from snapline.blame.model import LineKind
from snapline.blame.summary import BlameSummary, LineCounts
from snapline.errors import SnaplineError
from snapline.report.model import Authors, Section

if TYPE_CHECKING:
    from snapline.report.reader import PageReader

__all__ = ["GONE", "with_authors"]

# Why a file the summary does not list was skipped: it is no longer tracked.
GONE = "not tracked now (deleted, or moved away)"


def with_authors(reader: PageReader, sections: tuple[Section, ...]) -> tuple[Section, ...]:
    """``sections``, each with the lines of the files its snapshots touched, by who wrote them.

    Args:
        reader: The history (its ``blame_summary`` counts the lines on disk now).
        sections: The page's sections, with their snapshots.

    Returns:
        The same sections with ``authors`` set (left ``None`` where no file was touched).
        A file that cannot be blamed is listed in ``skipped`` with why; when the summary
        itself fails (a damaged store), every file is, with its message: never an error.
    """
    touched = [_paths(section) for section in sections]
    wanted = sorted(set().union(*touched))
    if not wanted:
        return sections
    try:
        summary = reader.blame_summary(wanted)
    except SnaplineError as error:
        summary = BlameSummary(skipped=dict.fromkeys(wanted, str(error)))
    return tuple(
        dataclasses.replace(section, authors=_authors(summary, paths)) if paths else section
        for section, paths in zip(sections, touched, strict=True)
    )


def _paths(section: Section) -> set[str]:
    return {item.path for entry in section.snapshots for item in entry.files}


def _authors(summary: BlameSummary, paths: set[str]) -> Authors:
    counts = LineCounts()
    counted = 0
    skipped = []
    for path in sorted(paths):
        found = summary.files.get(path)
        if found is None:
            skipped.append((path, summary.skipped.get(path, GONE)))
            continue
        counts.merge(found)
        counted += 1
    return Authors(
        files=counted,
        lines=counts.lines,
        kinds=tuple((kind.value, counts.kinds[kind.value]) for kind in LineKind),
        sessions=tuple(counts.sessions.most_common()),
        people=tuple(counts.people.most_common()),
        skipped=tuple(skipped),
    )
