"""Rendering a milestone as a patch: a readable header, then the unified diff.

``git apply`` skips any text before the first ``diff --git`` line, but it does act on a
line starting with ``diff --git``, ``--- ``/``+++ `` or ``@@ -`` wherever it appears. The
description is free text that may contain such lines (an agent pasting a diff into it),
so every description line is indented, as ``git log`` shows a message: the header can
never be read as part of the patch.
"""

from __future__ import annotations

from snapline.milestones.milestone import Milestone

__all__ = ["render_patch"]

_INDENT = "    "


def render_patch(milestone: Milestone, diff: str) -> str:
    """The patch text of ``milestone``, given its unified diff (``first - 1`` to ``last``)."""
    title = " ".join(milestone.title.split())
    lines = [f"Milestone {milestone.number}: {title}", ""]
    if milestone.description.strip():
        for line in milestone.description.strip("\n").splitlines():
            lines.append((_INDENT + line).rstrip())
        lines.append("")
    count = milestone.count
    lines.append(
        f"Snapshots: {milestone.first}..{milestone.last} "
        f"({count} snapshot{'' if count == 1 else 's'}; apply on top of snapshot "
        f"{milestone.first - 1})"
    )
    if milestone.tags:
        lines.append("Tags: " + ", ".join(" ".join(tag.split()) for tag in milestone.tags))
    lines.append(f"Created: {milestone.time.isoformat()}")
    lines.append(f"Chain: {milestone.chain_hash}")
    lines.append("")
    header = "\n".join(lines) + "\n"
    return header + diff
