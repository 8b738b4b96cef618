"""How snapshots, changes and problems read on a terminal (text mode; JSON is the models')."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Protocol

from snapline.cli.output import Segment, echo, format_time, plural
from snapline.cli.quoting import quote_path, quote_text
from snapline.snapshots.kinds import ChangeKind

if TYPE_CHECKING:
    from datetime import datetime

    from snapline import (
        Conflict,
        ModifiedFile,
        Problem,
        RevertResult,
        RollbackResult,
        SideSnapshot,
        SkippedPath,
    )
    from snapline.guard import CheckOutcome
    from snapline.scanning import Skipped
    from snapline.snapshots.read.headers import SnapshotHeader

__all__ = [
    "Change",
    "check_text",
    "echo_changes",
    "echo_conflicts",
    "echo_modified",
    "echo_problems",
    "echo_restore",
    "echo_skipped",
    "model_json",
    "side_line",
    "snapshot_line",
    "target_text",
]

_KINDS = {
    "added": ("A", "green"),
    "modified": ("M", "yellow"),
    "deleted": ("D", "red"),
    "renamed": ("R", "cyan"),
}


def snapshot_line(snapshot: SnapshotHeader, check: CheckOutcome | None = None) -> None:
    """One line per snapshot, as ``log`` prints it: number, time, tool, description, files.

    A snapshot that was checked (``snapline guard``) ends with its latest outcome.
    """
    session = [("  @" + snapshot.session, "magenta")] if snapshot.session else []
    checked = []
    if check is not None:
        checked = [("  passed" if check.passed else "  FAILED", "green" if check.passed else "red")]
    echo(
        (f"{snapshot.number:>5}", "bold yellow"),
        *_when_and_tool(snapshot.time, snapshot.tool),
        *session,
        "  ",
        snapshot.description or "(no description)",
        ("  [" + plural(snapshot.files, "file") + "]", "dim"),
        *checked,
    )


def _when_and_tool(time: datetime, tool: str) -> list[Segment]:
    # The columns after a snapshot's number on every line that lists one.
    return ["  ", (format_time(time), "dim"), "  ", (tool, "cyan")]


def check_text(check: CheckOutcome) -> str:
    """A check's outcome in words: ``passed: pytest -q (exit 0, 2026-11-23 05:48:11)``."""
    import shlex

    word = "passed" if check.passed else "failed"
    return (
        f"{word}: {shlex.join(check.command)} (exit {check.exit_code}, {format_time(check.time)})"
    )


def prompt_line(prompt: tuple[str, int, int, str]) -> None:
    """The line above the snapshots that answered one agent prompt, as ``log`` groups them."""
    session, number, at, text = prompt
    first = text.strip().splitlines()[0] if text.strip() else ""
    said = f"  {first[:70]!r}" if first else ""
    echo(
        ("  prompt ", "dim"),
        (f"{number}", "bold"),
        ("  @" + session, "magenta"),
        said,
        (f"  (before it: snapshot {at}, before-prompt:{number}@{session[:8]})", "dim"),
    )


def side_line(snapshot: SideSnapshot) -> None:
    """One line per snapshot of another line, under the merge that joined it."""
    echo(
        (f"{'':>5}", ""),
        ("  \u21b3 ", "dim"),
        (str(snapshot.number), "yellow"),
        *_when_and_tool(snapshot.time, snapshot.tool),
        "  ",
        snapshot.description or "(no description)",
        # The reference that names it (its number is the main line's too).
        (f"  (id:{snapshot.id[:12]}, line {snapshot.line[:12]})", "dim"),
    )


class Change(Protocol):
    """What :func:`echo_changes` reads of a change: a ``FileChange``, or a change row."""

    @property
    def path(self) -> str:
        """The path after the change."""

    @property
    def old_path(self) -> str | None:
        """The path before a rename."""

    @property
    def kind(self) -> str:
        """A :class:`~snapline.ChangeKind` (or its value, in a row)."""


def echo_changes(changes: Iterable[Change], *, indent: str = "  ") -> None:
    """Each change as ``  M path`` (the letters of ``git status --short``)."""
    for change in changes:
        letter, style = _KINDS.get(ChangeKind(change.kind).value, ("?", ""))
        echo(indent, (letter, style), " ", _moved(change.old_path, change.path))


def echo_modified(files: Iterable[ModifiedFile], *, indent: str = "  ") -> None:
    """Each net change over a range as ``  M path  (snapshots 3, 5)``."""
    for item in files:
        letter, style = _KINDS.get(item.status.value, ("?", ""))
        text = _moved(item.old_path, item.path)
        numbers = ", ".join(str(n) for n in item.snapshots)
        echo(indent, (letter, style), f" {text}", (f"  (snapshots {numbers})", "dim"))


def echo_skipped(skipped: Iterable[Skipped | SkippedPath]) -> None:
    """Say on stderr what a recording did not capture, and why."""
    for item in skipped:
        echo(("note: ", "yellow"), f"{quote_path(item.path)}: {item.reason}", err=True)


def echo_problems(problems: Iterable[Problem], *, indent: str = "  ") -> None:
    """Each problem as ``  kind  message`` (messages name their path or snapshot)."""
    for problem in problems:
        echo(indent, (f"{problem.kind:<14}", "red"), " ", quote_text(problem.message))


def model_json(model: Any) -> Any:
    """The documented JSON shape of a snapshot or result model (``null`` for none)."""
    return None if model is None else model.model_dump(mode="json")


def target_text(result: RollbackResult | RevertResult) -> str:
    """A restore's snapshot as a person names it: its number, and its id on another line."""
    from snapline import RollbackResult

    if isinstance(result, RollbackResult):
        number, id_ = result.target, result.target_id
    else:
        number, id_ = result.reverted, result.reverted_id
    return str(number) if id_ is None else f"{number} (id:{id_[:12]}, another line)"


def echo_restore(result: RollbackResult | RevertResult) -> None:
    """What a rollback or revert changed (or would change), then its conflicts."""
    from snapline import RollbackResult

    if isinstance(result, RollbackResult):
        what = f"roll back to snapshot {target_text(result)}"
    else:
        what = f"revert snapshot {target_text(result)}"
    moved = getattr(result, "moved", ())
    rows = [
        *(("M", "yellow", quote_path(path), "restored") for path in result.restored),
        *(("D", "red", quote_path(path), "deleted") for path in result.deleted),
        *(("A", "green", quote_path(path), "recreated") for path in result.recreated),
        *(("R", "cyan", _moved(m.source, m.target), "moved back") for m in moved),
    ]
    if result.dry_run:
        head = f"dry run: {what} would change {plural(len(rows), 'path')}"
        echo((head, "bold"))
    elif result.snapshot is None:
        echo(f"{what}: nothing to change")
    else:
        past = "rolled back to" if isinstance(result, RollbackResult) else "reverted"
        target = target_text(result)
        echo(
            (f"{past} snapshot {target}", "green"),
            " as snapshot ",
            (str(result.snapshot.number), "bold yellow"),
            f": {plural(len(rows), 'path')} changed",
        )
    external = getattr(result, "external", None)
    if external is not None:
        echo(
            f"outside changes to {plural(len(external.files), 'file')} were first recorded "
            f"as snapshot {external.number}, so they can be recovered"
        )
    for letter, style, text, verb in rows:
        echo("  ", (letter, style), f" {text}", (f"  ({verb})", "dim"))
    echo_conflicts(result.conflicts)


def echo_conflicts(conflicts: Iterable[Conflict]) -> None:
    """Each conflict as ``  ! path: message``."""
    items = list(conflicts)
    if not items:
        return
    echo((f"{plural(len(items), 'conflict')}:", "bold red"))
    for conflict in items:
        echo("  ", ("!", "red"), f" {conflict.kind:<11} {quote_text(conflict.message)}")


def _moved(old_path: str | None, path: str) -> str:
    return f"{quote_path(old_path)} -> {quote_path(path)}" if old_path else quote_path(path)
