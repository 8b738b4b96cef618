"""Drawing a :class:`~snapline.report.model.PageModel` as one self-contained HTML page.

Every piece of text taken from the history (paths, descriptions, titles, tags, tools,
sessions, problem messages, diff content) goes through :func:`html.escape` here or
through pygments, which escapes what it colours; nothing from the history is ever put
into the page as markup. The page's Content-Security-Policy allows no network access
and runs only the page's own script (by its hash), as a second line of defence.
"""

from __future__ import annotations

import base64
import hashlib
import html
from collections.abc import Iterator
from datetime import datetime, timezone

from snapline.report.assets import SCRIPT, STYLE
from snapline.report.highlight import highlight_diff, stylesheet
from snapline.report.model import (
    FileEntry,
    JoinedLine,
    PageModel,
    Section,
    SnapshotEntry,
    Totals,
    Verdict,
)
from snapline.report.render_authors import render_authors
from snapline.sizes import format_bytes

__all__ = ["render_page"]

# Small pages open their diffs; long ones start folded so the page stays readable.
_OPEN_SNAPSHOTS = 30
_OPEN_LINES = 60
_KIND_LETTERS = {"added": "A", "modified": "M", "deleted": "D", "renamed": "R"}
_VERDICTS = {
    Verdict.OK: "ok: the history verifies and the workspace matches it",
    Verdict.DRIFT: "drift: files were changed outside snapline",
    Verdict.PROBLEMS: "problems: the history does not verify",
    Verdict.DAMAGED: "damaged store: the history cannot be trusted",
}


def render_page(page: PageModel) -> str:
    """The HTML of ``page``: one document with its CSS and script inline.

    Args:
        page: What to show.

    Returns:
        The HTML text.
    """
    return "".join(_document(page))


def _e(text: str) -> str:
    return html.escape(text, quote=True)


def _document(page: PageModel) -> Iterator[str]:
    digest = base64.b64encode(hashlib.sha256(SCRIPT.encode("utf-8")).digest()).decode("ascii")
    policy = (
        "default-src 'none'; style-src 'unsafe-inline'; img-src data:; "
        f"script-src 'sha256-{digest}'"
    )
    yield '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
    yield f'<meta http-equiv="Content-Security-Policy" content="{_e(policy)}">\n'
    yield '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
    yield f"<title>snapline review: {_e(page.title)}</title>\n"
    # The page's own rules come last so that its diff colours win over pygments' style.
    yield f"<style>{stylesheet()}{STYLE}</style>\n</head>\n<body>\n<main>\n"
    yield from _header(page)
    entries = [entry for section in page.sections for entry in section.snapshots]
    if entries:
        yield from _filters(entries)
        yield from _timeline(entries)
    opened = len(entries) <= _OPEN_SNAPSHOTS
    for section in page.sections:
        yield from _section(section, opened)
    if not page.sections:
        yield '<p class="empty">No snapshots in this part of the history.</p>\n'
    yield (
        "<footer>Made by <code>snapline report</code> at "
        f"{_e(_time(page.generated))}. Every diff in full: "
        "<code>snapline show N</code>.</footer>\n</main>\n"
    )
    yield f"<script>{SCRIPT}</script>\n</body>\n</html>\n"


def _header(page: PageModel) -> Iterator[str]:
    yield '<header class="page" id="summary">\n'
    yield f"<h1>snapline review: {_e(page.title)}</h1>\n"
    scope = page.scope.describe()
    shown = f"; showing {_e(scope)}" if scope else ""
    yield (
        f'<p class="meta">workspace <code>{_e(page.root)}</code>, snapshots 0..{page.latest}'
        f"{shown}</p>\n"
    )
    verdict = page.verdict.value
    yield (
        f'<p class="verdict verdict-{verdict}" data-verdict="{verdict}">'
        f"{_e(_VERDICTS[page.verdict])}</p>\n"
    )
    if page.problems:
        yield '<ul class="problems">\n'
        for problem in page.problems:
            yield (f'<li><span class="kind">{_e(problem.kind)}</span>{_e(problem.message)}</li>\n')
        yield "</ul>\n"
    yield from _totals(page.totals, milestones=page.milestones, css="totals", ident="totals")
    yield "</header>\n"


def _totals(
    totals: Totals, *, milestones: int | None, css: str, ident: str | None = None
) -> Iterator[str]:
    items = [("snapshots", totals.snapshots, "")]
    if milestones is not None:
        items.append(("milestones", milestones, ""))
    items += [
        ("files touched", totals.files, ""),
        ("lines added", totals.lines_added, "+"),
        ("lines removed", totals.lines_removed, "&minus;"),
        ("sessions", totals.sessions, ""),
        ("tools", totals.tools, ""),
    ]
    id_attr = f' id="{ident}"' if ident else ""
    yield f'<dl class="{css}"{id_attr}>'
    for name, value, sign in items:
        key = name.replace(" ", "-")
        yield (
            f'<div data-total="{key}"><dt>{name}</dt>'
            f'<dd class="{key}" data-value="{value}">{sign}{value:,}</dd></div>'
        )
    yield "</dl>\n"


def _session_key(session: str | None) -> str:
    # "s:" + the id, or "n:" for none, so that no session id can pose as "no session".
    return "n:" if session is None else "s:" + session


def _session_label(session: str | None) -> str:
    return "(no session)" if session is None else session


def _filters(entries: list[SnapshotEntry]) -> Iterator[str]:
    sessions = list(dict.fromkeys(entry.session for entry in entries))
    tools = sorted({entry.tool for entry in entries})
    yield '<nav class="filters" aria-label="filters">\n'
    yield '<label>session<select id="f-session"><option value="">all</option>'
    for session in sessions:
        yield (
            f'<option value="{_e(_session_key(session))}">{_e(_session_label(session))}</option>'
        )
    yield "</select></label>\n"
    yield '<label>tool<select id="f-tool"><option value="">all</option>'
    for tool in tools:
        yield f'<option value="{_e(tool)}">{_e(tool)}</option>'
    yield "</select></label>\n"
    yield (
        '<label>path<input id="f-path" type="search" placeholder="part of a path"></label>\n'
        f'<span class="count" id="f-count">{len(entries):,} snapshots</span>\n</nav>\n'
    )


def _timeline(entries: list[SnapshotEntry]) -> Iterator[str]:
    low, high = entries[0].number, entries[-1].number
    span = max(high - low, 1)
    lanes: dict[str | None, list[SnapshotEntry]] = {}
    for entry in entries:
        lanes.setdefault(entry.session, []).append(entry)
    yield '<section class="timeline" id="timeline">\n<h2>Timeline by session</h2>\n'
    for session, members in lanes.items():
        yield (
            f'<div class="lane" data-session="{_e(_session_key(session))}">'
            f'<span class="who session">{_e(_session_label(session))}</span><span class="track">'
        )
        for entry in members:
            left = 100.0 * (entry.number - low) / span
            title = f"{entry.number} {entry.tool}: {_first_line(entry.description)}"
            yield (
                f'<a class="mark" href="#s-{entry.number}" style="left:{left:.2f}%" '
                f'title="{_e(title)}"></a>'
            )
        yield f'</span><span class="n">{len(members):,}</span></div>\n'
    yield "</section>\n"


def _first_line(text: str, limit: int = 80) -> str:
    line = text.split("\n", 1)[0]
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _section(section: Section, opened: bool) -> Iterator[str]:
    if section.number is None:
        ident, css = "open", "range open"
        heading = _e(section.title)
        span = f"snapshots {section.first}..{section.last}" if section.last else "nothing yet"
    else:
        ident, css = f"m-{section.number}", "range milestone"
        heading = f"Milestone {section.number}: {_e(section.title)}"
        span = f"snapshots {section.first}..{section.last}"
    number = "" if section.number is None else str(section.number)
    yield f'<section class="{css}" id="{ident}" data-milestone="{number}">\n<header>\n'
    yield f"<h2>{heading}"
    if section.tags:
        # Phrasing content only: a heading may not hold a list.
        yield '<span class="tags">'
        yield "".join(f'<span class="tag">{_e(tag)}</span>' for tag in section.tags)
        yield "</span>"
    yield "</h2>\n"
    when = f" · closed {_e(_time(section.time))}" if section.time is not None else ""
    yield f'<p class="meta">{span}{when}</p>\n'
    if section.description:
        yield f'<p class="description">{_e(section.description)}</p>\n'
    yield from _totals(section.totals, milestones=None, css="totals small")
    if section.authors is not None:
        yield from render_authors(section.authors)
    yield "</header>\n"
    group = None
    for entry in section.snapshots:
        # Snapshots answering one agent prompt come under a line naming it.
        if entry.prompt is not None and entry.prompt[:2] != group:
            yield _prompt(entry.prompt)
        group = None if entry.prompt is None else entry.prompt[:2]
        yield from _snapshot(entry, opened)
    if not section.snapshots:
        yield '<p class="empty">Nothing recorded since the last milestone.</p>\n'
    yield "</section>\n"


def _prompt(prompt: tuple[str, int, int, str]) -> str:
    session, number, at, text = prompt
    said = f' <q class="what">{_e(text.strip().splitlines()[0][:200])}</q>' if text.strip() else ""
    return (
        f'<p class="prompt" data-session="{_e(_session_key(session))}">prompt {number} '
        f'<span class="session">@{_e(session)}</span>{said} '
        f'<span class="note">before it: snapshot {at}, '
        f"<code>before-prompt:{number}@{_e(session)}</code></span></p>\n"
    )


def _anchor(entry: SnapshotEntry) -> str:
    # A joined line's snapshot shares its number with the main line's: its id names it.
    return f"s-{entry.number}" if entry.ref is None else f"s-{entry.ref[3:]}"


def _snapshot(entry: SnapshotEntry, opened: bool) -> Iterator[str]:
    anchor = _anchor(entry)
    yield (
        f'<article class="snapshot" id="{anchor}" '
        f'data-session="{_e(_session_key(entry.session))}" data-tool="{_e(entry.tool)}">\n'
    )
    session = (
        f'<span class="session">@{_e(entry.session)}</span>' if entry.session is not None else ""
    )
    check = ""
    if entry.check is not None:
        passed, command = entry.check
        word, kind = ("passed", "pass") if passed else ("failed", "fail")
        check = f'<span class="check {kind}" title="{_e(command)}">{word}</span>'
    ref = f" <code>{_e(entry.ref)}</code>" if entry.ref is not None else ""
    yield (
        f'<h3><a class="num" href="#{anchor}">#{entry.number}{ref}</a>'
        f'<span class="when">{_e(_time(entry.time))}</span>'
        f'<span class="tool">{_e(entry.tool)}</span>{session}{check}'
        f'<span class="stat"><span class="added-n">+{entry.lines_added:,}</span> '
        f'<span class="removed-n">&minus;{entry.lines_removed:,}</span></span>'
        f'<span class="what">{_e(entry.description or "(no description)")}</span></h3>\n'
    )
    yield '<ul class="files">'
    for item in entry.files:
        yield _file(item)
    yield "</ul>\n"
    yield from _diff(entry, opened)
    for line in entry.joins:
        yield from _joined(line, opened)
    yield "</article>\n"


def _joined(line: JoinedLine, opened: bool) -> Iterator[str]:
    first, last = line.snapshots[0].number, line.snapshots[-1].number
    yield (
        f'<section class="joined" data-line="{_e(line.head)}">\n<h4>Joins line '
        f"<code>{_e(line.head[:12])}</code>: snapshots {first}..{last} from snapshot "
        f"{line.fork}, recorded on a branch merged in git</h4>\n"
    )
    if line.milestones:
        yield '<ul class="joined-milestones">'
        for number, title, start, end in line.milestones:
            yield f"<li>Milestone {number}: {_e(title)} (snapshots {start}..{end})</li>"
        yield "</ul>\n"
    for entry in line.snapshots:
        yield from _snapshot(entry, opened)
    yield "</section>\n"


def _file(item: FileEntry) -> str:
    letter = _KIND_LETTERS.get(item.kind, "?")
    name = f'<span class="path">{_e(item.path)}</span>'
    if item.old_path is not None:
        name = f'<span class="path">{_e(item.old_path)}</span> → {name}'
    notes = []
    if item.hash_only:
        notes.append("hash only (above the large-file limit)")
    elif item.binary:
        notes.append("binary")
    if (item.hash_only or item.binary) and item.size is not None:
        notes.append(format_bytes(item.size))
    note = f'<span class="note">{_e(", ".join(notes))}</span>' if notes else ""
    return (
        f'<li class="file" data-kind="{_e(item.kind)}"><span class="k k-{_e(item.kind)}" '
        f'title="{_e(item.kind)}">{letter}</span>{name}{note}</li>'
    )


def _diff(entry: SnapshotEntry, opened: bool) -> Iterator[str]:
    view = entry.diff
    if view.total_lines == 0:
        return
    command = f"snapline show {entry.number if entry.ref is None else entry.ref}"
    if view.omitted is not None:
        yield (
            f'<p class="cut">Diff of {view.total_lines:,} lines left out: {_e(view.omitted)}; '
            f"read it with <code>{command}</code>.</p>\n"
        )
        return
    is_open = " open" if opened and view.shown_lines <= _OPEN_LINES else ""
    yield f"<details{is_open}><summary>diff · {view.total_lines:,} lines</summary>"
    yield f'<pre class="diff">{highlight_diff(view.text)}</pre>'
    if view.cut:
        yield (
            f'<p class="cut">Cut: {view.shown_lines:,} of {view.total_lines:,} lines shown'
            f"{' (long lines shortened)' if view.shortened else ''}; the whole diff: "
            f"<code>{command}</code>"
            + (
                f" or <code>snapline diff {entry.number - 1} {entry.number}</code>"
                if entry.ref is None
                else ""
            )
            + ".</p>"
        )
    yield "</details>\n"


def _time(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")
