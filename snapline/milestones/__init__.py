"""Milestones: continuous, append-only ranges of snapshots (see docs/library.md)."""

from snapline.milestones.continuity import validate_milestones
from snapline.milestones.create import (
    EmptyMilestoneError,
    MilestoneArgumentError,
    MilestoneContinuityError,
    MilestoneRangeError,
)
from snapline.milestones.manager import Milestones
from snapline.milestones.milestone import MILESTONE_VERSION, Milestone, MilestoneStats, OpenRange
from snapline.milestones.read import MilestoneNotFoundError, MilestoneRecordError

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
