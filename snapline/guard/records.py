"""Check outcomes in the ledger: one written per ``guard``, read back per snapshot.

The ledger keeps every check ever run (``checks/*.check``; a history on git's refs, one
commit each on ``refs/snapline/checks/<line>``); what a snapshot shows is
its latest one, by time and then by file name (``guard --rollback`` asks for the latest
run of its own check only). A record counts for the main line's
snapshot only when both its number and its id are that snapshot's: a record of a
snapshot on another line (another git branch's) or one whose snapshot is not in this
checkout is kept as written and shown nowhere.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Protocol

from snapline.errors import SnaplineError
from snapline.store import StoreReader
from snapline.store.ledger.check_format import CheckRecord
from snapline.store.ledger.checks import CheckLog
from snapline.store.ledger.store import LedgerStore

if TYPE_CHECKING:
    from snapline.guard.outcome import CheckOutcome

__all__ = ["NoCheckLogError", "add_outcome", "last_passing", "outcomes"]


class NoCheckLogError(SnaplineError):
    """The store has no ledger to keep a check's outcome in."""

    def __init__(self) -> None:
        super().__init__("this store has no ledger; open it with snapline 0.2 to upgrade it")


class _Log(Protocol):
    def all(self) -> list[tuple[str, CheckRecord]]: ...


def _check_log(store: StoreReader) -> _Log | None:
    """Where the store keeps check records: its refs, or (read only) its ledger's ``checks/``."""
    if isinstance(store, LedgerStore):
        return CheckLog(store.ledger)
    # Only a process that opened a history on git's refs has loaded the refs store (and
    # the git library): a store of any other kind is answered without importing them.
    refs = sys.modules.get("snapline.store.refs.store")
    if refs is not None and isinstance(store, refs.RefsStore):
        from snapline.store.refs.checks import RefsCheckLog

        return RefsCheckLog.of(store)
    return None


def add_outcome(
    store: StoreReader,
    *,
    number: int,
    snapshot_id: str,
    exit_code: int,
    command: Sequence[str],
    time: str,
    session: str | None,
) -> CheckOutcome:
    """Keep the outcome of one check of snapshot ``number`` in the ledger.

    Args:
        store: The open store.
        number: The snapshot checked.
        snapshot_id: Its id.
        exit_code: The check's exit code (0 passed; 128 + N for signal N).
        command: The check's command line.
        time: When it ended (ISO 8601, UTC).
        session: The agent session or person that ran it.

    Returns:
        The outcome, with its record's file name.

    Raises:
        NoCheckLogError: If the store has no ledger.
        OSError: If the disk refuses.
    """
    # Only a history on refs takes new records: an in-tree ledger refused the guard first
    # (Recorder.writing), and a store of any other kind keeps none.
    refs = sys.modules.get("snapline.store.refs.store")
    if refs is None or not isinstance(store, refs.RefsStore):
        raise NoCheckLogError()
    from snapline.store.refs.checks import RefsCheckLog

    record = CheckRecord(number, snapshot_id, time, exit_code, tuple(command), session)
    name = RefsCheckLog.of(store).add(record)
    return _outcome(name, record)


def outcomes(store: StoreReader, command: Sequence[str] | None = None) -> dict[int, CheckOutcome]:
    """The latest check of every main-line snapshot that was checked, by number.

    Args:
        store: The open store.
        command: Only the runs of this check (the same command line, argument for
            argument); ``None``: of any check.

    Raises:
        StoreCorruptError: If a check record is damaged; it is named.
    """
    log = _check_log(store)
    if log is None:
        return {}
    wanted = None if command is None else tuple(command)
    latest: dict[int, tuple[datetime, str, CheckRecord]] = {}
    ids: dict[int, str | None] = {}
    for name, record in log.all():
        if wanted is not None and record.command != wanted:
            continue
        if record.number not in ids:
            row = store.snapshots.get(record.number)
            ids[record.number] = None if row is None else row.id
        if ids[record.number] != record.snapshot_id:
            continue
        key = (_when(record.time), name, record)
        if record.number not in latest or key[:2] > latest[record.number][:2]:
            latest[record.number] = key
    return {number: _outcome(name, record) for number, (_, name, record) in latest.items()}


def last_passing(checked: dict[int, CheckOutcome], below: int) -> int | None:
    """The highest snapshot number below ``below`` whose latest check passed, or ``None``."""
    passed = [n for n, outcome in checked.items() if n < below and outcome.passed]
    return max(passed, default=None)


def _outcome(name: str, record: CheckRecord) -> CheckOutcome:
    # Here, not at the top: a history without checks lists none without the models.
    from snapline.guard.outcome import CheckOutcome, Outcome

    return CheckOutcome(
        snapshot=record.number,
        snapshot_id=record.snapshot_id,
        outcome=Outcome.PASS if record.exit_code == 0 else Outcome.FAIL,
        exit_code=record.exit_code,
        command=record.command,
        time=_when(record.time),
        session=record.session,
        record=name,
    )


def _when(text: str) -> datetime:
    # The ledger's times are UTC, with an offset, a `Z` or none (docs/format.md).
    when = datetime.fromisoformat(text.replace("Z", "+00:00"))
    return when if when.tzinfo is not None else when.replace(tzinfo=timezone.utc)
