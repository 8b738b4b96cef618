"""Counters of what the reliability suite actually did, for docs/guarantees.md.

Tests call :func:`add` as they go (kills survived, processes and records, hostile inputs
tried, acknowledged snapshots checked and lost). At the end of the run the totals are
printed in the terminal summary and, when ``SNAPLINE_FIGURES`` names a file, written
there as JSON (``scripts/reliability_figures.py`` runs the suite that way). Nothing is
counted that did not happen.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path

__all__ = ["ENV", "add", "totals", "write"]

ENV = "SNAPLINE_FIGURES"

_COUNTS: Counter[str] = Counter()


def add(name: str, count: int = 1) -> None:
    """Count ``count`` more of ``name``."""
    _COUNTS[name] += count


def totals() -> dict[str, int]:
    return dict(sorted(_COUNTS.items()))


def write() -> None:
    """Write the totals where ``SNAPLINE_FIGURES`` says, if it is set."""
    target = os.environ.get(ENV)
    if target:
        Path(target).write_text(json.dumps(totals(), indent=2) + "\n")
