"""Validating a whole history: the snapshot sequence and the milestones, in one view."""

from __future__ import annotations

from snapline.milestones import validate_milestones
from snapline.snapshots.check.sequence import validate_history
from snapline.snapshots.snapshot import Problem
from snapline.store import StoreReader

__all__ = ["validate"]


def validate(store: StoreReader, *, deep: bool = False) -> list[Problem]:
    """Every problem of the history: gaps, broken links, chain mismatches, milestones.

    Args:
        store: The open store.
        deep: Also rebuild every recorded version and check every stored blob.

    Returns:
        The problems found, snapshots first; empty when the history is sound.
    """
    with store.read():
        problems = validate_history(store, deep=deep)
        problems += validate_milestones(store)
    return problems
