"""``snapline milestone create|list|show|diff|rollback|export``."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from snapline.cli import usage
from snapline.cli.context import JsonOption, command_group, workspace
from snapline.cli.errors import FORCE_OFFERED
from snapline.cli.output import echo, echo_diff, echo_json, format_time, plural
from snapline.cli.preview import DiffOption, YesOption, asking
from snapline.cli.quoting import quote_text
from snapline.cli.render import echo_modified
from snapline.cli.restore import (
    DryRunOption,
    ForceOption,
    confirmed,
    echo_resume,
    render_result,
    taken_back,
)

if TYPE_CHECKING:
    from snapline import Milestone
    from snapline.milestones.lines import OtherLine, OtherMilestone

__all__ = ["group", "milestone_json"]

group = command_group("milestone")

NumberArgument = Annotated[int, typer.Argument(metavar="M", help="The milestone number.", min=1)]


def milestone_json(milestone: Milestone) -> dict[str, Any]:
    """A milestone's JSON shape: the model's fields, plus ``start``/``end`` (= first/last)."""
    return {**milestone.model_dump(mode="json"), "start": milestone.first, "end": milestone.last}


def _milestone_line(milestone: Milestone) -> None:
    tags = [("  [" + ", ".join(milestone.tags) + "]", "magenta")] if milestone.tags else []
    echo(
        (f"{milestone.number:>4}", "bold yellow"),
        "  ",
        (f"snapshots {milestone.first}..{milestone.last}", "cyan"),
        "  ",
        (format_time(milestone.time), "dim"),
        "  ",
        milestone.title,
        *tags,
    )


@group.command("create", cls=usage.Command)
def create(
    ctx: typer.Context,
    title: Annotated[
        str | None,
        typer.Option(
            "--title", metavar="TEXT", help="One line naming the step (default: first line of -m)."
        ),
    ] = None,
    message: Annotated[
        str, typer.Option("-m", "--message", metavar="TEXT", help="Description.")
    ] = "",
    start: Annotated[
        str | None,
        typer.Option(
            "--from",
            metavar="N",
            help="First snapshot; must be one past the previous milestone (the default).",
        ),
    ] = None,
    to: Annotated[
        str, typer.Option("--to", metavar="N", help="Last snapshot: a number, latest or latest~N.")
    ] = "latest",
    tags: Annotated[
        list[str] | None, typer.Option("--tag", metavar="TAG", help="A short label (repeatable).")
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """Close the open range as the next milestone.

    The range starts one past the previous milestone (snapshot 1 for the first) and
    ends at --to.
    """
    with workspace(ctx) as ws:
        name = title or _first_line(message) or f"milestone {ws.milestones.current().milestone}"
        milestone = ws.milestones.create(
            name, description=message, to=to, start=start, tags=tags or ()
        )
    if as_json:
        echo_json(milestone_json(milestone))
        return
    echo(
        ("created milestone ", "green"),
        (str(milestone.number), "bold yellow"),
        f": {milestone.title} (snapshots {milestone.first}..{milestone.last}, "
        f"{plural(milestone.count, 'snapshot')})",
    )


def _first_line(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


@group.command("list", cls=usage.Command)
def list_(ctx: typer.Context, as_json: JsonOption = False) -> None:
    """List milestones, oldest first, with the lines of joined branches.

    Under each milestone, the lines its merge snapshots joined (branches merged in git
    that recorded their own snapshots): their snapshots, by id:PREFIX, and their
    milestones. Then the lines not in a milestone yet, and the milestone files the
    main line does not hold.
    """
    with workspace(ctx) as ws:
        milestones = ws.milestones.list()
        others = ws.milestones.others()
        lines = ws.milestones.lines()
    placed = {m.number: [x for x in lines if _joined_in(x, m)] for m in milestones}
    if as_json:
        echo_json(
            [
                {**milestone_json(m), "lines": [_line_json(x) for x in placed[m.number]]}
                for m in milestones
            ]
        )
        return
    for milestone in milestones:
        _milestone_line(milestone)
        for line in placed[milestone.number]:
            _echo_line(line)
    rest = [x for x in lines if not any(x in found for found in placed.values())]
    if rest:
        echo(("other lines, not in a milestone yet:", "dim"))
    for line in rest:
        _echo_line(line)
    if others:
        echo(("closed on other lines:", "dim"))
    for other in others:
        _other_line(other)
    if not milestones and not others:
        echo("no milestones yet; create one with `snapline milestone create`", err=True)


def _joined_in(line: OtherLine, milestone: Milestone) -> bool:
    return line.joined_by is not None and milestone.first <= line.joined_by <= milestone.last


def _line_json(line: OtherLine) -> dict[str, Any]:
    return {
        "line": line.head,
        "fork": line.fork,
        "joined_by": line.joined_by,
        "snapshots": [
            {**s.model_dump(mode="json"), "ref": f"id:{s.id[:12]}"} for s in line.snapshots
        ],
        "milestones": [
            {
                "number": m.row.number,
                "title": m.row.title,
                "first": m.row.first,
                "last": m.row.last,
                "file": m.name,
                "joined_by": m.joined_by,
            }
            for m in line.milestones
        ],
    }


def _echo_line(line: OtherLine) -> None:
    joined = (
        f"joined by snapshot {line.joined_by}"
        if line.joined_by is not None
        else "not joined yet: run `snapline merge`"
    )
    first, last = line.snapshots[0].number, line.snapshots[-1].number
    echo(
        "      ",
        ("line ", "dim"),
        (line.head[:12], "cyan"),
        f": snapshots {first}..{last} from snapshot {line.fork}, {joined}",
    )
    for snapshot in line.snapshots:
        echo(
            "        ",
            (f"{snapshot.number:>4}", "yellow"),
            "  ",
            (f"id:{snapshot.id[:12]}", "dim"),
            "  ",
            (snapshot.tool, "cyan"),
            "  ",
            snapshot.description or "(no description)",
        )
    for closed in line.milestones:
        row = closed.row
        echo(
            "        ",
            ("milestone ", "dim"),
            (str(row.number), "yellow"),
            f" {row.title} (snapshots {row.first}..{row.last})",
        )


def _other_line(other: OtherMilestone) -> None:
    from datetime import datetime

    from snapline.milestones.lines import Place

    row = other.row
    if other.place is Place.ORPHAN:
        where = "orphaned: its last snapshot is not in this checkout"
    elif other.joined_by is not None:
        where = f"joined by snapshot {other.joined_by}"
    else:
        where = "not joined yet: run `snapline merge`"
    line = f"line {other.line[:12]}, " if other.line else ""
    echo(
        (f"{row.number:>4}", "yellow"),
        "  ",
        (f"snapshots {row.first}..{row.last}", "cyan"),
        "  ",
        (format_time(datetime.fromisoformat(row.time)), "dim"),
        "  ",
        row.title,
        (f"  ({line}{where}; {other.name})", "dim"),
    )


@group.command("show", cls=usage.Command)
def show(ctx: typer.Context, number: NumberArgument, as_json: JsonOption = False) -> None:
    """Show a milestone with its files and line counts."""
    with workspace(ctx) as ws:
        milestone = ws.milestones.get(number)
        stats = ws.milestones.stats(number)
        files = ws.milestones.files(number)
    if as_json:
        echo_json(
            {
                **milestone_json(milestone),
                "stats": stats.model_dump(mode="json"),
                "files": [item.model_dump(mode="json") for item in files],
            }
        )
        return
    echo(("milestone ", "bold"), (str(milestone.number), "bold yellow"), f": {milestone.title}")
    echo(
        (f"{'snapshots:':<11}", "dim"),
        f"{milestone.first}..{milestone.last} ({plural(milestone.count, 'snapshot')})",
    )
    echo((f"{'created:':<11}", "dim"), format_time(milestone.time))
    if milestone.tags:
        echo((f"{'tags:':<11}", "dim"), ", ".join(milestone.tags))
    echo(
        (f"{'changed:':<11}", "dim"),
        f"{plural(stats.files, 'file')}, ",
        (f"+{stats.lines_added}", "green"),
        " ",
        (f"-{stats.lines_removed}", "red"),
    )
    if milestone.description.strip():
        echo()
        for line in milestone.description.strip("\n").splitlines():
            echo("    " + line)
    if files:
        echo()
        echo_modified(files)


@group.command("diff", cls=usage.Command)
def diff(ctx: typer.Context, number: NumberArgument, as_json: JsonOption = False) -> None:
    """Print the unified diff of a whole milestone."""
    with workspace(ctx) as ws:
        text = ws.milestones.diff(number)
    if as_json:
        echo_json({"milestone": number, "diff": text})
        return
    echo_diff(text)


@group.command("rollback", cls=usage.Command)
def rollback(
    ctx: typer.Context,
    number: NumberArgument,
    dry_run: DryRunOption = False,
    force: ForceOption = False,
    yes: YesOption = False,
    whole_diff: DiffOption = False,
    as_json: JsonOption = False,
) -> None:
    """Go back to just before milestone M.

    Restores the state after snapshot first-1, as a new snapshot. On a terminal it
    shows what will change and asks first (--yes: do not).
    """
    ctx.meta[FORCE_OFFERED] = True  # its refusals may advise --force
    with workspace(ctx) as ws:
        if asking(yes=yes, dry_run=dry_run, as_json=as_json):
            preview = ws.milestones.rollback(number, dry_run=True, force=force)
            if not confirmed(ws, preview, as_json=as_json, force=force, whole_diff=whole_diff):
                return
        result = ws.milestones.rollback(number, dry_run=dry_run, force=force)
        sessions = [] if dry_run or as_json else taken_back(ws, result)
    render_result(result, as_json=as_json, force=force)
    echo_resume(sessions)


@group.command("export", cls=usage.Command)
def export(
    ctx: typer.Context,
    number: NumberArgument,
    output: Annotated[
        Path | None,
        typer.Option(
            "-o",
            "--output",
            metavar="FILE",
            dir_okay=False,
            help="Write the patch to FILE (atomically) instead of stdout.",
        ),
    ] = None,
) -> None:
    """Export milestone M as a patch.

    `git apply` accepts it; it is headed by the title and description.
    """
    with workspace(ctx) as ws:
        text = ws.milestones.export(number, output)
    if output is None:
        sys.stdout.write(text)
    else:
        echo(f"wrote milestone {number} to {quote_text(str(output))}", err=True)
