"""Running a shell command and recording its side effects as one snapshot.

A command's effects are unknown in advance, so the workspace must be in sync first (the
snapshot then holds exactly what the command did), the writer lock is held throughout
(nobody else's writes mix in), and a journal entry makes a crash mid-command settle by
recording on the next open.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from snapline.crashpoints import crash_point
from snapline.errors import SnaplineError
from snapline.snapshots.info import SnapshotInfo
from snapline.snapshots.read.lines import unmerged_lines
from snapline.snapshots.record.commit import now_iso
from snapline.snapshots.record.detect import ensure_in_sync
from snapline.snapshots.record.journal import RUN_OP
from snapline.snapshots.record.recorder import Recorder
from snapline.snapshots.snapshot import Snapshot

__all__ = ["CommandError", "RunResult", "run_command"]


class CommandError(SnaplineError):
    """A command given to ``run`` could not be started.

    Its exit code is the one a POSIX shell gives the same failure, so ``snapline run --``
    can stand in for the shell in a script: 127 when the command is not found, 126 when
    it is found but cannot be executed (no execute permission, not a program).

    Attributes:
        argv: The command line that could not be started.
    """

    exit_code = 126

    def __init__(self, argv: Sequence[str], error: OSError) -> None:
        self.argv = list(argv)
        if isinstance(error, FileNotFoundError):
            self.exit_code = 127
            advice = "check the command name, or give its path"
        else:
            advice = "check that it is a program you may execute"
        detail = error.strerror or str(error)
        super().__init__(f"cannot run {' '.join(argv)!r}: {detail}; {advice}")


@dataclass(frozen=True)
class RunResult:
    """A command's exit code and the snapshot of its side effects (``None``: none).

    ``lines`` is the number of lines of history after the command: more than one when
    it merged branches that both recorded (a ``git pull``), and then nothing was
    recorded: ``snapline merge`` joins them.
    """

    exit_code: int
    snapshot: Snapshot | None
    lines: int = 1


def run_command(
    recorder: Recorder, argv: Sequence[str], info: SnapshotInfo, cwd: Path | None
) -> RunResult:
    """Run ``argv`` and record what it changed. Call while holding ``recorder.writing()``.

    Args:
        recorder: The workspace's recorder.
        argv: The command and its arguments (no shell is involved).
        info: What the caller says about the snapshot; the exit code is added to its
            metadata.
        cwd: Working directory (default: the root).

    Returns:
        The exit code and the snapshot (``None`` if the command changed nothing).

    Raises:
        StateMismatchError: If the workspace has drifted.
        CommandError: If the command cannot be started.
        StoreVanishedError: If the command (or another process) deleted or replaced the
            store; nothing is recorded.
    """
    store = recorder.store
    with store.read():
        detection = recorder.detect(None, want_content=False)
    ensure_in_sync(detection, recorder.root, store)
    payload = {"argv": json.dumps(list(argv)), "tool": info.tool, "description": info.description}
    with store.write():
        entry_id = store.journal.add(RUN_OP, now_iso(), json.dumps(payload))
    crash_point("run-journaled")
    try:
        completed = subprocess.run(list(argv), cwd=cwd or recorder.root, check=False)
        exit_code = completed.returncode
    except OSError as error:
        with store.write():
            store.journal.delete(entry_id)
        raise CommandError(argv, error) from None
    crash_point("run-finished")
    # A command that deleted or replaced the store (`rm -rf .snapline`) leaves nowhere to
    # record into, whether or not it changed anything else: said here, before the
    # refresh, so that "changed nothing" or "two lines" never stands for a lost store.
    recorder.check_store_present()
    # The command may have moved git (`git pull`, `git checkout B`): the ledger then
    # explains part of what changed. The index takes it in first, so that only what the
    # incoming ledger does not explain is recorded, on top of its latest snapshot.
    store.refresh()
    lines = unmerged_lines(store)
    with store.write():
        snapshot = None
        if not lines:
            snapshot = recorder.record(None, info.with_metadata(exit_code=exit_code)).snapshot()
        store.journal.delete(entry_id)
    # Two lines (a pull that merged two branches that both recorded): the merge
    # snapshot records what the merge brought; recording it here would make a third.
    return RunResult(exit_code=exit_code, snapshot=snapshot, lines=len(lines) + 1 if lines else 1)
