"""The answers of a store that keeps no ledger files and one line: the SQLite store, the refs store.

The :class:`~snapline.store.protocol.Store` protocol asks every store about ledger files
(``verify`` reads them back), the last verify's checkpoint, baseline content kept in
the workspace and other lines; a store without them answers from here, in one place.
"""

from __future__ import annotations

import contextlib
from collections.abc import Collection, Iterator
from pathlib import Path

from snapline.store.rows import ChangeRow, Checkpoint, FileStamp, LedgerEntry, SideRow, SnapshotRow

__all__ = ["Ledgerless"]


class Ledgerless:
    """The protocol's ledger, checkpoint, baseline and side-line methods of such a store."""

    def ledger_entries(self, names: Collection[str] | None = None) -> Iterator[LedgerEntry]:
        """No ledger files: nothing."""
        return iter(())

    def ledger_stamps(self) -> dict[str, FileStamp]:
        """No ledger files: nothing."""
        return {}

    def checkpoint(self) -> Checkpoint | None:
        """None: without a ledger every ``verify`` checks the whole store."""
        return None

    def save_checkpoint(self, checkpoint: Checkpoint) -> None:
        """Nothing to keep: every ``verify`` of this store is a full one."""

    def keep_listing(self) -> None:
        """No ledger files to list."""

    def baseline_in_workspace(self) -> bool:
        """No: the store keeps every version's content. Returns ``False``."""
        return False

    def baseline_content(self, path: str, hash_: str, size: int) -> bytes | None:
        """Nothing: the store keeps every version's content. Returns ``None``."""
        return None

    def merging(self, root: Path) -> contextlib.AbstractContextManager[None]:
        """Nothing to add: one line only (the refs store has its own)."""
        return contextlib.nullcontext()

    def side_snapshots(self) -> list[SideRow]:
        """One line only: returns ``[]``."""
        return []

    def side_line(self, id_: str) -> list[tuple[SnapshotRow, list[ChangeRow]]]:
        """One line only: returns ``[]``."""
        return []

    def snapshots_elsewhere(self, prefix: str) -> list[SideRow]:
        """No lines of other writers: returns ``[]``."""
        return []

    def orphan_snapshots(self) -> list[tuple[int, str]]:
        """No snapshot files: returns ``[]``."""
        return []

    def other_milestones(self) -> list[LedgerEntry]:
        """No milestone files: returns ``[]``."""
        return []
