"""The public, immutable milestone records.

Their JSON shapes (``model_dump(mode="json")``) are stable: new fields are only ever
added, and ``version`` says which shape a record was written with.
"""

from __future__ import annotations

from datetime import datetime

from pydantic import Field

from snapline.milestones.fields import MILESTONE_VERSION
from snapline.values import FrozenModel

__all__ = ["Milestone", "MilestoneStats", "OpenRange"]


class Milestone(FrozenModel):
    """A named, continuous range of snapshots ``first..last`` (both included).

    Milestone 1 starts at snapshot 1 (snapshot 0, the baseline, belongs to none) and
    every later one starts one past the previous one's ``last``. ``chain_hash`` covers
    the previous milestone's chain hash and the chain hash of snapshot ``last``, so a
    milestone pins the history it describes.
    """

    number: int = Field(ge=1)
    title: str
    description: str = ""
    tags: tuple[str, ...] = ()
    time: datetime
    first: int = Field(ge=1)
    last: int = Field(ge=1)
    version: int = MILESTONE_VERSION
    chain_hash: str

    @property
    def count(self) -> int:
        """How many snapshots the milestone covers."""
        return self.last - self.first + 1


class OpenRange(FrozenModel):
    """The snapshots recorded since the last milestone: what ``create`` would close.

    ``end`` is ``None`` and ``count`` 0 when nothing was recorded since.
    """

    milestone: int = Field(ge=1, description="the number the next milestone will get")
    start: int = Field(ge=1)
    end: int | None = None
    count: int = Field(ge=0)
    version: int = MILESTONE_VERSION


class MilestoneStats(FrozenModel):
    """How much a milestone changed, from the state before ``first`` to the state after ``last``."""

    milestone: int = Field(ge=1)
    snapshots: int = Field(ge=1)
    files: int = Field(ge=0)
    lines_added: int = Field(ge=0)
    lines_removed: int = Field(ge=0)
    version: int = MILESTONE_VERSION
