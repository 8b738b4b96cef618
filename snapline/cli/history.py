"""Commands that read the history: ``status``, ``log``, ``show`` (``diff``: cli/diffs.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any

import typer

from snapline.cli.context import (
    JsonOption,
    SessionFilterOption,
    SnapshotArgument,
    user_paths,
    workspace,
)
from snapline.cli.output import echo, echo_diff, echo_json, format_time, plural
from snapline.cli.quoting import quote_path, quote_text
from snapline.cli.render import (
    check_text,
    echo_changes,
    model_json,
    prompt_line,
    side_line,
    snapshot_line,
)

if TYPE_CHECKING:
    from snapline import Problem, SideSnapshot, Snapshot, Workspace
    from snapline.guard import CheckOutcome
    from snapline.snapshots.check.unfetched import Pulled
    from snapline.snapshots.snapshot import Explained

__all__ = ["log", "show", "status"]

_DRIFT_STYLES = {"modified": "yellow", "deleted": "red", "untracked": "green"}


def status(
    ctx: typer.Context,
    as_json: JsonOption = False,
) -> None:
    """Show the latest snapshot, open milestone and drift.

    Exits 0 even when files drifted (like `git status`); `snapline verify` is the
    command that fails on drift.
    """
    from snapline.cli.warm.served import watched
    from snapline.workspace.rows import latest_header, sync_state

    with workspace(ctx) as ws:
        # The JSON shows the latest snapshot whole; the text only its header, read
        # without its changes (a baseline has one per file of the workspace).
        latest = _latest(ws) if as_json else latest_header(ws)
        open_range = ws.milestones.current()
        # Served warm, only what the server's monitor saw change (cli/warm/served.py).
        found, explained, came = sync_state(ws, None, watched(ws.root))
        drift = tuple(found)
        states = ws.history_states()
        root = str(ws.root)
        advise = ws.advise
    if as_json:
        echo_json(
            {
                "root": root,
                "latest": model_json(latest),
                "milestone": open_range.model_dump(mode="json"),
                "in_sync": not drift,
                # A clone behind its line: the snapshot its files were held to.
                "explained": None if explained is None else explained.model_dump(mode="json"),
                "drift": [problem.model_dump(mode="json") for problem in drift],
                "history": states,
            }
        )
        return
    echo(("workspace  ", "bold"), quote_text(root))
    echo(
        ("snapshot   ", "bold"),
        (str(latest.number), "bold yellow"),
        f"  {format_time(latest.time)}  {latest.tool}: {latest.description or '-'}",
    )
    if open_range.count:
        echo(
            ("milestone  ", "bold"),
            f"{open_range.milestone} open: snapshots {open_range.start}..{open_range.end} "
            f"({plural(open_range.count, 'snapshot')} not in a milestone yet; "
            + advise("close them with `snapline milestone create`")
            + ")",
        )
    else:
        echo(
            ("milestone  ", "bold"),
            f"{open_range.milestone} not started: nothing recorded since "
            + ("the baseline" if open_range.milestone == 1 else "the last milestone"),
        )
    for state in states:
        echo(("history    ", "bold"), (state, "yellow"))
    _echo_drift(drift, explained, came, advise)


def _latest(ws: Workspace) -> Snapshot:
    return next(ws.snapshots(newest_first=True, limit=1))


def _echo_drift(
    drift: tuple[Problem, ...],
    explained: Explained | None,
    came: Pulled | None,
    advise: Callable[[str], str],
) -> None:
    if not drift:
        # As verify says it: a clone behind its line is held to its checkout's snapshot.
        matched = "the workspace matches the latest snapshot"
        echo(("in sync    ", "bold"), (explained.describe() if explained else matched, "green"))
        return
    # Another line's recorded work that git merged (history on refs): no outside change,
    # so never the resync advice (snapshots/check/merged.py).
    unmerged = [problem for problem in drift if problem.kind == "unmerged"]
    outside = [problem for problem in drift if problem.kind != "unmerged"]
    if unmerged:
        echo(
            ("unmerged   ", "bold"),
            (f"{plural(len(unmerged), 'path')} recorded on another line, merged by git:", "red"),
        )
        for problem in unmerged:
            echo("  ", quote_path(problem.path or ""))
        echo(advise("Join that line with `snapline merge`."))
    if not outside:
        return
    echo(
        ("drift      ", "bold"),
        (f"{plural(len(outside), 'path')} changed outside snapline:", "red"),
    )
    for problem in outside:
        echo(
            "  ",
            (f"{problem.kind:<11}", _DRIFT_STYLES.get(problem.kind, "red")),
            quote_path(problem.path or ""),
        )
    if came is not None:
        # Pulled commits whose snapshots were not fetched: a resync would file a
        # colleague's recorded work as an outside change (snapshots/check/unfetched.py).
        echo(came.advice())
    echo(
        # A rollback over an outside change is refused unless forced (which records it
        # first), so the advice that drops it says --force.
        advise(
            "Keep the outside change with `snapline resync -m TEXT`, or drop it with "
            "`snapline rollback --force --to latest PATH...`, which records it first."
        )
    )


def log(
    ctx: typer.Context,
    file: Annotated[
        str | None,
        typer.Option("--file", metavar="PATH", help="Only snapshots that touched this path."),
    ] = None,
    tool: Annotated[
        str | None, typer.Option("--tool", metavar="NAME", help="Only snapshots of this tool.")
    ] = None,
    session: SessionFilterOption = None,
    limit: Annotated[
        int | None,
        typer.Option("--limit", "-n", metavar="N", min=1, help="At most this many (newest)."),
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """List snapshots, newest first."""
    from snapline.workspace.rows import log_headers

    with workspace(ctx) as ws:
        paths = user_paths(ws, [file]) if file is not None else None
        path = paths[0] if paths else None
        if as_json:  # the models' JSON, every file change listed
            snapshots = list(
                ws.snapshots(file=path, tool=tool, session=session, limit=limit, newest_first=True)
            )
        else:  # a line each: the headers, without a model per file change
            headers = log_headers(
                ws, file=path, tool=tool, session=session, limit=limit, newest_first=True
            )
        side = ws.side_snapshots()
        checks = ws.check_outcomes()
    if as_json:
        echo_json([_log_json(snapshot, side, checks) for snapshot in snapshots])
        return
    _echo_unjoined(side)
    group = None
    for header in headers:
        # Snapshots answering one agent prompt are listed under it (newest prompt first).
        if header.prompt is not None and header.prompt[:2] != group:
            prompt_line(header.prompt)
        elif header.prompt is None and group is not None:
            echo(("  no prompt", "dim"))
        group = None if header.prompt is None else header.prompt[:2]
        snapshot_line(header, checks.get(header.number))
        for joined in _joined(side, header.number):
            side_line(joined)
    if not headers:
        echo("no snapshots match", err=True)


def _joined(side: list[SideSnapshot], number: int) -> list[SideSnapshot]:
    return sorted((s for s in side if s.joined_by == number), key=lambda s: (-s.number, s.id))


def _log_json(
    snapshot: Snapshot,
    side: list[SideSnapshot],
    checks: dict[int, CheckOutcome],
    on: SideSnapshot | None = None,
) -> dict[str, Any]:
    data: dict[str, Any] = dict(model_json(snapshot))
    if on is not None:  # a snapshot of another line (`show id:PREFIX`)
        data["line"] = on.line
        data["joined_by"] = on.joined_by
        data["joins"] = []
        data["check"] = None  # checks are kept for main-line snapshots only
        return data
    data["line"] = "main"
    data["joins"] = [s.model_dump(mode="json") for s in _joined(side, snapshot.number)]
    data["check"] = model_json(checks.get(snapshot.number))
    return data


def _line_text(side: SideSnapshot | None) -> str:
    if side is None:
        return "main"
    joined = (
        f"joined by snapshot {side.joined_by}"
        if side.joined_by is not None
        else "not joined yet: run `snapline merge`"
    )
    return f"{side.line[:12]} (another line, {joined})"


def _echo_unjoined(side: list[SideSnapshot]) -> None:
    unjoined = sorted((s for s in side if s.joined_by is None), key=lambda s: (-s.number, s.id))
    if not unjoined:
        return
    echo(
        ("another line of history is not joined yet: ", "red"),
        "run `snapline merge` (after `git merge`) to join it",
    )
    for snapshot in unjoined:
        side_line(snapshot)
    echo()


def show(
    ctx: typer.Context,
    ref: SnapshotArgument,
    as_json: JsonOption = False,
) -> None:
    """Show one snapshot with its diff.

    Metadata, the files it changed, and the unified diff from N-1 to N (on its own
    line, for a snapshot of a joined branch named by id:PREFIX).
    """
    with workspace(ctx) as ws:
        snapshot = ws.snapshot(ref)
        side = ws.side_snapshot(ref)
        number = snapshot.number
        milestone = None if side else ws.milestones.for_snapshot(number)
        text = ""
        if number > 0 and not as_json:
            text = (
                ws.diff(f"id:{snapshot.parent_id}", f"id:{snapshot.id}")
                if side
                else ws.diff(number - 1, number)
            )
        joined = _joined(ws.side_snapshots(), number) if snapshot.merges and not side else []
        # A check is kept for a main-line snapshot only (its number and id both match).
        check = None if side else ws.check_outcomes().get(number)
    if as_json:
        echo_json(_log_json(snapshot, joined, {number: check} if check else {}, side))
        return
    echo(("snapshot ", "bold"), (str(snapshot.number), "bold yellow"))
    fields: list[tuple[str, Any]] = [
        ("line", _line_text(side)),
        ("ref", f"id:{snapshot.id[:12]}" if side else None),
        ("merges", ", ".join(snapshot.merges) or None),
        ("time", format_time(snapshot.time)),
        ("tool", snapshot.tool),
        ("session", snapshot.session),
        ("milestone", f"{milestone.number}: {milestone.title}" if milestone else None),
        ("id", snapshot.id),
        ("parent", snapshot.parent_id),
        ("check", check_text(check) if check else None),
    ]
    for name, value in fields:
        if value is not None:
            echo((f"{name + ':':<11}", "dim"), str(value))
    if snapshot.metadata:
        import json

        echo(("metadata:  ", "dim"), json.dumps(snapshot.metadata, sort_keys=True))
    echo()
    for line in (snapshot.description or "(no description)").splitlines():
        echo("    " + line)
    echo()
    if joined:
        lines = sorted({s.line[:12] for s in joined})
        echo(("joins ", "dim"), plural(len(lines), "line"), " (", ", ".join(lines), "):")
        for side in joined:
            side_line(side)
        echo()
    echo_changes(snapshot.files)
    if text:
        echo()
        echo_diff(text)
