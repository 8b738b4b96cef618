"""Revert: undo one snapshot's changes and keep everything recorded after it, like ``git revert``.

Each file change of snapshot ``n`` is undone on today's content. A file that still holds
what ``n`` left is put back exactly; a text file edited since gets ``n``'s change taken
out by a three-way line merge, as ``git revert`` does (:mod:`.merge3`: ancestor ``n``'s
result, ours today's file, theirs the version before ``n``), so the change is found
where ``n`` made it, never at a look-alike block, and an edit since in the same lines is
a conflict, never a guess. A file added by ``n`` is deleted if it holds what ``n``
added (even when later rollbacks deleted and brought it back), a file ``n`` deleted is
recreated if its path is free, and a rename is moved back, following the file through
later renames. Anything that cannot be undone
cleanly is a conflict, and then nothing is written. The revert is recorded as a new
snapshot (tool ``revert``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from snapline.content import decode_text
from snapline.errors import SnaplineError
from snapline.hashing import hash_bytes
from snapline.snapshots.info import SnapshotInfo
from snapline.snapshots.kinds import ChangeKind
from snapline.snapshots.read.history import Version, check_number
from snapline.snapshots.read.line_view import LineView
from snapline.snapshots.read.reconstruct import ContentUnavailableError, Reconstructor
from snapline.snapshots.record.plan import ConflictsError, Step, drift_conflicts, unsafe_conflict
from snapline.snapshots.record.recorder import Recorder
from snapline.snapshots.restore.follow import located, main_line_since
from snapline.snapshots.restore.merge3 import merge3
from snapline.snapshots.restore.planned import RestorePlan
from snapline.snapshots.results import FORCEABLE, Conflict, Move, RevertResult
from snapline.store import ChangeRow, StateRow

__all__ = ["BaselineRevertError", "RevertConflictError", "revert"]


class RevertConflictError(ConflictsError):
    """Some of a snapshot's changes cannot be undone cleanly; nothing was written.

    Attributes:
        number: The snapshot being reverted.
        conflicts: Every file that cannot be reverted, with the reason.
        paths: The conflicting paths.
    """

    def __init__(self, number: int, conflicts: Sequence[Conflict]) -> None:
        self.number = number
        # A revert cannot be forced: the outside change is recorded first, by the caller.
        outside = any(c.kind in FORCEABLE for c in conflicts)
        advice = "record the outside changes first (Workspace.resync), then revert again"
        super().__init__(f"revert of snapshot {number}", conflicts, advice if outside else "")


class BaselineRevertError(SnaplineError):
    """Snapshot 0 is the baseline, not a change, so it cannot be reverted."""

    exit_code = 2

    def __init__(self) -> None:
        self.number = 0
        super().__init__(
            "snapshot 0 is the baseline, not a change; to return to it, roll back to 0"
        )


@dataclass
class _Plan(RestorePlan):
    moved: list[Move] = field(default_factory=list)
    renames: dict[str, str] = field(default_factory=dict)

    def conflict(self, path: str, kind: str, message: str) -> None:
        self.conflicts.append(Conflict(path=path, kind=kind, message=message))

    def result(self, number: int, dry_run: bool) -> RevertResult:
        return RevertResult(
            reverted=number,
            dry_run=dry_run,
            restored=tuple(sorted(self.restored)),
            deleted=tuple(sorted(self.deleted)),
            recreated=tuple(sorted(self.recreated)),
            moved=tuple(sorted(self.moved, key=lambda m: m.target)),
            conflicts=tuple(self.conflicts),
        )


def revert(
    recorder: Recorder,
    reconstructor: Reconstructor,
    number: int,
    *,
    dry_run: bool,
    info: SnapshotInfo,
    line: LineView | None = None,
) -> RevertResult:
    """Undo the changes of snapshot ``number`` on today's workspace, as a new snapshot.

    Takes the writer lock (re-entrant, so callers already holding it may call this).

    Args:
        recorder: The workspace's recorder (lock, detection, apply).
        reconstructor: Rebuilds the versions the snapshot changed.
        number: The snapshot to undo (1 or later).
        dry_run: Only plan: report what would change and every conflict, write nothing.
        info: Tool, description, session and metadata of the revert's snapshot.
        line: When ``number`` is a snapshot of another line (a branch merged in git),
            the history read along that line, to its head: the snapshot's change
            and the versions before it are that line's, today's files the main line's.

    Returns:
        What was (or would be) restored, deleted, recreated and moved back, any
        conflicts (dry run only), and the new snapshot.

    Raises:
        SnapshotNotFoundError: If there is no snapshot ``number``.
        BaselineRevertError: If ``number`` is 0.
        RevertConflictError: If a change cannot be undone cleanly (a file changed outside
            snapline, edited since in an overlapping place, binary and changed since,
            or in the way); nothing is written.
        OSError: If writing fails; every file touched has been put back.
    """
    with recorder.writing():
        plan = _plan(recorder, reconstructor, number, line)
        result = plan.result(number, dry_run)
        reverted_id = None
        if line is not None:
            row = line.snapshots.get(number)
            assert row is not None, "the view holds the snapshot it was made for"
            reverted_id = row.id
            result = result.model_copy(update={"reverted_id": reverted_id})
        if not plan.writes(
            recorder, dry_run=dry_run, refusal=lambda: RevertConflictError(number, plan.conflicts)
        ):
            return result
        snapshot = recorder.apply(
            "revert",
            plan.steps,
            info.with_metadata(
                reverts=number, **({} if reverted_id is None else {"reverts_id": reverted_id})
            ),
            renames=plan.renames,
        )
        return result.model_copy(update={"snapshot": snapshot})


def _plan(
    recorder: Recorder, reconstructor: Reconstructor, number: int, line: LineView | None
) -> _Plan:
    store = recorder.store
    plan = _Plan()
    # What the snapshot changed, and the versions before it, are read along its own
    # line; today's files are the main line's.
    then = store if line is None else line
    rebuild = reconstructor if line is None else Reconstructor(line, reconstructor.cache)
    with store.read():
        if line is None:
            latest = check_number(store, number)
        else:
            latest = store.snapshots.latest_number() or 0
        if number == 0:
            raise BaselineRevertError()
        changes = then.changes.of(number, deltas=False)
        later = then.changes.in_range(number + 1, then.snapshots.latest_number() or 0)
        if line is not None:
            # Then where the main line moved files since the line left it.
            later += main_line_since(store, line, latest)
        now_at = {c.path: located(c.path, later) for c in changes if c.result_hash is not None}
        touched = {c.path for c in changes} | {c.old_path for c in changes if c.old_path}
        touched |= {p for p in now_at.values() if p is not None}
        known = store.state.get(touched)
        checkable = []
        for path in sorted(touched):
            # Every path the plan may write is one of these, so a path no writer may
            # write (unsafe in itself, or inside .git/) is refused here, as rollback
            # refuses it. A file or symlink standing where a parent directory was is a
            # change of type that the plan undoes (or, when nothing removes it, an
            # obstacle that plan.obstacles names).
            unsafe = unsafe_conflict(path)
            if unsafe is None:
                checkable.append(path)
            else:
                plan.conflicts.append(unsafe)
        detection = recorder.detect(checkable, want_content=False)
        plan.conflicts.extend(
            drift_conflicts(detection, recorder.root, recorder.store, relevant=touched)
        )
        outside = {c.path for c in plan.conflicts}
        undo = _Undo(rebuild, reconstructor, number, latest, known, plan)
        for change in changes:
            if {change.path, change.old_path, now_at.get(change.path)} & outside:
                continue
            undo.change(change, now_at.get(change.path))
    plan.order(recorder.root)
    return plan


@dataclass
class _Undo:
    """Plans the undoing of one change row of snapshot ``number``.

    ``reconstructor`` reads the snapshot's line (its versions at ``number`` and before);
    ``now`` reads the main line, whose ``latest`` is today's state.
    """

    reconstructor: Reconstructor
    now: Reconstructor
    number: int
    latest: int
    known: dict[str, StateRow]
    plan: _Plan

    def change(self, change: ChangeRow, now_at: str | None) -> None:
        try:
            if change.kind == ChangeKind.ADDED:
                self._added(change, now_at)
            elif change.kind == ChangeKind.DELETED:
                self._deleted(change)
            elif change.kind == ChangeKind.MODIFIED:
                self._modified(change, now_at)
            else:
                self._renamed(change, now_at)
        except ContentUnavailableError as error:
            self.plan.conflict(change.path, "unavailable", str(error))

    def _added(self, change: ChangeRow, now_at: str | None) -> None:
        if now_at is None:
            # Deleted or replaced since: whatever stands at the path now (brought back
            # by a rollback, say) is only deleted if it is exactly what n added.
            now_at = change.path
        today = self._version(now_at)
        if today is None:
            return
        if today != _result(change):
            self._changed_since(now_at, f"{now_at} was changed after snapshot {self.number}")
            return
        self._step(now_at, None, None)
        self.plan.deleted.append(now_at)

    def _deleted(self, change: ChangeRow) -> None:
        today = self._version(change.path)
        if today == _base(change):
            return
        if today is not None:
            self._changed_since(
                change.path, f"{change.path} was created again after snapshot {self.number}"
            )
            return
        content = self.reconstructor.content_at(change.path, self.number - 1)
        self._step(change.path, content, change.base_mode)
        self.plan.recreated.append(change.path)

    def _modified(self, change: ChangeRow, now_at: str | None) -> None:
        if now_at is None and change.path in self.known:
            # Deleted or replaced since, and back at its place now: the merge below
            # finds n's change in it, or refuses.
            now_at = change.path
        today = self.known.get(now_at) if now_at is not None else None
        if today is None or now_at is None:
            self._changed_since(
                change.path, f"{change.path} was deleted or replaced after snapshot {self.number}"
            )
            return
        undone = self._undone(change, change.path, now_at, today)
        if undone is None:
            return
        content, mode = undone
        if (hash_bytes(content), mode) == (today.hash, today.mode):
            return
        self._step(now_at, content, mode)
        self.plan.restored.append(now_at)

    def _renamed(self, change: ChangeRow, now_at: str | None) -> None:
        source = change.old_path
        assert source is not None
        if now_at is None and change.path in self.known:
            # Deleted or replaced since, and back at its place now (a rollback and its
            # undo): as for a modified file, the merge below finds n's change or refuses.
            now_at = change.path
        today = self.known.get(now_at) if now_at is not None else None
        if today is None or now_at is None:
            if self._version(source) != _base(change):
                self._changed_since(
                    change.path,
                    f"{change.path} was deleted or replaced after snapshot {self.number}",
                )
            return
        if source in self.known:
            self._changed_since(
                source, f"{source} is in use again, so {now_at} cannot move back there"
            )
            return
        undone = self._undone(change, source, now_at, today)
        if undone is None:
            return
        # A rename never lands on a tracked file (record/build.py records that as a
        # deletion and a modification, and verify calls it a break in continuity), so
        # nothing was overwritten at its destination that would need bringing back.
        self._step(now_at, None, None)
        self._step(source, *undone)
        self.plan.moved.append(Move(source=now_at, target=source))
        self.plan.renames[source] = now_at

    def _undone(
        self, change: ChangeRow, base_path: str, now_at: str, today: StateRow
    ) -> tuple[bytes, int] | None:
        """The content and mode of the file once ``change`` is taken out (``None``: conflict).

        ``base_path`` is where the file was before the snapshot, ``now_at`` where it is.
        """
        if today.hash == change.result_hash:
            content = self.reconstructor.content_at(base_path, self.number - 1)
        elif today.hash == change.base_hash:
            # The content edit was already taken back; only the mode may be left.
            content = self.now.content_at(now_at, self.latest)
        else:
            carried = self._carried(change, base_path, now_at)
            if carried is None:
                return None
            content = carried
        mode = change.base_mode if today.mode == change.result_mode else today.mode
        assert mode is not None
        return content, mode

    def _carried(self, change: ChangeRow, base_path: str, now_at: str) -> bytes | None:
        rebuild = self.reconstructor
        result = rebuild.content_at(change.path, self.number)
        base = rebuild.content_at(base_path, self.number - 1)
        today = self.now.content_at(now_at, self.latest)
        if any(decode_text(data) is None for data in (base, result, today)):
            self._changed_since(
                now_at,
                f"{now_at} is binary and was changed after snapshot {self.number}, so that "
                "snapshot's change cannot be taken out of it",
            )
            return None
        merged = merge3(result, today, base)
        if merged.content is None:
            self.plan.conflict(
                now_at,
                "hunks-failed",
                f"{merged.conflicts} of {merged.conflicts + merged.taken} hunks of snapshot "
                f"{self.number}'s change to {now_at} overlap edits made since in the same "
                "lines, so they cannot be taken out cleanly; edit it by hand",
            )
            return None
        return merged.content

    def _version(self, path: str | None) -> Version | None:
        row = self.known.get(path) if path is not None else None
        return None if row is None else Version(row.hash, row.mode)

    def _step(self, path: str, content: bytes | None, mode: int | None) -> None:
        self.plan.steps.append(Step(path, self._version(path), content, mode))

    def _changed_since(self, path: str, message: str) -> None:
        self.plan.conflict(path, "changed-since", message + "; edit it by hand")


def _base(change: ChangeRow) -> Version | None:
    if change.base_hash is None or change.base_mode is None:
        return None
    return Version(change.base_hash, change.base_mode)


def _result(change: ChangeRow) -> Version | None:
    if change.result_hash is None or change.result_mode is None:
        return None
    return Version(change.result_hash, change.result_mode)
