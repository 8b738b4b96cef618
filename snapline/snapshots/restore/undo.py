"""Undo and redo, like an editor's, kept in the history itself.

``undo`` rolls back what the latest change did; ``redo`` rolls back the last undo.
Both are rollbacks of the files one snapshot changed, recorded as new snapshots, so
nothing is ever rewritten. The undo and redo stacks are not kept anywhere else: they
are read from the history, from the metadata those snapshots carry (``{"undo_of": N}``
on an undo, ``{"redo_of": U}`` on a redo), so they work across processes and survive a
crash. The rules, walking back from the latest snapshot:

- every snapshot stands for a state. An ordinary snapshot (any tool but undo and redo)
  stands for itself; an undo of N stands for what N stood on (snapshot N - 1, followed
  the same way); a redo of the undo U stands for the snapshot U undid.
- ``undo`` takes the ordinary snapshot A the latest one stands for, and rolls the files
  A changed back to their state after A - 1 (``undo_of: A``). Nothing is left to undo
  when A is the baseline.
- ``redo`` takes the latest undo not yet redone: the latest snapshot if it is an undo;
  if it is a redo of U, the one found the same way from the snapshot before U; none if
  an ordinary snapshot comes first. So a new ordinary snapshot clears the redo stack.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from snapline.errors import SnaplineError
from snapline.snapshots.info import SnapshotInfo
from snapline.snapshots.read.reconstruct import Reconstructor
from snapline.snapshots.record.recorder import Recorder
from snapline.snapshots.restore.rollback import rollback
from snapline.snapshots.results import RollbackResult
from snapline.store import StoreReader

__all__ = [
    "REDO_KEY",
    "UNDO_KEY",
    "NothingToRedoError",
    "NothingToUndoError",
    "redo_target",
    "undo_or_redo",
    "undo_target",
]

UNDO_KEY = "undo_of"
"""The metadata key of an undo snapshot: the number of the snapshot it undid."""

REDO_KEY = "redo_of"
"""The metadata key of a redo snapshot: the number of the undo snapshot it redid."""


class _NothingWaitingError(SnaplineError):
    """Nothing waits to be undone or redone after the latest snapshot.

    Attributes:
        latest: The latest snapshot.
    """

    exit_code = 1
    latest: int


class NothingToUndoError(_NothingWaitingError):
    """Every change down to the baseline is already undone."""

    def _message(self) -> str:
        return (
            f"nothing to undo: snapshot {self.latest} stands for the baseline; "
            "see `snapline log` for the history"
        )


class NothingToRedoError(_NothingWaitingError):
    """No undo is waiting to be redone: none yet, or a new change came after it."""

    def _message(self) -> str:
        return (
            f"nothing to redo: no undo is waiting after snapshot {self.latest} "
            "(a new change clears what was undone)"
        )


def undo_target(store: StoreReader, latest: int) -> int:
    """The snapshot an undo would undo now: the ordinary one the latest stands for.

    Args:
        store: The store, read in one view by the caller.
        latest: The latest snapshot number.

    Returns:
        Its number; 0 (the baseline) when nothing is left to undo.
    """
    return _stands_for(store, latest)


def redo_target(store: StoreReader, latest: int) -> tuple[int, int] | None:
    """The undo a redo would redo now, and the snapshot that undo undid.

    Args:
        store: The store, read in one view by the caller.
        latest: The latest snapshot number.

    Returns:
        ``(undo snapshot, snapshot it undid)``, or ``None`` when nothing waits.
    """
    number = latest
    while number > 0:
        undone = _link(store, number, UNDO_KEY)
        if undone is not None:
            return number, undone
        redone = _link(store, number, REDO_KEY)
        if redone is None or _link(store, redone, UNDO_KEY) is None:
            return None
        number = redone - 1
    return None


def undo_or_redo(
    recorder: Recorder,
    reconstructor: Reconstructor,
    which: Literal["undo", "redo"],
    *,
    dry_run: bool,
    force: bool,
    info: SnapshotInfo,
) -> RollbackResult:
    """Undo the latest change, or redo the last undo, as a new snapshot.

    Args:
        recorder: The workspace's recorder (lock, detection, apply).
        reconstructor: Rebuilds the versions to restore.
        which: ``"undo"``: roll back what the latest change N did (``undo_of: N`` in the
            new snapshot's metadata, the state restored is N - 1); ``"redo"``: roll back
            the last undo U of N (``redo_of: U``, the state restored is N).
        dry_run: Only plan: report what would change and every conflict.
        force: Record outside changes first, then roll back over them (as rollback).
        info: Tool, description, session and metadata of the new snapshot; an empty
            description becomes ``undo snapshot N`` (``redo snapshot N``).

    Returns:
        The rollback's result: its ``target`` is the state restored.

    Raises:
        NothingToUndoError: If everything down to the baseline is undone.
        NothingToRedoError: If no undo waits to be redone.
        RollbackConflictError: If the files were changed outside snapline (and not
            ``force``); nothing is written.
    """
    with recorder.writing():
        store = recorder.store
        with store.read():
            number, to, marks = _STEPS[which](store, recorder.latest)
            paths = _paths(store, number)
        info = _described(info, f"{which} snapshot {number}").with_metadata(**marks)
        return rollback(recorder, reconstructor, to, paths, dry_run=dry_run, force=force, info=info)


def _undo_step(store: StoreReader, latest: int) -> tuple[int, int, dict[str, int]]:
    target = undo_target(store, latest)
    if target == 0:
        raise NothingToUndoError(latest)
    return target, target - 1, {UNDO_KEY: target}


def _redo_step(store: StoreReader, latest: int) -> tuple[int, int, dict[str, int]]:
    found = redo_target(store, latest)
    if found is None:
        raise NothingToRedoError(latest)
    undo_number, target = found
    return target, target, {REDO_KEY: undo_number}


# Given the store and the latest number: the snapshot whose files go back, the state they
# go back to, and the metadata that marks the new snapshot; or the refusal.
_STEPS = {"undo": _undo_step, "redo": _redo_step}


def _stands_for(store: StoreReader, number: int) -> int:
    """The ordinary snapshot whose state ``number`` stands for (see the module doc)."""
    while number > 0:
        undone = _link(store, number, UNDO_KEY)
        if undone is not None:
            number = undone - 1
            continue
        redone = _link(store, number, REDO_KEY)
        undone = None if redone is None else _link(store, redone, UNDO_KEY)
        if undone is None:
            return number
        number = undone
    return 0


def _link(store: StoreReader, number: int, key: str) -> int | None:
    """The snapshot number under ``key`` in ``number``'s metadata, when it is usable.

    A store can come from elsewhere: only an earlier, existing snapshot counts, so the
    walks above always move back and end.
    """
    row = store.snapshots.get(number)
    if row is None:
        return None
    try:
        metadata: Any = json.loads(row.metadata)
    except ValueError:
        return None
    value = metadata.get(key) if isinstance(metadata, dict) else None
    if isinstance(value, bool) or not isinstance(value, int) or not 0 < value < number:
        return None
    return value


def _paths(store: StoreReader, number: int) -> list[str]:
    """Every path snapshot ``number`` changed, renamed files on both sides."""
    paths: set[str] = set()
    for change in store.changes.of(number, deltas=False):
        paths.add(change.path)
        if change.old_path is not None:
            paths.add(change.old_path)
    return sorted(paths)


def _described(info: SnapshotInfo, default: str) -> SnapshotInfo:
    if info.description:
        return info
    return info.model_copy(update={"description": default})
