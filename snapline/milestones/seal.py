"""The milestone chain hash: a milestone's record, its predecessor's, and its last snapshot's.

Each milestone's hash covers its own record, the previous milestone's hash and the
chain hash of the snapshot it ends on.

Because a snapshot's chain hash already covers every snapshot before it, a milestone
pins the whole history up to its last snapshot: editing the milestone row, any earlier
milestone, or any snapshot up to ``last`` (and rewriting the snapshot chain to hide it)
shows up as a mismatch when ``validate_milestones`` recomputes the chain.
"""

from __future__ import annotations

import hashlib
import json

from snapline.snapshots.check.chain import GENESIS
from snapline.store import MilestoneRow

__all__ = ["GENESIS", "milestone_chain_hash"]


def milestone_chain_hash(previous: str, row: MilestoneRow, snapshot_chain: str | None) -> str:
    """Compute the chain hash of one milestone.

    Args:
        previous: The chain hash of the milestone before (``GENESIS`` for milestone 1).
        row: The milestone's row; its own ``chain_hash`` field is not covered.
        snapshot_chain: The chain hash of snapshot ``row.last`` (``None`` if it is missing).
    """
    fields = [
        "milestone",
        previous,
        snapshot_chain,
        row.number,
        row.title,
        row.description,
        row.tags,
        row.time,
        row.first,
        row.last,
        row.version,
    ]
    encoded = json.dumps(fields, ensure_ascii=True, separators=(",", ":")).encode()
    return "sha256:" + hashlib.sha256(encoded).hexdigest()
