"""Rollback: make the workspace (or some paths) what it was after an earlier snapshot.

A rollback never rewrites history: it is recorded as a new snapshot (tool ``rollback``),
so it can itself be rolled back. It first compares the disk with the known state; a file
changed outside snapline would be silently overwritten, so the rollback refuses, unless
forced: then the outside changes are first recorded as their own snapshot (tool
``external``), so they stay in the history and continuity holds. Only files whose
content or mode differ are written; every rebuilt content is hash-checked before it
touches the disk, and the writes go through the journal, all or nothing.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from snapline.errors import SnaplineError
from snapline.paths import UnknownPathError, disk_path
from snapline.snapshots.check.merged import UNMERGED
from snapline.snapshots.info import EXTERNAL_TOOL, SnapshotInfo
from snapline.snapshots.read.history import (
    Version,
    check_number,
    in_scope,
    touched_since,
)
from snapline.snapshots.read.line_view import LineView
from snapline.snapshots.read.reconstruct import ContentUnavailableError, Reconstructor
from snapline.snapshots.record.detect import Detection
from snapline.snapshots.record.monitored import Changes, compare_watched, note_walk
from snapline.snapshots.record.plan import (
    ConflictsError,
    Step,
    drift_conflicts,
    unsafe_conflict,
)
from snapline.snapshots.record.recorder import Recorder
from snapline.snapshots.restore.planned import RestorePlan
from snapline.snapshots.results import FORCEABLE, Conflict, RollbackResult
from snapline.store import ChangeRow, StoreReader

__all__ = ["EXTERNAL_TOOL", "RollbackConflictError", "rollback"]


class RollbackConflictError(ConflictsError):
    """A rollback would destroy work that is not in the history; nothing was written.

    Attributes:
        target: The snapshot the rollback was going back to.
        conflicts: Every conflicting path, with what is wrong with it.
        paths: The conflicting paths.
    """

    def __init__(self, target: int, conflicts: Sequence[Conflict]) -> None:
        self.target = target
        # The library's own arguments; the command line says --force (cli/errors.py).
        # Any other conflict's own message says what to do.
        outside = any(c.kind in FORCEABLE for c in conflicts)
        advice = ""
        if outside and any(c.kind == UNMERGED for c in conflicts):
            # No force then: it would record another line's merged work as outside too.
            advice = "record the outside changes first (Workspace.resync)"
        elif outside:
            advice = (
                "record the outside changes first (Workspace.resync), or pass force=True, "
                "which records them first so they are not lost"
            )
        super().__init__(f"rollback to snapshot {target}", conflicts, advice)


@dataclass
class _Plan(RestorePlan):
    detection: Detection | None = None

    @property
    def outside(self) -> bool:
        """Whether some conflict is an outside change that recording would settle."""
        return any(c.kind in FORCEABLE for c in self.conflicts)

    def result(self, target: int, dry_run: bool) -> RollbackResult:
        return RollbackResult(
            target=target,
            dry_run=dry_run,
            restored=tuple(self.restored),
            deleted=tuple(self.deleted),
            recreated=tuple(self.recreated),
            conflicts=tuple(self.conflicts),
        )


def rollback(
    recorder: Recorder,
    reconstructor: Reconstructor,
    to: int,
    paths: list[str] | None,
    *,
    dry_run: bool,
    force: bool,
    info: SnapshotInfo,
    line: LineView | None = None,
    changes: Changes | None = None,
) -> RollbackResult:
    """Make every tracked file under ``paths`` equal to its version after snapshot ``to``.

    Takes the writer lock (re-entrant, so callers already holding it may call this).

    Args:
        recorder: The workspace's recorder (lock, detection, apply).
        reconstructor: Rebuilds the target versions.
        to: The snapshot to go back to (0 is the baseline).
        paths: Checked relative paths (files or directories) to limit the rollback to;
            ``None`` rolls back the whole workspace.
        dry_run: Only plan: report what would change and every conflict, write nothing.
        force: Record outside changes first (as a snapshot with tool ``external``), then
            roll back over them.
        info: Tool, description, session and metadata of the rollback's snapshot.
        line: When ``to`` is a snapshot of another line (a branch merged in git), the
            history read along that line (its latest snapshot is ``to``).
        changes: A file-system monitor's view (the warm server's): a rollback of the
            whole workspace then checks the disk only where it may differ from what the
            last check found (``snapshots/record/monitored.py``), with the same answer
            as the whole walk.

    Returns:
        What was (or would be) restored, deleted and recreated, any conflicts, and the
        new snapshot(s).

    Raises:
        SnapshotNotFoundError: If there is no snapshot ``to``.
        UnknownPathError: If a path is neither on disk nor ever in the history (itself
            or anything under it).
        RollbackConflictError: If files were changed outside snapline (and ``force`` is
            false), are another line's work that git merged in (``unmerged``, forced
            or not: ``snapline merge`` joins it), or a path cannot be written safely;
            nothing is written.
        ContentMismatchError: If a rebuilt content does not match its recorded hash.
        OSError: If writing fails; every file touched has been put back.
    """
    scopes = None if paths is None else sorted(set(paths))
    with recorder.writing():
        _refuse_unknown(recorder.root, recorder.store, scopes)
        target = _Target(to, line, reconstructor)
        plan = _plan(recorder, target, scopes, force=force, changes=changes)
        # Keep what the drift check learnt: without it, files hashed too soon after
        # they were written (racy) were re-read on every rollback (measured: 9,992 of
        # 10,000 files in one rollback of a fresh workspace). Not what the rollback is
        # about to replace: a watched check learns mostly that (the files the last
        # rollback wrote), and kept, it cost a write transaction of its own (row R5).
        if plan.detection is not None:
            replaced = set() if dry_run or plan.conflicts else {s.path for s in plan.steps}
            recorder.save_stat_cache(plan.detection.outliving(replaced))
        external = None
        if force and not dry_run and any(c.kind == UNMERGED for c in plan.conflicts):
            # Recorded first as `external`, another line's work that git merged in would
            # become a person's outside change: only `snapline merge` settles it.
            raise RollbackConflictError(to, plan.conflicts)
        if plan.outside and force and not dry_run:
            external = recorder.record(
                scopes,
                SnapshotInfo(
                    tool=EXTERNAL_TOOL,
                    description=f"outside changes, recorded before rolling back to snapshot {to}",
                    session=info.session,
                    metadata={"recorded_by": "rollback --force"},
                ),
            ).snapshot()
            plan = _plan(recorder, target, scopes, changes=changes)
        result = plan.result(to, dry_run).model_copy(
            update={"external": external, "target_id": target.id}
        )
        if not plan.writes(
            recorder, dry_run=dry_run, refusal=lambda: RollbackConflictError(to, plan.conflicts)
        ):
            return result
        extra: dict[str, object] = {"rollback_to": to}
        if target.id is not None:
            extra["rollback_to_id"] = target.id
        if scopes is not None:
            extra["paths"] = scopes
        _keep_replaced(recorder, plan.steps)
        snapshot = recorder.apply("rollback", plan.steps, info.with_metadata(**extra))
        return result.model_copy(update={"snapshot": snapshot})


def _keep_replaced(recorder: Recorder, steps: Sequence[Step]) -> None:
    """Read each file the rollback replaces from the disk into the content cache.

    The journal keeps the known content of every file it replaces, to put it back if
    the write fails, and the rollback's snapshot diffs against it: both rebuilt it
    from the store's deltas, when the plan has just found the disk holding that very
    version (measured, row R5: rebuilding 100 files' known versions across 1,000
    snapshots took 8x the CPU time of reading and hashing them). The cache is keyed by
    what the bytes read hash to, so a file changed since is only a miss, rebuilt as
    before.
    """
    for step in steps:
        if step.before is None or recorder.cache.get(step.before.hash) is not None:
            continue
        with contextlib.suppress(OSError, SnaplineError):
            location = disk_path(recorder.root, step.path)
            info = os.lstat(location)
            if not stat.S_ISDIR(info.st_mode):
                recorder.read_file(location, step.path, info)


def _refuse_unknown(root: Path, store: StoreReader, scopes: list[str] | None) -> None:
    """Refuse a path neither on disk nor ever in the history (itself or under it): a typo.

    Rolling it back would only find "nothing to change", as recording a path neither
    on disk nor tracked would; both refuse it (``UnknownPathError``, a usage error).
    """
    if not scopes:
        return
    with store.read():
        unknown = [s for s in scopes if not (store.state.get([s]) or store.state.under(s))]
        if not unknown:
            return  # the usual case: every path is tracked now
        had: set[str] = set()
        for _, path, old_path in store.changes.paths(0, store.snapshots.latest_number() or 0):
            had.add(path)
            if old_path is not None:
                had.add(old_path)
    for scope in unknown:
        if not any(in_scope(path, [scope]) for path in had) and not _on_disk(root, scope):
            raise UnknownPathError(scope, "roll back")


def _on_disk(root: Path, path: str) -> bool:
    # As recording decides: there (even out of reach, which detection notes) or not.
    try:
        os.lstat(root.joinpath(*path.split("/")))
    except (FileNotFoundError, NotADirectoryError):
        return False
    except OSError:
        return True
    return True


@dataclass(frozen=True)
class _Target:
    """The state a rollback goes back to, and what reads it.

    On the main line, the history itself; on another line, the view along it: its
    state is the main line's at the fork with the line's own changes on top.
    """

    number: int
    line: LineView | None
    main: Reconstructor

    @property
    def id(self) -> str | None:
        return None if self.line is None else self.line.head.id

    @property
    def fork(self) -> int:
        """The last main-line snapshot the target's state builds on."""
        return self.number if self.line is None else self.line.fork

    @property
    def reconstructor(self) -> Reconstructor:
        if self.line is None:
            return self.main
        return Reconstructor(self.line, self.main.cache)

    def touched(self) -> set[str]:
        """The paths the target's own line changed after the fork (none on the main line)."""
        return set() if self.line is None else self.line.touched()


def _plan(
    recorder: Recorder,
    to: _Target,
    scopes: list[str] | None,
    *,
    force: bool = False,
    changes: Changes | None = None,
) -> _Plan:
    """Compare the target state with what is on disk now, without writing anything.

    Paths changed outside snapline are planned from their disk state (what a forced
    rollback sees once it has recorded them) and reported as conflicts. With ``force``
    they are also checked as recorded (an untracked file the plan deletes is then no
    obstacle), so a forced dry run promises what the forced run, which records them
    and plans again, will do.
    """
    store = recorder.store
    plan = _Plan()
    reconstructor = to.reconstructor
    detection = _detect(recorder, scopes, changes)
    plan.detection = detection
    with store.read():
        if to.line is None:
            check_number(store, to.number)
        # Only paths changed since ``to`` (on the main line since its fork, and on its
        # own line) or changed on disk can differ between the two states: every other
        # tracked path is in its known state now and was then.
        since = touched_since(store, to.fork) | to.touched()
        touched = {p for p in since if in_scope(p, scopes)}
        outside = {d.path for d in detection.drifts} | {s.path for s in detection.skipped}
        known = store.state.get(touched | outside)
        target = {p: Version(r.hash, r.mode) for p, r in known.items() if p not in touched}
        # The change that made each version then: looked up once, for its hash and mode
        # now and to rebuild its content below.
        made = reconstructor.versions(touched, to.number)
        target.update(_versions(made))
        before = {p: Version(r.hash, r.mode) for p, r in known.items()}
        current = dict(before)
        for drift in detection.drifts:
            if drift.disk is None:
                current.pop(drift.path, None)
            else:
                current[drift.path] = Version(drift.disk.hash, drift.disk.mode)
        plan.conflicts.extend(
            drift_conflicts(
                detection, recorder.root, recorder.store, relevant=known.keys() | target.keys()
            )
        )
        tracked = current if force else before
        for path in sorted(current.keys() | target.keys()):
            now, then = current.get(path), target.get(path)
            if now == then:
                continue
            unsafe = unsafe_conflict(path)
            if unsafe is not None:
                plan.conflicts.append(unsafe)
                continue
            if then is None:
                plan.steps.append(Step(path, tracked.get(path), None, None))
                plan.deleted.append(path)
                continue
            try:
                row = made.get(path)
                content = (
                    reconstructor.rebuild(row) if row else reconstructor.content_at(path, to.number)
                )
            except ContentUnavailableError as error:
                plan.conflicts.append(Conflict(path=path, kind="unavailable", message=str(error)))
                continue
            plan.steps.append(Step(path, tracked.get(path), content, then.mode))
            (plan.recreated if now is None else plan.restored).append(path)
    plan.order(recorder.root)
    return plan


def _detect(recorder: Recorder, scopes: list[str] | None, changes: Changes | None) -> Detection:
    """The disk against the known state under ``scopes``, as every writer compares them.

    Under the writer lock, so the known state cannot move before the plan reads it.
    """
    if scopes is not None or changes is None:
        with recorder.store.read():
            detection = recorder.detect(scopes, want_content=False)
        if scopes is None and (detection.drifts or detection.skipped):
            # A drift a warm check's token would hide (what its monitor could not see).
            note_walk(recorder.root, detection)
        return detection
    # Measured, row R5: the walk of 10,000 files was the largest part of a warm
    # rollback's time; the monitor's view checks the paths it names and stats the rest.
    return compare_watched(recorder, changes, save=False)  # rollback() keeps what lasts


def _versions(rows: dict[str, ChangeRow]) -> dict[str, Version]:
    return {
        path: Version(row.result_hash, row.result_mode)
        for path, row in rows.items()
        if row.result_hash is not None and row.result_mode is not None
    }
