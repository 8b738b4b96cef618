"""What one push or fetch of the history did: the refs it moved, and the ones refused.

Plain frozen values with a stable JSON shape (docs/cli.md, ``push`` and ``fetch``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any

__all__ = ["Moved", "Refusal", "Refused", "Travel"]


class Refused(Enum):
    """Why a ref was not moved. A line is append-only: none of these is ever forced."""

    behind = "behind"
    """The other side has snapshots this side lacks (push: fetch first)."""
    diverged = "diverged"
    """Each side has snapshots the other lacks."""
    rejected = "rejected"
    """The remote's own rule refused it (a protected ref, a server hook, access)."""
    moved = "moved"
    """The local ref moved while fetching (a snapshot was recorded meanwhile)."""


@dataclass(frozen=True)
class Moved:
    """One ref moved.

    Attributes:
        ref: Its full name (``refs/snapline/lines/<id>``).
        old: The commit it pointed at before (``None``: it is new there).
        new: The commit it points at now (``None`` when git did not say, on a push).
    """

    ref: str
    old: str | None
    new: str | None

    def as_json(self) -> dict[str, Any]:
        """``{"ref": ..., "old": ..., "new": ...}``."""
        return {"ref": self.ref, "old": self.old, "new": self.new}


@dataclass(frozen=True)
class Refusal:
    """One ref not moved, and the line that says what to do.

    Attributes:
        ref: Its full name.
        reason: Why.
        message: One line: which ref, why, what to do; nothing was lost.
    """

    ref: str
    reason: Refused
    message: str

    def as_json(self) -> dict[str, Any]:
        """``{"ref": ..., "reason": ..., "message": ...}``."""
        return {"ref": self.ref, "reason": self.reason.value, "message": self.message}


@dataclass(frozen=True)
class Travel:
    """What a push or fetch did.

    Attributes:
        remote: The remote (its name, or the URL given).
        direction: ``push`` or ``fetch``.
        moved: The refs moved.
        refused: The refs refused (each with its line).
        up_to_date: How many refs were already the same on both sides.
        ahead: The refs this side has more of (fetch only: push them).
        dry_run: Nothing was moved: ``moved`` is what would have been.
    """

    remote: str
    direction: str
    moved: tuple[Moved, ...] = ()
    refused: tuple[Refusal, ...] = ()
    up_to_date: int = 0
    ahead: tuple[str, ...] = field(default=())
    dry_run: bool = False

    def as_json(self) -> dict[str, Any]:
        """The shape ``snapline push --json`` and ``fetch --json`` print."""
        return {
            "remote": self.remote,
            "direction": self.direction,
            "moved": [m.as_json() for m in self.moved],
            "refused": [r.as_json() for r in self.refused],
            "up_to_date": self.up_to_date,
            "ahead": list(self.ahead),
            "dry_run": self.dry_run,
        }
