"""Checks of snapshots (``snapline guard``): run a check, keep its outcome in the ledger.

A check (the tests, say) is run on the files of the latest snapshot; its outcome (pass
or fail, the exit code, the command, when) is kept as a ledger file of its own, so it
travels with the history through git, and ``log``, ``show`` and the review page show
it per snapshot. ``guard --rollback`` goes back to the last snapshot that passed,
through the workspace's ordinary rollback.
"""

from snapline.guard.outcome import CheckOutcome, GuardResult, Outcome
from snapline.guard.records import NoCheckLogError, add_outcome, last_passing, outcomes
from snapline.guard.run import CheckOutput, run_check

__all__ = [
    "CheckOutcome",
    "CheckOutput",
    "GuardResult",
    "NoCheckLogError",
    "Outcome",
    "add_outcome",
    "last_passing",
    "outcomes",
    "run_check",
]
