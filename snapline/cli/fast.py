"""``snapline record``, the command an agent runs after every edit, without typer.

The console script sends a plain ``snapline record [PATH...] [-m TEXT] [--tool NAME]
[--session ID] [--json]`` here before it builds the typer application: importing typer
and click, and building the app, cost a `record` process about a tenth of its time.
The lean parser (``cli/lean.py``) reads it by the table's spec of ``record``; anything
else goes to the typer command, which parses it the same way and calls the same
:func:`record_command`; this module imports neither typer nor rich.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from snapline.cli import lean
from snapline.cli.workspaces import DEFAULT_TIMEOUT, open_workspace, user_paths

if TYPE_CHECKING:
    from collections.abc import Sequence

    from snapline import Snapshot
    from snapline.cli.render import Change

__all__ = ["echo_recorded", "fast_record", "record_command"]


def fast_record(args: list[str]) -> int | None:
    """``snapline record ARGS`` without typer when they are a plain form, else ``None``."""
    return lean.serve("record", args, _record)


def _record(parsed: lean.Parsed) -> int:
    values = parsed.values
    record_command(
        None,
        DEFAULT_TIMEOUT,
        parsed.arguments,
        tool=values.get("tool", "record"),
        message=values.get("message", ""),
        session=values.get("session"),
        as_json="as_json" in parsed.flags,
    )
    return 0


def record_command(
    root: Path | None,
    timeout: float,
    paths: list[str] | None,
    *,
    tool: str,
    message: str,
    session: str | None,
    as_json: bool,
) -> None:
    """``snapline record``: record what changed on disk as one snapshot, and say what.

    Args:
        root: ``--root``, or ``None`` to find the workspace upwards.
        timeout: ``--timeout``.
        paths: The paths typed (``None`` or empty: the whole workspace).
        tool: ``--tool``.
        message: ``-m``.
        session: ``--session``.
        as_json: ``--json``.
    """
    from snapline.cli.render import echo_skipped
    from snapline.snapshots.info_fields import PlainInfo
    from snapline.workspace.rows import record_rows

    with open_workspace(root, timeout) as ws:
        info = PlainInfo.checked(tool, message, session)
        recorded = record_rows(ws, user_paths(ws, paths), info)
    if as_json or recorded.number is None:
        echo_recorded(recorded.snapshot(), as_json)
    else:
        # Said from the rows: a plain `record` builds no model (record/recorded.py).
        _say_recorded(recorded.number, recorded.changes)
    if not as_json:
        echo_skipped(recorded.skipped)


def echo_recorded(snapshot: Snapshot | None, as_json: bool) -> None:
    """Say what a recording command recorded: the snapshot and its files, or nothing."""
    from snapline.cli.output import echo, echo_json
    from snapline.cli.render import model_json

    if as_json:
        echo_json(model_json(snapshot))
    elif snapshot is None:
        echo("nothing changed")
    else:
        _say_recorded(snapshot.number, snapshot.files)


def _say_recorded(number: int, changes: Sequence[Change]) -> None:
    from snapline.cli.output import echo, plural
    from snapline.cli.render import echo_changes

    echo(
        ("recorded snapshot ", "green"),
        (str(number), "bold yellow"),
        f": {plural(len(changes), 'file')}",
    )
    echo_changes(changes)
