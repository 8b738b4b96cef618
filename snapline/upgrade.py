"""Upgrading a 0.1 store (one SQLite file) to the ledger: written by the upgrade work."""

from __future__ import annotations

from pathlib import Path

from snapline.errors import SnaplineError

__all__ = ["upgrade_store"]


def upgrade_store(root: Path, timeout: float) -> None:
    """Convert ``<root>/.snapline/store.db`` (0.1) into a ledger and its index."""
    raise SnaplineError(f"{root}: upgrading a 0.1 store is not written yet")
