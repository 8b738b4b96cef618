"""The public shapes of a check's outcome and of one ``guard``."""

from __future__ import annotations

from datetime import datetime
from enum import Enum

from snapline.snapshots.results import RollbackResult
from snapline.values import FrozenModel

__all__ = ["CheckOutcome", "GuardResult", "Outcome"]


class Outcome(str, Enum):
    """What a check said of a snapshot."""

    PASS = "pass"
    FAIL = "fail"


class CheckOutcome(FrozenModel):
    """One check of one snapshot, as its record in the ledger holds it.

    Attributes:
        snapshot: The snapshot checked (its number on the main line).
        snapshot_id: Its id.
        outcome: ``pass`` when the check exited 0, else ``fail``.
        exit_code: The check's exit code (128 + N when signal N ended it).
        command: The command line, one string per argument.
        time: When the check ended.
        session: The agent session or person that ran it, if given.
        record: The record's file name, under ``.snapline/ledger/checks/``.
    """

    snapshot: int
    snapshot_id: str
    outcome: Outcome
    exit_code: int
    command: tuple[str, ...]
    time: datetime
    session: str | None = None
    record: str

    @property
    def passed(self) -> bool:
        """Whether the check passed."""
        return self.outcome is Outcome.PASS


class GuardResult(FrozenModel):
    """What one ``guard`` did: the check's outcome and, after a failure, the rollback.

    Attributes:
        check: The outcome, as recorded on the snapshot checked.
        last_pass: The latest snapshot before it whose last check passed, when a
            rollback was asked for after a failure (``None``: none ever passed, and
            nothing was rolled back).
        rollback: The rollback to ``last_pass`` (``None`` when none was made).
        output: What the check printed (its last part), when it was captured.
    """

    check: CheckOutcome
    last_pass: int | None = None
    rollback: RollbackResult | None = None
    output: str | None = None

    @property
    def passed(self) -> bool:
        """Whether the check passed."""
        return self.check.passed
