"""``snapline blame``: who wrote each line of a file, or how many lines each wrote."""

from __future__ import annotations

import re
import sys
from typing import TYPE_CHECKING, Annotated

import typer

from snapline.cli import click_api as click
from snapline.cli.context import JsonOption, user_paths, workspace
from snapline.cli.output import echo, echo_json

if TYPE_CHECKING:
    from snapline.blame import BlameLine, FileBlame

__all__ = ["blame"]

_RANGE = re.compile(r"\s*(\d+)\s*(?:,\s*(\d+)\s*)?")


def _line_range(value: str | None) -> tuple[int, int] | None:
    """``-L a,b`` (or ``-L a``: from line a to the end) as a pair, checked."""
    if value is None:
        return None
    match = _RANGE.fullmatch(value)
    if match is None or int(match[1]) < 1 or (match[2] and int(match[2]) < int(match[1])):
        raise click.BadParameter(
            f"{value!r} is not a line range: write START,END (from 1, START <= END)",
            param_hint="'-L'",
        )
    return int(match[1]), int(match[2]) if match[2] else 1 << 62


def blame(
    ctx: typer.Context,
    paths: Annotated[
        list[str] | None,
        typer.Argument(metavar="[FILE]...", help="The file (with --summary: any paths, or none)."),
    ] = None,
    line_range: Annotated[
        str | None,
        typer.Option("-L", metavar="START,END", help="Only these lines (from 1)."),
    ] = None,
    porcelain: Annotated[
        bool, typer.Option("--porcelain", help="Print a stable form for tools, as git's.")
    ] = False,
    summary: Annotated[
        bool,
        typer.Option("--summary", help="Count lines by agent session, person and baseline."),
    ] = False,
    markdown: Annotated[
        str | None,
        typer.Option(
            "--markdown",
            metavar="A..B",
            help="Write a pull request's review of the snapshots after A up to B (default: "
            "latest) as Markdown, for $GITHUB_STEP_SUMMARY.",
        ),
    ] = None,
    commits: Annotated[
        str | None,
        typer.Option(
            "--commits",
            metavar="BASE..HEAD",
            help="Write the review of a pull request given as git commits (origin/main..HEAD, "
            "or two SHAs) as Markdown: its snapshots on any line (history on git's refs).",
        ),
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """Show who wrote each line of a file: the snapshot, its tool, session and prompt.

    Each line on disk is given the snapshot that last wrote it, as `git blame` would
    on a repository holding one commit per snapshot: `agent` (a tool's snapshot),
    `person` (an outside change, recorded by `resync`), `baseline` (snapshot 0, from
    before snapline) or `unrecorded` (changed on disk since the latest snapshot).
    """
    if (summary or markdown is not None or commits is not None) and (
        line_range is not None or porcelain
    ):
        raise click.UsageError("-L and --porcelain are for one FILE, not --summary or --markdown")
    if commits is not None:
        _commits(ctx, commits, markdown)
        return
    if markdown is not None:
        base, dots, end = markdown.partition("..")
        if not dots or not base.strip():
            raise click.BadParameter(
                f"{markdown!r} is not a range: write A..B or A.. (snapshot references)",
                param_hint="'--markdown'",
            )
        with workspace(ctx) as ws:
            verified = ws.verify()
            text = ws.blame_markdown(base.strip(), end.strip() or None, verification=verified)
        sys.stdout.write(text)
        return
    if summary:
        from snapline.cli.blame_summary import summarize

        summarize(ctx, paths, as_json=as_json)
        return
    if not paths or len(paths) != 1:
        raise click.UsageError("blame takes one FILE (several paths only with --summary)")
    wanted = _line_range(line_range)
    with workspace(ctx) as ws:
        resolved = user_paths(ws, paths)
        if resolved is None:
            raise click.UsageError("blame takes a file, not the workspace root")
        found = ws.blame(resolved[0], lines=wanted)
    if as_json:
        echo_json(found.to_json())
    elif porcelain:
        for line in found.lines:
            _porcelain(line)
    else:
        _text(found)


def _commits(ctx: typer.Context, commits: str, markdown: str | None) -> None:
    """``--commits BASE..HEAD``: git revisions, never snapshot references (two dots only)."""
    if markdown is not None:
        raise click.UsageError("give --markdown A..B (snapshots) or --commits BASE..HEAD, not both")
    base, dots, head = commits.partition("..")
    if not dots or not base.strip() or head.startswith("."):
        raise click.BadParameter(
            f"{commits!r} is not a commit range: write BASE..HEAD or BASE.. (git revisions, "
            "as `git log BASE..HEAD`)",
            param_hint="'--commits'",
        )
    with workspace(ctx) as ws:
        verified = ws.verify()
        text = ws.blame_commits_markdown(
            base.strip(), head.strip() or "HEAD", verification=verified
        )
    sys.stdout.write(text)


def _text(found: FileBlame) -> None:
    width = len(str(found.lines[-1].number)) if found.lines else 1
    for line in found.lines:
        origin = line.origin
        number = "-" if origin.number is None else str(origin.number)
        ident = (origin.id or "").ljust(8, "-")[:8] if origin.id else "--------"
        prompt = "" if origin.prompt is None else f"p{origin.prompt}"
        milestone = "" if origin.milestone is None else f"M{origin.milestone}"
        echo(
            (f"{number:>5} {ident} ", "yellow"),
            f"{origin.kind.value:<10} {origin.author[:12]:<12} {prompt:<4} {milestone:<4} "
            f"{line.number:>{width}}) {line.shown()}",
        )


def _porcelain(line: BlameLine) -> None:
    """One line as git's ``--line-porcelain`` writes it: header, fields, then TAB and text."""
    origin = line.origin
    fields = origin.to_json()
    head = f"{origin.id or '-'} {'-' if origin.number is None else origin.number} {line.number}"
    rows = [head] + [
        f"{name} {'-' if value is None else value}"
        for name, value in fields.items()
        if name not in ("id", "snapshot")
    ]
    echo("\n".join(rows) + "\n\t" + line.shown())
