"""The one line that names a dead process's half-done write left waiting in a history only read.

A history this snapline only reads (the 0.2 in-tree ledger, or one a git merge brought
back) refuses every write, and settling a journal entry is a write: an interrupted
``snapline run`` is settled by recording what the command did. Such an entry is
therefore left where it is (``snapline upgrade`` carries it to the refs store's index),
and every open says so in one line instead of failing the reading command. The upgrade
goes onto git's refs, or outside git onto the private repository's (``.snapline/repo``):
the line says "refs" for both.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from snapline.snapshots.record.journal import DISCARD_OP, RUN_OP
from snapline.store.rows import JournalRow

__all__ = ["waiting"]

_LONGEST = 80
"""Characters of a command's description quoted in the line (the rest is elided)."""


def waiting(entries: Sequence[JournalRow]) -> str:
    """What the journal's oldest entry is and what settles it, as one line.

    Args:
        entries: The journal's entries, oldest first (at least one).

    Returns:
        The line to log: the leftover, when it was left, and the way out.
    """
    first = entries[0]
    what, settles = _described(first)
    more = f" (and {len(entries) - 1} more interrupted writes)" if len(entries) > 1 else ""
    return (
        f"{what}{more}: this history is only read until `snapline upgrade` moves it onto "
        f"refs, and the first command after that {settles}"
    )


def _described(row: JournalRow) -> tuple[str, str]:
    """The entry as a person knows it (with when), and what settling it does."""
    when = _one_line(row.created)
    if row.op == RUN_OP:
        command = _one_line(_description(row.payload))
        quoted = f" ({command})" if command else ""
        return (
            f"a `snapline run` interrupted at {when}{quoted} left changes on disk that no "
            "snapshot records",
            "records them",
        )
    if row.op == DISCARD_OP:
        return f"files a write finished at {when} set aside are still parked", "removes them"
    return f"a {_one_line(row.op)} interrupted at {when} left files half written", "puts them back"


def _description(payload: str) -> str:
    # The journal may come from elsewhere: anything unreadable is simply not quoted.
    try:
        value = json.loads(payload).get("description", "")
    except (ValueError, AttributeError):
        return ""
    return value if isinstance(value, str) else ""


def _one_line(text: str) -> str:
    """``text`` on one line (a command may span several), elided past ``_LONGEST``."""
    flat = " ".join(text.split())
    return flat if len(flat) <= _LONGEST else flat[: _LONGEST - 1] + "…"
