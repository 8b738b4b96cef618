"""In-tree ledgers for the store's own tests: written by earlier code, kept as fixtures.

Today's snapline no longer writes a ledger, so every ledger these tests read is a clone
of ``tests/fixtures/ledger-2.bundle`` (written by c82d55b: snapshots 0..14 on ``main``,
three milestones, keyed objects, a forget; ``tests/fixtures/make_ledger_stores.py``).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.history_refs.gitrepo import ENV, GIT

__all__ = ["MAIN_SNAPSHOTS", "ledger_workspace"]

FIXTURE = Path(__file__).parents[2] / "fixtures" / "ledger-2.bundle"
MAIN_SNAPSHOTS = 15
"""Snapshots 0..14 on the fixture's ``main``."""


def ledger_workspace(root: Path) -> Path:
    """A clone of the fixture at ``root`` (which must not exist), no local index yet."""
    subprocess.run([*GIT, "clone", "-q", str(FIXTURE), str(root)], env=ENV, check=True)
    return root
