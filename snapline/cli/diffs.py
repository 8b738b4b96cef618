"""``snapline diff``: as ``git diff``, from snapshots or from a snapshot to the disk."""

from __future__ import annotations

import os
import re
import sys
from typing import TYPE_CHECKING, Annotated, Any

import typer

from snapline.cli.context import JsonOption, user_paths, workspace
from snapline.cli.output import echo_json

if TYPE_CHECKING:
    from snapline import Workspace
    from snapline.snapshots.read.diffstat import FileStat

__all__ = ["diff"]

# What a word must look like to be taken for a snapshot rather than a path (as git takes
# a word for a revision): a number, latest, latest~N, id:PREFIX, before-prompt:N[@S]. A
# malformed one (id:xyz) is still a reference, refused as one, not an unknown path.
_REF = re.compile(r"\d+|latest(?:~.*)?|id:.*|before-prompt:.*", re.DOTALL)
_ARGS = "snapline.args"  # the words typed, kept by the root group (cli/app.py)


def diff(
    ctx: typer.Context,
    words: Annotated[
        list[str] | None,
        typer.Argument(
            metavar="[A] [B] [PATH]...",
            help="Snapshots (a number, latest, latest~N, id:PREFIX), then files or "
            "directories. After `--` every word is a path.",
            show_default=False,
        ),
    ] = None,
    stat: Annotated[
        bool, typer.Option("--stat", help="A diffstat, as git diff --stat, not the diff.")
    ] = False,
    as_json: JsonOption = False,
) -> None:
    """Show changes, as git diff: from a snapshot to the disk, or between two snapshots.

    `snapline diff` compares the disk with the latest snapshot, `snapline diff A` with
    snapshot A, and `snapline diff A B` snapshot A with snapshot B (B before A: the
    reverse diff). The output is plain, for `git apply` or `patch`. A or B may be a
    snapshot of a joined branch (id:PREFIX).
    """
    refs, paths = _split(words or [], ctx.meta.get(_ARGS, []))
    start_ref = refs[0] if refs else None
    end_ref = refs[1] if len(refs) > 1 else None
    with workspace(ctx) as ws:
        rels = user_paths(ws, paths or None)
        start, end, ids = _ends(ws, start_ref, end_ref)
        found: Any
        if end_ref is None:
            found = ws.diff_stat_disk(start_ref, rels) if stat else ws.diff_disk(start_ref, rels)
        else:
            assert start_ref is not None
            found = (
                ws.diff_stat(start_ref, end_ref, rels)
                if stat
                else ws.diff(start_ref, end_ref, rels)
            )
    if as_json:
        ends = {"from": start, "to": end, **ids}
        echo_json({**ends, **(_stat_json(found) if stat else {"diff": found})})
        return
    if stat:
        from snapline.snapshots.read.diffstat import render_stat

        sys.stdout.write(render_stat(found, _columns()))
        return
    # Verbatim, never coloured: the output is meant for `git apply` and `patch`.
    sys.stdout.write(found)


def _split(words: list[str], typed: list[str]) -> tuple[list[str], list[str]]:
    """The snapshot references first (two at most), then the paths."""
    after_dashes = len(typed) - typed.index("--") - 1 if "--" in typed else 0
    candidates = words[: len(words) - after_dashes]
    refs: list[str] = []
    while len(refs) < 2 and len(refs) < len(candidates) and _REF.fullmatch(candidates[len(refs)]):
        refs.append(candidates[len(refs)])
    return refs, words[len(refs) :]


def _ends(
    ws: Workspace, start_ref: str | None, end_ref: str | None
) -> tuple[int, int | str, dict[str, str | None]]:
    """Both ends as numbers (the disk as ``"disk"``), and the ids of another line's."""
    if end_ref is None:
        return ws.resolve(start_ref or "latest"), "disk", {}
    assert start_ref is not None
    sides = [ws.side_snapshot(start_ref), ws.side_snapshot(end_ref)]
    numbers = [
        side.number if side else ws.resolve(ref)
        for side, ref in zip(sides, (start_ref, end_ref), strict=True)
    ]
    ids = {f"{key}_id": s.id if s else None for key, s in zip(("from", "to"), sides, strict=True)}
    return numbers[0], numbers[1], ids


def _stat_json(stats: list[FileStat]) -> dict[str, Any]:
    from snapline.snapshots.read.diffstat import totals

    added, removed = totals(stats)
    files = [
        {
            "path": s.path,
            "old_path": s.old_path,
            "added": s.added,
            "removed": s.removed,
            "binary": s.binary,
            "old_size": s.old_size,
            "new_size": s.new_size,
        }
        for s in stats
    ]
    return {"files": files, "insertions": added, "deletions": removed}


def _columns() -> int:
    # As git's term_columns: COLUMNS, else the terminal's width, else 80.
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    if sys.stdout.isatty():
        try:
            return os.get_terminal_size(sys.stdout.fileno()).columns
        except OSError:
            pass
    return 80
