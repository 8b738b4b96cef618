"""Milestones: continuous, append-only ranges of snapshots (see docs/library.md).

The names are loaded on first use (see :mod:`snapline.lazy`): ``snapline verify``
imports this package to check milestones, and must not load the models with it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from snapline.lazy import lazy_exports

if TYPE_CHECKING:
    from snapline.milestones.continuity import validate_milestones
    from snapline.milestones.create import (
        EmptyMilestoneError,
        MilestoneArgumentError,
        MilestoneContinuityError,
        MilestoneRangeError,
    )
    from snapline.milestones.fields import MILESTONE_VERSION
    from snapline.milestones.manager import Milestones
    from snapline.milestones.milestone import Milestone, MilestoneStats, OpenRange
    from snapline.milestones.read import MilestoneNotFoundError, MilestoneRecordError

_EXPORTS: dict[str, str] = {
    "MILESTONE_VERSION": "snapline.milestones.fields",
    "EmptyMilestoneError": "snapline.milestones.create",
    "Milestone": "snapline.milestones.milestone",
    "MilestoneArgumentError": "snapline.milestones.create",
    "MilestoneContinuityError": "snapline.milestones.create",
    "MilestoneNotFoundError": "snapline.milestones.read",
    "MilestoneRangeError": "snapline.milestones.create",
    "MilestoneRecordError": "snapline.milestones.read",
    "MilestoneStats": "snapline.milestones.milestone",
    "Milestones": "snapline.milestones.manager",
    "OpenRange": "snapline.milestones.milestone",
    "validate_milestones": "snapline.milestones.continuity",
}

__all__ = [
    "MILESTONE_VERSION",
    "EmptyMilestoneError",
    "Milestone",
    "MilestoneArgumentError",
    "MilestoneContinuityError",
    "MilestoneNotFoundError",
    "MilestoneRangeError",
    "MilestoneRecordError",
    "MilestoneStats",
    "Milestones",
    "OpenRange",
    "validate_milestones",
]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
