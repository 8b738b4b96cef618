"""Milestones: continuous, append-only ranges of snapshots (see docs/library.md)."""

from snapline.milestones.create import (
    EmptyMilestoneError,
    MilestoneArgumentError,
    MilestoneContinuityError,
    MilestoneRangeError,
)
from snapline.milestones.manager import Milestones
from snapline.milestones.model import MILESTONE_VERSION, Milestone, MilestoneStats, OpenRange
from snapline.milestones.read import MilestoneNotFoundError, MilestoneRecordError
from snapline.milestones.validate import validate_milestones

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
