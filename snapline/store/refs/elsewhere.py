"""Snapshots on other writers' lines: what ``id:`` names beyond this work tree's history.

Each writer records on a line of its own (:mod:`snapline.store.refs.followed`), so a
repository that fetched another clone's line, or shares its refs with another work tree,
holds snapshots that this work tree's history neither holds nor joined. Every snapshot
is reachable by a documented reference (docs/format.md, "Lines per writer"): an
``id:PREFIX`` names one of them as it names an unjoined line's snapshot in the in-tree
ledger, and its line is read from where it leaves this history (its fork) up to it.

Every line is read and checked (:class:`~snapline.store.refs.catalog.Catalog`), once
per set of tips; only a line whose chain starts at this history's baseline counts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from snapline.store.refs.catalog import Catalog
from snapline.store.refs.reading import LineSnapshot, list_lines
from snapline.store.refs.sides import joined_lines, side_row
from snapline.store.rows import ChangeRow, SideRow

if TYPE_CHECKING:
    from snapline.store.refs.store import RefsStore

__all__ = ["changes_off_history", "snapshots_elsewhere"]

_SEEN: dict[tuple[str, frozenset[tuple[str, str]], int], dict[str, tuple[SideRow, LineSnapshot]]]
_SEEN = {}


def snapshots_elsewhere(store: RefsStore) -> dict[str, tuple[SideRow, LineSnapshot]]:
    """Every snapshot on the repository's lines that the history neither holds nor joined.

    By id, each as a side row not joined (``merged_into`` ``None``) and its commit read.

    Raises:
        DamagedLineError: If a line is damaged or crafted.
    """
    baseline = store.index.snapshots.get(0)
    latest = store.index.snapshots.latest_number()
    if baseline is None or latest is None:
        return {}
    tips = list_lines(store.repo)
    key = (str(store.repo.git_dir), frozenset(tips.items()), latest)
    if key in _SEEN:
        return _SEEN[key]
    catalog = Catalog(store.repo)
    catalog.refresh()
    joined = joined_lines(store)
    found: dict[str, tuple[SideRow, LineSnapshot]] = {}
    for _, chain in sorted(catalog.chains().items()):
        if not chain or chain[0].record.row.id != baseline.id:
            continue  # another history's line (its own baseline)
        for snapshot in chain:
            row = snapshot.record.row
            held = store.index.snapshots.get(row.number)
            if (held is not None and held.id == row.id) or row.id in joined:
                continue
            found.setdefault(row.id, (side_row(row, None), snapshot))
    # show, diff and rollback by id ask more than once; the answer depends on the tips.
    _SEEN.clear()
    _SEEN[key] = found
    return found


def changes_off_history(store: RefsStore) -> list[ChangeRow]:
    """Every change of the snapshots on lines the history does not hold: joined or others'.

    What ``snapline forget`` also looks among: a secret recorded on another clone's line
    is forgotten on every line (the rewrite finds its deltas and blobs by path and hash).

    Raises:
        DamagedLineError: If a line is damaged or crafted.
    """
    found = {**snapshots_elsewhere(store), **joined_lines(store)}
    return [change for _, snapshot in found.values() for change in snapshot.record.changes]
