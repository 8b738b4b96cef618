"""The guard's check records of a history on git's refs, read back for ``verify``.

A history on refs keeps each ``snapline guard`` outcome as one commit on
``refs/snapline/checks/<line>`` (:mod:`snapline.store.refs.checks`). The index holds none
of them, so neither the catch-up nor the check of the history reads them; ``log``,
``show`` and ``guard --rollback`` do, and refuse a damaged one. ``verify`` reads the same
records (the line's and its main line's) on every run, its check since a checkpoint too:
a record committed after the checkpoint is read as well, and they are few (one per guard).
A 0.2 ledger's records are read back with its files (:mod:`snapline.store.ledger.check`).
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from snapline.snapshots.found import make_problem
from snapline.store import StoreCorruptError, StoreReader

if TYPE_CHECKING:
    from snapline.snapshots.snapshot import Problem

__all__ = ["check_record_problems"]


def check_record_problems(store: StoreReader) -> list[Problem]:
    """A ``bad-record`` problem naming the ref and commit of a damaged check record, or none.

    Args:
        store: The open store; only a history on git's refs keeps records this way.

    Returns:
        One problem for the first damaged record (reading stops there, as ``log``'s
        does); empty when every record reads, or the store keeps none on refs.
    """
    # Only a process that opened a history on git's refs has loaded the refs store (and
    # the git library): any other store is answered without importing them.
    refs = sys.modules.get("snapline.store.refs.store")
    if refs is None or not isinstance(store, refs.RefsStore):
        return []
    from snapline.store.refs.checks import RefsCheckLog

    try:
        log = RefsCheckLog.of(store)
    except ValueError:
        return []  # no baseline: nothing was checked
    try:
        log.all()
    except StoreCorruptError as error:
        return [
            make_problem(
                kind="bad-record",
                severity="corrupt",
                # No path: a ref is no file of the checkout (a CI annotation on none).
                message=(
                    f"{error.path}: {error.detail} (damaged or crafted: no snapline writes "
                    "it); set the ref back to the sound check before it with `git update-ref "
                    f"{error.path} COMMIT` (`git log {error.path}` lists them) or restore it "
                    "from a copy"
                ),
            )
        ]
    return []
