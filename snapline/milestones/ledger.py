"""Milestone files of the ledger held to their chain, on every line of history.

The index holds the main line's milestones, which :func:`validate_milestones` checks. A
milestone recorded on a branch that was merged in (its last snapshot on a joined line)
lives only in its file; its seal must still match: the milestone before it (on either
line: numbers may repeat across lines) and its last snapshot's chain hash.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING

from snapline.milestones.seal import GENESIS, milestone_chain_hash
from snapline.snapshots.found import make_problem
from snapline.store import LedgerEntry, StoreReader

if TYPE_CHECKING:
    from snapline.snapshots.snapshot import Problem

__all__ = ["check_milestone_files"]


def check_milestone_files(store: StoreReader, entries: Sequence[LedgerEntry]) -> list[Problem]:
    """Every milestone file whose seal does not match; empty when all do.

    Args:
        store: The open store.
        entries: The ledger read back (:meth:`StoreReader.ledger_entries`), or only
            the files new since a verify checkpoint.
    """
    # The index's main line stands in for files not read back (a verify checkpoint): it
    # is held to those files by the check that set the checkpoint.
    milestones = [e for e in entries if e.milestone is not None]
    last_ids = {e.last_id for e in milestones if e.last_id is not None}
    chains = {row.id: row.chain_hash for row in store.snapshots.with_ids(last_ids)}
    chains.update({e.snapshot.id: e.snapshot.chain_hash for e in entries if e.snapshot})
    by_number: dict[int, list[str]] = {}
    for known in store.milestones.all():
        by_number.setdefault(known.number, []).append(known.chain_hash)
    for entry in milestones:
        assert entry.milestone is not None
        by_number.setdefault(entry.milestone.number, []).append(entry.milestone.chain_hash)
    root = store.path.parent.parent
    problems = []
    for entry in milestones:
        row = entry.milestone
        assert row is not None
        previous = [GENESIS] if row.number == 1 else by_number.get(row.number - 1, [])
        snapshot_chain = chains.get(entry.last_id or "")
        if not any(
            milestone_chain_hash(p, row, snapshot_chain) == row.chain_hash for p in previous
        ):
            location = os.path.relpath(entry.location, root)
            problems.append(
                make_problem(
                    kind="ledger",
                    severity="corrupt",
                    number=row.number,
                    path=location,
                    message=f"{location}: {_unsealed(row.number, location, bool(previous))}",
                )
            )
    return problems


def _unsealed(number: int, location: str, checked: bool) -> str:
    """Why milestone ``number``'s file fails its seal, and how to restore what is missing."""
    if checked:
        return (
            f"milestone {number} does not match its chain hash: it was edited after it was "
            f"written; restore it from git in the workspace's root (`git checkout -- {location}`) "
            "or from a copy"
        )
    # Its seal names milestone number-1's, which no file or index row holds any more:
    # the missing file is the damage, not this one.
    folder = os.path.dirname(location)
    return (
        f"milestone {number} cannot be held to its chain hash: no milestone {number - 1} is "
        f"left before it; restore the ledger's milestone files from git in the workspace's "
        f"root (`git checkout -- {folder}`) or from a copy"
    )
