"""One check of the latest snapshot: refused over drift, run, its outcome kept."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from snapline.guard.outcome import CheckOutcome
from snapline.guard.records import add_outcome
from snapline.guard.run import CheckOutput, run_check
from snapline.snapshots.record.commit import now_iso
from snapline.snapshots.record.detect import ensure_in_sync
from snapline.snapshots.record.recorder import Recorder

__all__ = ["check_latest"]


def check_latest(
    recorder: Recorder,
    command: Sequence[str],
    cwd: Path,
    output: CheckOutput,
    session: str | None,
) -> tuple[CheckOutcome, str | None]:
    """Run ``command`` on the latest snapshot's files and keep its outcome on that snapshot.

    Call while holding ``recorder.writing()``: the files checked are then exactly the
    snapshot's, since no other writer changes them meanwhile.

    Args:
        recorder: The workspace's recorder.
        command: The check and its arguments.
        cwd: Where it runs.
        output: Where its output goes.
        session: The agent session or person running it.

    Returns:
        The outcome recorded, and the output when captured.

    Raises:
        StateMismatchError: If the workspace differs from the latest snapshot.
        CommandError: If the check cannot be started; nothing is recorded.
        StoreVanishedError: If the check (or another process) deleted or replaced the
            store while it ran; nothing is recorded.
    """
    store = recorder.store
    with store.read():
        detection = recorder.detect(None, want_content=False)
        number = store.snapshots.latest_number() or 0
        row = store.snapshots.get(number)
    ensure_in_sync(detection, recorder.root, store)
    assert row is not None  # the baseline at least, in any store that opened
    code, text = run_check(command, cwd, output)
    # A check that deleted or replaced the store leaves nowhere to keep its outcome: a
    # record written now would recreate a stray `.snapline/ledger/checks/` (a directory
    # that `status` calls no store and `init` a store), or land in another history. It
    # fails as `run` does then (exit 3), whatever the check's own exit code was.
    recorder.check_store_present()
    outcome = add_outcome(
        store,
        number=number,
        snapshot_id=row.id,
        exit_code=code,
        command=command,
        time=now_iso(),
        session=session,
    )
    return outcome, text
