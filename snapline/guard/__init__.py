"""Checks of snapshots (``snapline guard``): run a check, keep its outcome in the ledger.

A check (the tests, say) is run on the files of the latest snapshot; its outcome (pass
or fail, the exit code, the command, when) is kept as a ledger file of its own, so it
travels with the history through git, and ``log``, ``show`` and the review page show
it per snapshot. ``guard --rollback`` goes back to the last snapshot that passed the
same check, through the workspace's ordinary rollback, and never past a person's edit or
another session's work without saying so (:mod:`snapline.guard.foreign`).

The names load on first use: ``snapline log`` reads the outcomes of a history that has
none without loading the models (and pydantic).
"""

from __future__ import annotations

from snapline.lazy import lazy_exports

TYPE_CHECKING = False  # not `typing`'s: see snapline/lazy.py
if TYPE_CHECKING:
    from snapline.guard.foreign import foreign_work
    from snapline.guard.outcome import CheckOutcome, ForeignSnapshot, GuardResult, Outcome
    from snapline.guard.records import NoCheckLogError, add_outcome, last_passing, outcomes
    from snapline.guard.run import CheckOutput, run_check

__all__ = [
    "CheckOutcome",
    "CheckOutput",
    "ForeignSnapshot",
    "GuardResult",
    "NoCheckLogError",
    "Outcome",
    "add_outcome",
    "foreign_work",
    "last_passing",
    "outcomes",
    "run_check",
]

_EXPORTS: dict[str, str] = {
    "CheckOutcome": "snapline.guard.outcome",
    "CheckOutput": "snapline.guard.run",
    "ForeignSnapshot": "snapline.guard.outcome",
    "GuardResult": "snapline.guard.outcome",
    "NoCheckLogError": "snapline.guard.records",
    "Outcome": "snapline.guard.outcome",
    "add_outcome": "snapline.guard.records",
    "foreign_work": "snapline.guard.foreign",
    "last_passing": "snapline.guard.records",
    "outcomes": "snapline.guard.records",
    "run_check": "snapline.guard.run",
}

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
