"""Whether the local index holds exactly the ledger's files: the question every command asks.

The exact answer is a listing of the ledger's folders of records compared with the names
in the index, in time proportional to the history. Across processes the folders' stamp
kept when a listing agreed (``listed.py``) stands in for it when it can say so exactly.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from snapline import atomic
from snapline.store.ledger.files import FORGOTTEN, MILESTONES, SNAPSHOTS, Ledger
from snapline.store.ledger.listed import filesystem_now, folder_stamps, safely_old

if TYPE_CHECKING:
    from snapline.store.ledger.store import LedgerStore

__all__ = ["in_step"]


def in_step(store: LedgerStore) -> bool:
    """Whether the index holds the ledger's files (every open asks, before reading).

    Comparing the ledger's listings with the index's names costs time in proportion to
    the history (about 30 ms at 10,000 snapshots), so the answer is kept two ways, each
    exact:

    - :attr:`LedgerStore.agreed`: the listings as read, and the index's
      ``data_version`` on its connection, which changes when another connection
      commits: the same listing is not compared with the index's names again.
    - Across processes, the folders' stamp kept in the index when a listing agreed and
      the folders were safely old (``listed.py``): folders with that stamp hold what
      the index names.
    """
    data_version = store.index.generation()[0]
    # A reconnection (another process reset the WAL) starts a new count: the
    # connection is part of the version.
    version = (store.index.connection.db, data_version)
    kept = store.listed.get()
    if kept is not None and kept == folder_stamps(store.ledger):
        return True  # the folders as they were when a listing agreed (listed.py)
    now = filesystem_now(store.ledger)
    before = folder_stamps(store.ledger)
    listing = _listing(store.ledger)
    if store.agreed != (version, listing):
        on_disk = {name for name in listing if not atomic.is_temp_name(name)}
        if on_disk != store.names.all():
            store.agreed = None
            return False
        store.agreed = (version, listing)
    if safely_old(before, now) and folder_stamps(store.ledger) == before:
        store.settled = before
    return True


def _listing(ledger: Ledger) -> frozenset[str]:
    # Every name in the ledger's folders of records, temporary files included: what
    # `in_step` remembers, so the names are not filtered on every look.
    return frozenset(
        name for kind in (SNAPSHOTS, MILESTONES, FORGOTTEN) for name in ledger.entries(kind)
    )
