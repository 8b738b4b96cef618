"""The review page: a workspace's history, milestone by milestone, as one HTML file.

``collect`` gathers the page's records through a :class:`PageReader`, the reads the page
makes of a history (the workspace facade hands itself down as one); ``render`` draws
them, escaping everything the history holds. The page needs no network: its CSS and
script are inline. ``Workspace.report`` is the public entry point.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from snapline.report.collect import ReportScopeError, collect
from snapline.report.model import PageModel, Scope, Verdict
from snapline.report.output import LOCAL_REPORT, ReportOutputError, local_path, output_path
from snapline.report.reader import MilestoneReader, PageReader
from snapline.report.render import render_page

if TYPE_CHECKING:
    from snapline.snapshots.snapshot import Report

__all__ = [
    "LOCAL_REPORT",
    "MilestoneReader",
    "PageModel",
    "PageReader",
    "ReportOutputError",
    "ReportScopeError",
    "Scope",
    "Verdict",
    "build_page",
    "local_path",
    "output_path",
]


def build_page(reader: PageReader, scope: Scope, *, verification: Report | None = None) -> str:
    """The HTML of the review page of the history ``reader`` reads, for ``scope``.

    Args:
        reader: The history to read (an open workspace hands itself).
        scope: The part of the history to show.
        verification: A ``reader.verify()`` result already at hand; ``None`` runs it.

    Returns:
        The page, one self-contained HTML document.

    Raises:
        ReportScopeError: If both a milestone and a snapshot range are given.
        MilestoneNotFoundError: If the milestone does not exist.
        SnapshotNotFoundError: If the range names a snapshot that does not exist.
        SnapshotRangeError: If the range runs backwards.
    """
    return render_page(collect(reader, scope, verification=verification))
