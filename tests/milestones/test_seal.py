"""The milestone chain hash, as docs/format.md ("The milestone chain") spells it.

Other tools (and another clone's snapline) recompute it from the documented recipe, so
a milestone written here is held to that recipe itself, over a title and tags that are
not ASCII (``ensure_ascii=True`` escapes them), not to whatever seal.py computes today.
"""

from __future__ import annotations

import hashlib
import json

from snapline import Workspace
from snapline.snapshots.check.chain import GENESIS


def _documented(previous: str, snapshot_chain: str, fields: list[object]) -> str:
    text = json.dumps(
        ["milestone", previous, snapshot_chain, *fields], ensure_ascii=True, separators=(",", ":")
    )
    return "sha256:" + hashlib.sha256(text.encode("ascii")).hexdigest()


def test_each_milestone_s_chain_is_the_documented_recipe(ws: Workspace) -> None:
    ws.write_file("a.txt", "a\n")
    first = ws.milestones.create("café ✓", description="über", tags=["naïve", "x"])
    ws.write_file("b.txt", "b\n")
    second = ws.milestones.create("two")
    expected = GENESIS
    for milestone in (first, second):
        snapshot = ws.snapshot(milestone.last)
        tags = json.dumps(list(milestone.tags), ensure_ascii=False)
        fields = [
            milestone.number,
            milestone.title,
            milestone.description,
            tags,
            milestone.time.isoformat(),
            milestone.first,
            milestone.last,
            milestone.version,
        ]
        expected = _documented(expected, snapshot.chain_hash, fields)
        assert milestone.chain_hash == expected
    assert first.chain_hash.startswith("sha256:") and len(first.chain_hash) == 7 + 64
