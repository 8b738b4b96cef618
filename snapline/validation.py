"""Validating a whole history: the snapshot sequence and the milestones, in one view."""

from __future__ import annotations

from snapline.milestones import validate_milestones
from snapline.milestones.ledger import check_milestone_files
from snapline.snapshots.check.ledger import check_ledger
from snapline.snapshots.check.sequence import validate_history
from snapline.snapshots.read.lines import DivergedHistoryError, unmerged_lines
from snapline.snapshots.snapshot import Problem
from snapline.store import StoreReader

__all__ = ["validate"]


def validate(store: StoreReader, *, deep: bool = False) -> list[Problem]:
    """Every problem of the history: gaps, links, chains, milestones, ledger files, lines.

    Args:
        store: The open store.
        deep: Also rebuild every recorded version and check every stored blob.

    Returns:
        The problems found, snapshots first; empty when the history is sound.
    """
    with store.read():
        problems = validate_history(store, deep=deep)
        problems += validate_milestones(store)
        entries = list(store.ledger_entries())
        problems += check_ledger(store, entries)
        problems += check_milestone_files(store, entries)
        lines = unmerged_lines(store)
        head = store.snapshots.get(store.snapshots.latest_number() or 0)
        if lines and head is not None:
            message = str(DivergedHistoryError(lines, head))
            problems.append(Problem(kind="lines", message=message, number=lines[0].fork))
    return problems
