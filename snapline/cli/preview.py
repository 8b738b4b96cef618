"""What a restore will change, shown before it runs, and the person's yes or no.

On a terminal, ``rollback``, ``undo``, ``redo``, ``revert`` and ``milestone rollback`` run
their own dry run first (the same plan and checks as the real run), show its diffstat
(or the whole diff with ``--diff``) and ask ``[y/N]``. ``--yes``, ``--json``,
``--dry-run`` and anything off a terminal (a script, CI, an agent) skip the question:
nothing changes for them. ``rollback`` without ``--to`` on a terminal offers a picker
of recent snapshots and milestones.
"""

from __future__ import annotations

import difflib
import os
import sys
from typing import TYPE_CHECKING, Annotated

import typer

from snapline.cli.output import echo, plural
from snapline.cli.quoting import quote_path
from snapline.cli.render import target_text

if TYPE_CHECKING:
    from snapline import RevertResult, RollbackResult, Workspace

__all__ = [
    "DiffOption",
    "YesOption",
    "asking",
    "confirm",
    "pick_snapshot",
]

YesOption = Annotated[
    bool, typer.Option("-y", "--yes", help="Do not show what will change and ask first.")
]
DiffOption = Annotated[
    bool, typer.Option("--diff", help="Show the whole diff before asking, not only the diffstat.")
]

_PICKER_ROWS = 10


def asking(*, yes: bool, dry_run: bool, as_json: bool) -> bool:
    """Whether to show the change and ask: a person at a terminal who did not say --yes."""
    if yes or dry_run or as_json:
        return False
    return sys.stdin.isatty() and sys.stdout.isatty()


def confirm(ws: Workspace, preview: RollbackResult | RevertResult, *, whole_diff: bool) -> bool:
    """Show what the dry run ``preview`` says will change, then ask; True for yes.

    Args:
        ws: The open workspace (to read the versions the change writes).
        preview: The restore's own dry run.
        whole_diff: Show the unified diff of every file, not only the diffstat.

    Returns:
        Whether the person answered yes (end of input is a no).
    """
    pairs = _pairs(ws, preview)
    echo((f"{_what(preview)} will change {plural(len(pairs), 'path')}:", "bold"))
    if whole_diff:
        for path, old, new in pairs:
            _echo_diff(path, old, new)
    _echo_stat(pairs)
    question = _question(preview)
    try:
        return bool(typer.confirm(question, default=False))
    except typer.Abort:
        # Ctrl-D: no answer is no.
        echo("")
        return False


def pick_snapshot(ws: Workspace) -> str | None:
    """Offer recent snapshots and milestones; the reference chosen, or None to cancel."""
    milestones = ws.milestones.list()[-_PICKER_ROWS:]
    recent = list(ws.snapshots(limit=_PICKER_ROWS, newest_first=True))
    echo(("recent snapshots", "bold"), " (newest first):")
    for snapshot in recent:
        what = snapshot.description or snapshot.tool
        echo(
            ("  " + str(snapshot.number).rjust(5), "yellow"),
            f"  {snapshot.time:%Y-%m-%d %H:%M}  {snapshot.tool:<8} {what}",
        )
    if milestones:
        echo(
            ("milestones", "bold"),
            " (m<M> goes back to just before milestone M, as `milestone rollback M`):",
        )
        for milestone in milestones:
            echo(
                ("  m" + str(milestone.number).ljust(4), "cyan"),
                f"  snapshots {milestone.first}-{milestone.last}  {milestone.title}",
            )
    answer: str = typer.prompt(
        "Roll back to which snapshot? (N, latest~N, m<M>; empty to cancel)",
        default="",
        show_default=False,
    )
    answer = answer.strip()
    if not answer:
        return None
    if answer[:1] in ("m", "M") and answer[1:].isdigit():
        # The state `snapline milestone rollback M` goes to: just before milestone M.
        return str(ws.milestones.get(int(answer[1:])).first - 1)
    return answer


def _what(preview: RollbackResult | RevertResult) -> str:
    from snapline import RollbackResult

    if isinstance(preview, RollbackResult):
        return f"rolling back to snapshot {target_text(preview)}"
    return f"reverting snapshot {target_text(preview)}"


def _question(preview: RollbackResult | RevertResult) -> str:
    from snapline import RollbackResult

    if isinstance(preview, RollbackResult):
        return f"Roll back to snapshot {target_text(preview)}?"
    return f"Revert snapshot {target_text(preview)}?"


def _pairs(
    ws: Workspace, preview: RollbackResult | RevertResult
) -> list[tuple[str, bytes | None, bytes | None]]:
    # (path, before, after) of every file the restore writes or removes; None where a
    # side has no file, or its content is not stored (tracked by hash only).
    from snapline import RollbackResult

    pairs: list[tuple[str, bytes | None, bytes | None]] = []
    if isinstance(preview, RollbackResult):
        for path in preview.changed:
            target = preview.target if preview.target_id is None else f"id:{preview.target_id}"
            after = None if path in preview.deleted else _stored(ws, path, target)
            pairs.append((path, _on_disk(ws, path), after))
        return pairs
    # The version before the snapshot: on its own line for another line's snapshot.
    parent: int | str = preview.reverted - 1
    if preview.reverted_id is not None:
        parent = f"id:{ws.snapshot(f'id:{preview.reverted_id}').parent_id}"
    for path in sorted((*preview.restored, *preview.deleted, *preview.recreated)):
        before = None if path in preview.recreated else _on_disk(ws, path)
        after = None if path in preview.deleted else _stored(ws, path, parent)
        pairs.append((path, before, after))
    for move in preview.moved:
        pairs.append((f"{move.source} => {move.target}", None, None))
    return pairs


def _on_disk(ws: Workspace, path: str) -> bytes | None:
    full = ws.root / path
    try:
        if full.is_symlink():
            return os.fsencode(os.readlink(full))
        return full.read_bytes()
    except OSError:
        return None


def _stored(ws: Workspace, path: str, number: int | str) -> bytes | None:
    from snapline import SnaplineError

    try:
        return ws.content_at(path, number)
    except SnaplineError:
        return None


def _lines(data: bytes | None) -> list[str]:
    if not data:
        return []
    return data.decode("utf-8", errors="replace").splitlines(keepends=True)


def _binary(data: bytes | None) -> bool:
    return data is not None and b"\0" in data[:8000]


def _echo_stat(pairs: list[tuple[str, bytes | None, bytes | None]]) -> None:
    width = max((len(quote_path(path)) for path, _, _ in pairs), default=0)
    added = removed = 0
    for path, old, new in pairs:
        name = quote_path(path).ljust(width)
        if _binary(old) or _binary(new):
            sizes = f"Bin {len(old or b'')} -> {len(new or b'')} bytes"
            echo(f" {name} | ", sizes)
            continue
        plus = minus = 0
        for line in difflib.unified_diff(_lines(old), _lines(new), n=0):
            if not line.startswith(("+++", "---")):
                plus += line.startswith("+")
                minus += line.startswith("-")
        added += plus
        removed += minus
        echo(
            f" {name} | {plus + minus:>4} ",
            ("+" * min(plus, 40), "green"),
            ("-" * min(minus, 40), "red"),
        )
    echo(
        f" {plural(len(pairs), 'file')} changed, "
        f"{plural(added, 'insertion')}(+), {plural(removed, 'deletion')}(-)"
    )


def _echo_diff(path: str, old: bytes | None, new: bytes | None) -> None:
    if _binary(old) or _binary(new):
        echo(f"Binary file {quote_path(path)} changes")
        return
    lines = difflib.unified_diff(_lines(old), _lines(new), fromfile=f"a/{path}", tofile=f"b/{path}")
    for line in lines:
        text = line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"
        style = "green" if text.startswith("+") else "red" if text.startswith("-") else ""
        echo((text.rstrip("\n"), style) if style else text.rstrip("\n"))
