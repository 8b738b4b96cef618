"""The review page: a workspace's history, milestone by milestone, as one HTML file.

``collect`` gathers the page's records through the :class:`~snapline.Workspace` public
API; ``render`` draws them, escaping everything the history holds. The page needs no
network: its CSS and script are inline. ``Workspace.report`` is the public entry point.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from snapline.report.collect import ReportScopeError, collect
from snapline.report.model import PageModel, Scope, Verdict
from snapline.report.output import LOCAL_REPORT, ReportOutputError, local_path, output_path
from snapline.report.render import render_page

if TYPE_CHECKING:
    from snapline import Report, Workspace

__all__ = [
    "LOCAL_REPORT",
    "PageModel",
    "ReportOutputError",
    "ReportScopeError",
    "Scope",
    "Verdict",
    "build_page",
    "local_path",
    "output_path",
]


def build_page(ws: Workspace, scope: Scope, *, verification: Report | None = None) -> str:
    """The HTML of the review page of ``ws`` for ``scope``.

    Args:
        ws: An open workspace.
        scope: The part of the history to show.
        verification: A ``ws.verify()`` result already at hand; ``None`` runs it.

    Returns:
        The page, one self-contained HTML document.

    Raises:
        ReportScopeError: If both a milestone and a snapshot range are given.
        MilestoneNotFoundError: If the milestone does not exist.
        SnapshotNotFoundError: If the range names a snapshot that does not exist.
        SnapshotRangeError: If the range runs backwards.
    """
    return render_page(collect(ws, scope, verification=verification))
