"""The public shapes of a check's outcome and of one ``guard``."""

from __future__ import annotations

from datetime import datetime
from enum import Enum

from snapline.snapshots.results import RollbackResult
from snapline.values import FrozenModel

__all__ = ["CheckOutcome", "ForeignSnapshot", "GuardResult", "Outcome"]


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


class ForeignSnapshot(FrozenModel):
    """A snapshot a guard's rollback would take out that is not the guarded session's.

    Attributes:
        number: The snapshot.
        tool: What recorded it (``external``: a person's edit, recorded by ``resync``).
        session: The session that recorded it, if it named one.
        reason: Why it is not the guarded session's, in words.
        files: The paths it changed.
    """

    number: int
    tool: str
    session: str | None = None
    reason: str
    files: tuple[str, ...]


class GuardResult(FrozenModel):
    """What one ``guard`` did: the check's outcome and, after a failure, the rollback.

    Attributes:
        check: The outcome, as recorded on the snapshot checked.
        last_pass: The latest snapshot before it whose last run of the same check (the
            same command line) passed, when a rollback was asked for after a failure
            (``None``: none ever passed, and nothing was rolled back).
        rollback: The rollback to ``last_pass`` (``None`` when none was made).
        held: The snapshots after ``last_pass`` that are a person's edit or another
            session's work, when the rollback was held back over them (not forced,
            declined or not asked): ``rollback`` is then ``None``.
        output: What the check printed (its last part), when it was captured.
    """

    check: CheckOutcome
    last_pass: int | None = None
    rollback: RollbackResult | None = None
    held: tuple[ForeignSnapshot, ...] = ()
    output: str | None = None

    @property
    def passed(self) -> bool:
        """Whether the check passed."""
        return self.check.passed
