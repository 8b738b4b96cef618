"""The recording engine behind a workspace: the writer lock, recording and journaled writes.

A :class:`Recorder` owns what every mutating operation shares: the file lock that
serialises writers (released by the OS if a process dies), recovery of a write a dead
process left half done, the content cache that spares rebuilding diff bases, and the
two ways a snapshot is made: :meth:`Recorder.record` adopts what is already on disk;
:meth:`Recorder.apply` writes planned content into the workspace under the journal and
records it. Rollback and revert use :meth:`apply` too.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import secrets
import subprocess
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import filelock

from snapline import atomic
from snapline.crashpoints import crash_point
from snapline.errors import SnaplineError
from snapline.hashing import hash_bytes
from snapline.paths import STORE_DIR, UnsafePathError, disk_path
from snapline.scanning import MODE_EXECUTABLE, MODE_FILE, DiskFile, IgnoreRules, read_disk_file
from snapline.snapshots.build import Limits, Prepared, prepare_changes
from snapline.snapshots.commit import Header, append_snapshot, check_parent, now_iso
from snapline.snapshots.convert import to_snapshot
from snapline.snapshots.detect import Detection, Drift, TrackedCache, detect, ensure_in_sync
from snapline.snapshots.journal import RUN_OP, PlannedWrite, apply_writes, recover
from snapline.snapshots.model import SkippedPath, Snapshot
from snapline.snapshots.reconstruct import ContentCache, Reconstructor
from snapline.store import (
    ChangeRow,
    SnapshotRow,
    StateRow,
    Store,
    StoreBusyError,
    StoreCorruptError,
)

__all__ = ["LOCK_NAME", "CommandError", "GcResult", "NotTrackedError", "Recorder", "RunResult"]

log = logging.getLogger("snapline")

LOCK_NAME = "lock"


class NotTrackedError(SnaplineError):
    """An operation needs a tracked file and the path is not one (or is in the way)."""

    exit_code = 1

    def __init__(self, path: str, what: str = "is not tracked") -> None:
        self.path = path
        super().__init__(f"{path} {what}; check the path with `snapline status`")


class CommandError(SnaplineError):
    """A command given to ``run`` could not be started."""

    exit_code = 2

    def __init__(self, argv: Sequence[str], detail: str) -> None:
        self.argv = list(argv)
        super().__init__(f"cannot run {' '.join(argv)!r}: {detail}; check the command name")


@dataclass(frozen=True)
class RunResult:
    """A command's exit code and the snapshot of its side effects (``None``: none)."""

    exit_code: int
    snapshot: Snapshot | None


@dataclass(frozen=True)
class GcResult:
    """What ``gc`` removed."""

    blobs_removed: int
    bytes_freed: int


class Recorder:
    """Records snapshots for one open store. Internal: the public API is ``Workspace``."""

    def __init__(self, root: Path, store: Store, limits: Limits, timeout: float) -> None:
        self.root = root
        self.store = store
        self.limits = limits
        self.timeout = timeout
        self.cache = ContentCache()
        self.rebuilder = Reconstructor(store, self.cache)
        self.last_skipped: tuple[SkippedPath, ...] = ()
        # Chain hashes of snapshots checked before building on them (commit.check_parent).
        self.trusted: set[str] = set()
        self.tracked = TrackedCache()
        self._lock = filelock.FileLock(str(root / STORE_DIR / LOCK_NAME), timeout=timeout)

    @property
    def latest(self) -> int:
        number = self.store.snapshots.latest_number()
        return 0 if number is None else number

    # -- locking and recovery ----------------------------------------------------------

    @contextlib.contextmanager
    def writing(self) -> Iterator[None]:
        """Hold the writer lock, after undoing any write a dead process left behind.

        Raises:
            StoreBusyError: If another process holds the lock past the timeout.
        """
        try:
            self._lock.acquire()
        except filelock.Timeout:
            raise StoreBusyError(self.store.path, self.timeout) from None
        except OSError as error:
            # .snapline/lock replaced by a directory, or not writable: the store is
            # not usable for writing, which is a store problem, not a usage error.
            raise StoreCorruptError(self.store.path.parent / LOCK_NAME, str(error)) from None
        try:
            if self.store.journal.entries():
                self._recover()
            yield
        finally:
            self._lock.release()

    def recover_if_idle(self) -> None:
        """Undo a dead process's half-done write, unless a live writer holds the lock."""
        if self.store.journal.entries():
            with contextlib.suppress(filelock.Timeout), self._lock.acquire(timeout=0):
                self._recover()

    def _recover(self) -> None:
        for note in recover(self.root, self.store, self.known_content, self._finish_run):
            log.warning("recovery: %s", note)

    def _finish_run(self, payload: dict[str, str]) -> None:
        header = Header(
            tool=payload.get("tool", "shell"),
            description=payload.get("description", "") + " (recorded after an interruption)",
            metadata={"recovered": True},
        )
        self.record(None, header)

    # -- shell commands ----------------------------------------------------------------

    def run(self, argv: Sequence[str], header: Header, cwd: Path | None) -> RunResult:
        """Run a command and record its side effects. Call while holding :meth:`writing`.

        The workspace must be in sync first, so the snapshot holds exactly what the
        command did; the lock is held throughout, so nobody else's writes mix in. A
        journal entry makes a crash mid-command settle by recording on the next open.
        """
        with self.store.read():
            detection = self.detect(None, want_content=False)
        ensure_in_sync(detection)
        payload = {
            "argv": json.dumps(list(argv)),
            "tool": header.tool,
            "description": header.description,
        }
        with self.store.write():
            entry_id = self.store.journal.add(RUN_OP, now_iso(), json.dumps(payload))
        crash_point("run-journaled")
        try:
            completed = subprocess.run(list(argv), cwd=cwd or self.root, check=False)
            exit_code = completed.returncode
        except OSError as error:
            with self.store.write():
                self.store.journal.delete(entry_id)
            raise CommandError(argv, str(error)) from None
        crash_point("run-finished")
        with self.store.write():
            snapshot = self.record(
                None, replace(header, metadata={**header.metadata, "exit_code": exit_code})
            )
            self.store.journal.delete(entry_id)
        return RunResult(exit_code=exit_code, snapshot=snapshot)

    # -- maintenance ---------------------------------------------------------------------

    def gc(self) -> GcResult:
        """Delete stored content no snapshot refers to. Call while holding :meth:`writing`."""
        with self.store.write():
            unused = set(self.store.blobs.hashes()) - self.store.blobs.referenced()
            freed = self.store.blobs.delete(sorted(unused))
        self.store.vacuum()
        return GcResult(blobs_removed=len(unused), bytes_freed=freed)

    # -- recording what is on disk -----------------------------------------------------

    def record(self, rels: list[str] | None, header: Header) -> Snapshot | None:
        """Record what differs from the known state under ``rels`` (all when ``None``).

        Call while holding :meth:`writing`.
        """
        with self.store.write():
            detection = self.detect(rels, want_content=True)
            self.store.stat_cache.put(detection.cache_updates, detection.cache_deletes)
            skipped = [SkippedPath(path=s.path, reason=s.reason) for s in detection.skipped]
            if not detection.drifts:
                self._said(tuple(skipped))
                return None
            prepared = self.prepare(detection.drifts)
            row, changes = append_snapshot(
                self.store, header, prepared, skipped, trusted=self.trusted
            )
            crash_point("record-prepared")
        crash_point("snapshot-committed")
        self._remember(detection.drifts)
        snapshot = to_snapshot(row, changes)
        self._said(snapshot.skipped)
        return snapshot

    def ensure_in_sync(self, rels: list[str]) -> None:
        """Refuse (``StateMismatchError``) when any of ``rels`` was changed outside snapline.

        The current content of the files is kept as the diff base for the recording
        that follows, so it need not be rebuilt from the store.
        """
        with self.store.read():
            detection = self.detect(rels, want_content=False)
        ensure_in_sync(detection)
        for rel in rels:
            location = disk_path(self.root, rel)
            with contextlib.suppress(OSError, SnaplineError):
                info = os.lstat(location)
                if not os.path.isdir(location):
                    self._read(location, rel, info)

    # -- writing planned content -------------------------------------------------------

    def write(
        self, rel: str, data: bytes, executable: bool | None, header: Header
    ) -> Snapshot | None:
        """Write one file and record it. Call while holding :meth:`writing`."""
        known, current = self.file_in_sync(rel)
        if known is None and self.rules().is_ignored(rel):
            atomic.write_file(
                disk_path(self.root, rel), data, MODE_EXECUTABLE if executable else MODE_FILE
            )
            self._said((SkippedPath(path=rel, reason="ignored: written but not recorded"),))
            return None
        self._refuse_shadowing(rel)
        if executable is None:
            mode = known.mode if known else (current.mode if current else MODE_FILE)
        else:
            mode = MODE_EXECUTABLE if executable else MODE_FILE
        new = planned_file(rel, data, mode)
        if known is not None and (known.hash, known.mode) == (new.hash, new.mode):
            self._said(())
            return None
        write = PlannedWrite(rel, _hash(known), _mode(known), new.hash, mode, data)
        return self.apply("write", [Drift(rel, known, new)], [write], header)

    def delete(self, rel: str, header: Header) -> Snapshot:
        """Delete one tracked file and record it. Call while holding :meth:`writing`."""
        known, _current = self.file_in_sync(rel)
        if known is None:
            raise NotTrackedError(rel)
        write = PlannedWrite(rel, known.hash, known.mode, None, None, None)
        return self.apply("delete", [Drift(rel, known, None)], [write], header)

    def move(self, source: str, target: str, overwrite: bool, header: Header) -> Snapshot:
        """Move one tracked file, recorded as a rename. Call while holding :meth:`writing`."""
        if source == target:
            raise UnsafePathError(target, "source and destination are the same path")
        known_src, current_src = self.file_in_sync(source)
        if known_src is None or current_src is None:
            raise NotTrackedError(source)
        known_dst, current_dst = self.file_in_sync(target)
        if current_dst is not None and not overwrite:
            raise NotTrackedError(target, "already exists; pass overwrite=True to replace it")
        self._refuse_shadowing(target, moving=source)
        content = current_src.content
        if content is None:
            content = self.rebuilder.content_at(source, self.latest)
        moved = planned_file(target, content, known_src.mode)
        drifts = [Drift(source, known_src, None), Drift(target, known_dst, moved)]
        writes = [
            PlannedWrite(
                target, _hash(known_dst), _mode(known_dst), moved.hash, moved.mode, content
            ),
            PlannedWrite(source, known_src.hash, known_src.mode, None, None, None),
        ]
        return self.apply("move", drifts, writes, header, renames={target: source})

    def apply(
        self,
        op: str,
        drifts: Sequence[Drift],
        writes: Sequence[PlannedWrite],
        header: Header,
        renames: dict[str, str] | None = None,
    ) -> Snapshot:
        """Write ``writes`` into the workspace under the journal and record ``drifts``.

        Either every file is written and the snapshot committed, or every file touched
        is put back and the error raised. Call while holding :meth:`writing`.
        """
        self.check_tip()
        prepared = self.prepare(list(drifts), renames)
        writes = [self._parking(write) for write in writes]

        def commit() -> tuple[SnapshotRow, list[ChangeRow]]:
            return append_snapshot(self.store, header, prepared, trusted=self.trusted)

        row, changes = apply_writes(self.root, self.store, op, writes, commit, self.known_content)
        self._remember(drifts)
        snapshot = to_snapshot(row, changes)
        self._said(snapshot.skipped)
        return snapshot

    def check_tip(self) -> None:
        """Refuse (``StoreCorruptError``) to build on a latest snapshot that was edited.

        :func:`append_snapshot` checks again inside its transaction; checking first
        spares writing files into the workspace only to put them back.
        """
        with self.store.read():
            latest = self.store.snapshots.latest_number()
            parent = self.store.snapshots.get(latest) if latest is not None else None
            if parent is not None:
                check_parent(self.store, parent, self.trusted)

    def _parking(self, write: PlannedWrite) -> PlannedWrite:
        # The journal undoes a write by rebuilding the file's known content from the
        # store. A file tracked by hash only has none there, so replacing or deleting it
        # without a way back would lose it if the write failed or the process died: such
        # a file is moved aside (parked) instead, and moved back on undo.
        if write.before_hash is None or write.park is not None:
            return write
        row = self.rebuilder.version(write.path, self.latest)
        if row is None or row.storage != "hash-only":
            return write
        return replace(write, park=secrets.token_hex(8))

    # -- shared helpers ------------------------------------------------------------------

    def prepare(self, drifts: list[Drift], renames: dict[str, str] | None = None) -> Prepared:
        latest = self.latest

        def base_content(known: StateRow) -> bytes | None:
            cached = self.cache.get(known.hash)
            return cached if cached is not None else self.rebuilder.content_at(known.path, latest)

        return prepare_changes(
            drifts,
            limits=self.limits,
            base_content=base_content,
            base_row=lambda path: self.rebuilder.version(path, latest),
            renames=renames,
        )

    def detect(self, rels: list[str] | None, *, want_content: bool) -> Detection:
        return detect(
            self.root,
            self.store,
            self.rules(),
            rels,
            large_limit=self.limits.large_file_limit,
            want_content=want_content,
            cache=self.tracked,
        )

    def file_in_sync(self, rel: str) -> tuple[StateRow | None, DiskFile | None]:
        """The known state and disk file of one path, refusing an outside change."""
        location = disk_path(self.root, rel)
        known = self.store.state.get([rel]).get(rel)
        try:
            info = os.lstat(location)
        except (FileNotFoundError, NotADirectoryError):
            info = None
        current = None
        if info is not None:
            if os.path.isdir(location) and not os.path.islink(location):
                raise NotTrackedError(rel, "is a directory, not a file")
            current = self._read(location, rel, info)
        on_disk = (current.hash, current.mode) if current else None
        if on_disk != ((known.hash, known.mode) if known else None) and not (
            known is None and self.rules().is_ignored(rel)
        ):
            ensure_in_sync(Detection(drifts=[Drift(rel, known, current)]))
        return known, current

    def _refuse_shadowing(self, rel: str, moving: str | None = None) -> None:
        """Refuse a new file where the known state has a file on its way or files below it.

        A tracked file ``g`` deleted outside snapline leaves room on disk for ``g/h``;
        recording ``g/h`` then would give the history a state holding both, which no disk
        can hold and no rollback can restore. The outside change is what must be
        recorded first, so it is named as one (``StateMismatchError``).
        """
        parts = rel.split("/")
        ancestors = ["/".join(parts[:depth]) for depth in range(1, len(parts))]
        tracked = {*self.store.state.get(ancestors), *self.store.state.under(rel)} - {moving}
        if not tracked:
            return
        with self.store.read():
            ensure_in_sync(self.detect(sorted(tracked), want_content=False))
        # In sync, such a file stands on disk in the way, and the write was refused
        # before getting here; this is only reached if the disk changed meanwhile.
        raise NotTrackedError(rel, f"cannot be written while {min(tracked)} is tracked")

    def known_content(self, rel: str) -> tuple[bytes, int] | None:
        """The content and mode of ``rel``'s known state (``None``: not tracked)."""
        known = self.store.state.get([rel]).get(rel)
        if known is None:
            return None
        cached = self.cache.get(known.hash)
        content = cached if cached is not None else self.rebuilder.content_at(rel, self.latest)
        return content, known.mode

    def save_stat_cache(self, detection: Detection) -> None:
        """Keep what a read-only check learnt, if no writer is busy (never worth waiting)."""
        if not detection.cache_updates and not detection.cache_deletes:
            return
        with (
            contextlib.suppress(filelock.Timeout, SnaplineError),
            self._lock.acquire(timeout=0),
            self.store.write(),
        ):
            self.store.stat_cache.put(detection.cache_updates, detection.cache_deletes)

    def rules(self) -> IgnoreRules:
        # Ignore files can change between calls (an agent edits .gitignore), so rules are
        # loaded per operation, lazily per directory.
        return IgnoreRules(self.root)

    def _read(self, location: Path, rel: str, info: os.stat_result) -> DiskFile:
        disk = read_disk_file(
            location, rel, info, large_limit=self.limits.large_file_limit, want_content=True
        )
        if disk.content is not None:
            self.cache.put(disk.hash, disk.content)
        return disk

    def _remember(self, drifts: Sequence[Drift]) -> None:
        for drift in drifts:
            if drift.disk is not None and drift.disk.content is not None:
                self.cache.put(drift.disk.hash, drift.disk.content)

    def _said(self, skipped: tuple[SkippedPath, ...]) -> None:
        self.last_skipped = skipped
        for item in skipped:
            log.warning("not captured: %s (%s)", item.path, item.reason)


def planned_file(rel: str, data: bytes, mode: int) -> DiskFile:
    """A :class:`DiskFile` for content about to be written (it has no stat yet)."""
    return DiskFile(
        path=rel,
        hash=hash_bytes(data),
        mode=mode,
        size=len(data),
        content=data,
        stat=os.stat_result((0,) * 10),
    )


def _hash(row: StateRow | None) -> str | None:
    return row.hash if row else None


def _mode(row: StateRow | None) -> int | None:
    return row.mode if row else None
