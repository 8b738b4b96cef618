"""Drawing a section's :class:`~snapline.report.model.Authors`: who wrote its files' lines.

Session names, people and paths come from the history: each goes through
:func:`html.escape`, as everything else on the page does.
"""

from __future__ import annotations

import html
from collections.abc import Iterator

from snapline.report.model import Authors

__all__ = ["render_authors"]

_KIND_LABELS = {
    "agent": "by agents",
    "person": "by people",
    "baseline": "baseline (before snapline)",
    "unrecorded": "not recorded yet",
}


def _e(text: str) -> str:
    return html.escape(text, quote=True)


def render_authors(authors: Authors) -> Iterator[str]:
    """The HTML of one section's line counts by author (inside its header).

    Args:
        authors: The counts.

    Yields:
        Pieces of HTML: the counts by kind, by agent session and by person, then the
        files that were not counted and why.
    """
    files = "file" if authors.files == 1 else "files"
    yield (
        f'<div class="authors" data-lines="{authors.lines}" data-files="{authors.files}">'
        f'<p class="meta">Lines on disk now of the {authors.files:,} {files} touched, '
        f"by who wrote them (<code>snapline blame --summary</code>): {authors.lines:,}</p>\n"
    )
    yield '<dl class="totals small authors-kinds">'
    for kind, count in authors.kinds:
        yield (
            f'<div data-kind="{kind}"><dt>{_KIND_LABELS.get(kind, kind)}</dt>'
            f'<dd data-value="{count}">{count:,}</dd></div>'
        )
    yield "</dl>\n"
    rows = [("agent", who, n) for who, n in authors.sessions]
    rows += [("person", who, n) for who, n in authors.people]
    if rows:
        yield '<ul class="authors-who">'
        for kind, who, count in rows:
            yield (
                f'<li data-kind="{kind}" data-who="{_e(who)}" data-value="{count}">'
                f'{kind} <span class="session">{_e(who)}</span> <span class="n">{count:,}</span>'
                "</li>"
            )
        yield "</ul>\n"
    if authors.skipped:
        yield '<ul class="authors-skipped">'
        for path, why in authors.skipped:
            yield (
                f'<li data-path="{_e(path)}">not counted: <span class="path">{_e(path)}</span> '
                f'<span class="note">{_e(why)}</span></li>'
            )
        yield "</ul>\n"
    yield "</div>\n"
