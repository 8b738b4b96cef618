"""Crafting hostile stores: edit rows by hand, then re-seal the chain as an attacker would.

A store can come from elsewhere (it can be committed to a repository), so the attacker
can rewrite rows *and* recompute every chain hash with the public algorithm. The tests
built on these helpers make sure that only the checks that do not rely on the chain
(paths, content hashes) stand between such a store and the disk.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from snapline.milestones.seal import milestone_chain_hash
from snapline.snapshots.check.chain import GENESIS, chain_hash
from snapline.store import SqliteStore

__all__ = ["reseal", "sql"]


def sql(root: Path, statement: str, *params: object) -> list[tuple[object, ...]]:
    """Run one statement against ``root``'s store, as someone editing it by hand."""
    db = sqlite3.connect(root / ".snapline" / "index.db")
    try:
        with db:
            return db.execute(statement, params).fetchall()
    finally:
        db.close()


def reseal(root: Path) -> None:
    """Recompute every snapshot and milestone chain hash, so the chain validates again."""
    store = SqliteStore.open(root / ".snapline" / "index.db")
    try:
        previous = GENESIS
        sealed: dict[int, str] = {}
        updates = []
        for row in store.snapshots.select():
            value = chain_hash(previous, row, store.changes.of(row.number, deltas=True))
            updates.append((value, row.number))
            sealed[row.number] = previous = value
        milestone_updates = []
        previous = GENESIS
        for milestone in store.milestones.all():
            row = milestone._replace(chain_hash="")
            value = milestone_chain_hash(previous, row, sealed.get(milestone.last))
            milestone_updates.append((value, milestone.number))
            previous = value
    finally:
        store.close()
    db = sqlite3.connect(root / ".snapline" / "index.db")
    try:
        with db:
            db.executemany("UPDATE snapshots SET chain_hash = ? WHERE number = ?", updates)
            db.executemany(
                "UPDATE milestones SET chain_hash = ? WHERE number = ?", milestone_updates
            )
    finally:
        db.close()
