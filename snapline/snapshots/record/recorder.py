"""The recording engine behind a workspace: the writer lock, recovery, detection and apply.

A :class:`Recorder` owns what every mutating operation shares: the file lock that
serialises writers (released by the OS if a process dies), recovery of a write a dead
process left half done, the content cache that spares rebuilding diff bases, and the
two ways a snapshot is made: :meth:`Recorder.record` adopts what is already on disk;
:meth:`Recorder.apply` runs a plan (:mod:`~snapline.snapshots.record.plan`) through the
journal and records it. Edits, rollback and revert build plans; none of them writes
into the workspace any other way.
"""

from __future__ import annotations

import contextlib
import functools
import os
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from snapline.crashpoints import crash_point
from snapline.errors import SnaplineError
from snapline.paths import disk_path
from snapline.scanning import DiskFile, IgnoreRules, Skipped, read_disk_file
from snapline.snapshots.info_fields import InfoFields, PlainInfo, checked_fields
from snapline.snapshots.read.lines import DivergedHistoryError, unmerged_lines
from snapline.snapshots.read.reconstruct import ContentCache, ContentUnavailableError, Reconstructor
from snapline.snapshots.record.baselines import keep_baselines
from snapline.snapshots.record.build import Limits, Prepared, prepare_changes
from snapline.snapshots.record.commit import append_snapshot, check_parent
from snapline.snapshots.record.detect import Detection, Drift, detect, ensure_in_sync
from snapline.snapshots.record.mismatch import refuse_merged as refuse
from snapline.snapshots.record.parking import parking
from snapline.snapshots.record.presence import StorePresence
from snapline.snapshots.record.recorded import Recorded, snapshot_of
from snapline.snapshots.record.tracked_cache import TrackedCache
from snapline.snapshots.record.writer_lock import LOCK_NAME, held, writer_lock
from snapline.store import ChangeRow, SnapshotRow, StateRow
from snapline.store.lockfile import LockTimeout

if TYPE_CHECKING:
    import logging

    from snapline.snapshots.record.plan import Step
    from snapline.snapshots.snapshot import Snapshot
    from snapline.store import Store

__all__ = ["LOCK_NAME", "Recorder"]


def _log() -> logging.Logger:
    import logging  # here: most recording processes have nothing to log

    return logging.getLogger("snapline")


class Recorder:
    """Records snapshots for one open store. Internal: the public API is ``Workspace``.

    Args:
        root: The workspace root.
        store: The open store.
        reconstructor: Rebuilds recorded versions (diff bases, and undoing a write).
        limits: The store's content settings.
        timeout: Seconds to wait for the writer lock.
        refusal: Raised by every write first, for a history only read (0.2's in-tree ledger).
    """

    def __init__(
        self,
        root: Path,
        store: Store,
        reconstructor: Reconstructor,
        limits: Limits,
        timeout: float,
        refusal: SnaplineError | None = None,
    ) -> None:
        self.root = root
        self.store = store
        self.reconstructor = reconstructor
        self.cache: ContentCache = reconstructor.cache
        self.limits = limits
        self.timeout = timeout
        self.last_skipped: tuple[Skipped, ...] = ()
        # Chain hashes of snapshots checked before building on them (commit.check_parent).
        self.trusted: set[str] = set()
        self.tracked = TrackedCache()
        self.refusal = refusal
        self._lock = writer_lock(root, timeout)
        self._presence = StorePresence(store.path)

    @property
    def latest(self) -> int:
        """The number of the latest snapshot (0: only the baseline)."""
        number = self.store.snapshots.latest_number()
        return 0 if number is None else number

    # -- locking and recovery ----------------------------------------------------------

    @contextlib.contextmanager
    def writing(self, *, joining: bool = False) -> Iterator[None]:
        """Hold the writer lock, after catching up with the ledger and settling dead writes.

        The index first takes in what the ledger gained (a pull, a merge), then any
        write a dead process left behind is undone. Re-entrant: a caller already holding
        it may enter again.

        Args:
            joining: Allow a history with several lines (``merge`` joins them); every
                other writer refuses one.

        Raises:
            StoreBusyError: If another process holds the lock past the timeout.
            StoreCorruptError: If the lock file cannot be used.
            DivergedHistoryError: If the history has several lines and not ``joining``.
            SnaplineError: The recorder's ``refusal``, before the lock is taken.
        """
        if self.refusal is not None:
            raise self.refusal
        with self._held(joining):
            yield

    @contextlib.contextmanager
    def _held(self, joining: bool) -> Iterator[None]:
        with held(self._lock, self.store.path, self.timeout):
            if self._lock.lock_counter == 1:
                self._presence.check()  # gone (.snapline/ with its repo): no refs to read
                self.store.refresh()
                if self.store.journal.entries():
                    self._recover()
                if not joining:
                    lines = unmerged_lines(self.store)
                    head = self.store.snapshots.get(self.latest)
                    if lines and head is not None:
                        raise DivergedHistoryError(lines, head)
            yield

    def catch_up(self) -> None:
        """Bring the index up to its history when it lags (a pull, a clone); locks only then."""
        if self.store.stale():
            with self._held(True):  # a cache: also where writes are refused
                pass

    def recover_if_idle(self) -> None:
        """Undo a dead process's half-done write, unless a live writer holds the lock.

        An obstacle that blocks recovery is only logged here, so that reading commands
        keep working; :meth:`writing` raises it (``RecoveryBlockedError``).
        """
        if self.store.journal.entries():
            from snapline.snapshots.record.journal import RecoveryBlockedError

            with contextlib.suppress(LockTimeout), self._lock.acquire(timeout=0):
                try:
                    self._recover()
                except RecoveryBlockedError as error:
                    _log().warning("%s", error)

    def _recover(self) -> None:
        from snapline.snapshots.record.journal import recover

        for note in recover(self.root, self.store, self.known_content, self._finish_run):
            _log().warning("recovery: %s", note)

    def _finish_run(self, payload: dict[str, str]) -> None:
        # A shell command cannot be undone: what it did is recorded instead.
        fields = {
            "tool": payload.get("tool", "shell"),
            "description": payload.get("description", "") + " (recorded after an interruption)",
            "metadata": {"recovered": True},
        }
        self.record(None, PlainInfo(**checked_fields(fields)))

    # -- recording what is on disk -----------------------------------------------------

    def record(
        self,
        paths: list[str] | None,
        info: InfoFields,
        *,
        merges: Sequence[str] | None = None,
        refuse_merged: bool = False,
    ) -> Recorded:
        """Record what differs from the known state under ``paths`` (all when ``None``).

        Call while holding :meth:`writing`.

        Args:
            paths: Checked relative paths (files or directories), or ``None``.
            info: What the caller says about the snapshot.
            merges: A merge's heads of the lines it joins (none: it joins only milestones);
                a merge is recorded even when nothing differs.
            refuse_merged: Raise ``StateMismatchError``, nothing written, when a path is
                another line's recorded work that git merged in (``record``, ``resync``).

        Returns:
            The rows committed (none when nothing differs); ``.snapshot()`` is the model.
        """
        with self.store.write():
            detection = self.detect(paths, want_content=True)
            if refuse_merged and merges is None:
                refuse(detection.drifts, self.root, self.store)
            self.store.stat_cache.put(detection.cache_updates, detection.cache_deletes)
            skipped = detection.skipped
            if not detection.drifts and merges is None:
                self.said(tuple(skipped))
                return Recorded(None, [], self.last_skipped, self.store.path)
            prepared = self.prepare(detection.drifts)
            row, changes = append_snapshot(
                self.store, info, prepared, skipped, trusted=self.trusted, merges=merges or ()
            )
            self.check_store_present()
            crash_point("record-prepared")
        crash_point("snapshot-committed")
        self._remember(detection.drifts)
        self.said((*skipped, *prepared.skipped))  # in the order the row keeps them
        return Recorded(row, changes, self.last_skipped, self.store.path)

    def ensure_in_sync(self, paths: list[str]) -> None:
        """Refuse (``StateMismatchError``) when any of ``paths`` was changed outside snapline.

        The current content of the files is kept as the diff base for the recording
        that follows, so it need not be rebuilt from the store.
        """
        with self.store.read():
            detection = self.detect(paths, want_content=False)
        ensure_in_sync(detection, self.root, self.store)
        for rel in paths:
            location = disk_path(self.root, rel)
            with contextlib.suppress(OSError, SnaplineError):
                info = os.lstat(location)
                if not os.path.isdir(location):
                    self.read_file(location, rel, info)

    # -- writing planned content -------------------------------------------------------

    def apply(
        self,
        op: str,
        steps: Sequence[Step],
        info: InfoFields,
        renames: dict[str, str] | None = None,
    ) -> Snapshot:
        """Write ``steps`` into the workspace, in order, under the journal; record them.

        Either every file is written and the snapshot committed, or every file touched
        is put back and the error raised. Call while holding :meth:`writing`.

        Args:
            op: A name for the journal (``write``, ``rollback``...).
            steps: The plan.
            info: What the caller says about the snapshot.
            renames: New path -> old path, for changes to record as renames.

        Returns:
            The new snapshot.
        """
        from snapline.snapshots.record.journal import apply_writes  # not every process writes
        from snapline.snapshots.record.plan import to_writes

        self.check_tip()
        known = self.store.state.get({step.path for step in steps})
        drifts, writes = to_writes(steps, known)
        # Each replaced file's known version, looked up once: parking and the deltas both
        # want it (measured, row R5: twice 100 lookups, and the latest number each time).
        latest = self.latest
        found = self.reconstructor.versions(known, latest)
        version = functools.cache(lambda p: found.get(p) or self.reconstructor.version(p, latest))
        prepared = self.prepare(drifts, renames, version)
        writes = [parking(write, self.reconstructor, version) for write in writes]

        def commit() -> tuple[SnapshotRow, list[ChangeRow]]:
            appended = append_snapshot(self.store, info, prepared, trusted=self.trusted)
            self.check_store_present()
            return appended

        row, changes = apply_writes(self.root, self.store, op, writes, commit, self.known_content)
        self._remember(drifts)
        self.said(tuple(prepared.skipped))
        return snapshot_of(row, changes, self.store.path)

    def check_store_present(self) -> None:
        """Refuse (``StoreVanishedError``) to commit into a store deleted or replaced since opened.

        Call inside the write transaction, so raising rolls the snapshot back.
        """
        self._presence.check()

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

    # -- shared helpers ------------------------------------------------------------------

    def prepare(
        self,
        drifts: list[Drift],
        renames: dict[str, str] | None = None,
        version: Callable[[str], ChangeRow | None] | None = None,
    ) -> Prepared:
        """Build the change rows and blobs that record ``drifts`` on top of the latest.

        ``version`` finds a path's known version where the caller keeps them.
        """
        latest = self.latest
        reconstructor = self.reconstructor

        def base_content(known: StateRow) -> bytes | None:
            if (cached := self.cache.get(known.hash)) is not None:
                return cached
            try:
                return reconstructor.content_at(known.path, latest)
            except ContentUnavailableError:
                return None  # no diff base here: the new version is stored in full

        prepared = prepare_changes(
            drifts,
            limits=self.limits,
            base_content=base_content,
            base_row=version or (lambda path: reconstructor.version(path, latest)),
            renames=renames,
            stored=self.store.blobs.has,
        )
        return keep_baselines(prepared, latest, self.store, reconstructor)

    def detect(self, paths: list[str] | None, *, want_content: bool) -> Detection:
        """Compare the disk under ``paths`` (everything when ``None``) with the known state."""
        return detect(
            self.root,
            self.store,
            self.rules(),
            paths,
            large_limit=self.limits.large_file_limit,
            want_content=want_content,
            cache=self.tracked,
        )

    def compare(self, paths: list[str] | None) -> Detection:
        """What differs under ``paths`` (all: ``None``) in one read view; the stat cache kept."""
        with self.store.read():
            detection = self.detect(paths, want_content=False)
        self.save_stat_cache(detection)
        return detection

    def known_content(self, rel: str) -> tuple[bytes, int] | None:
        """The content and mode of ``rel``'s known state (``None``: not tracked)."""
        known = self.store.state.get([rel]).get(rel)
        if known is None:
            return None
        cached = self.cache.get(known.hash)
        if cached is None:
            cached = self.reconstructor.content_at(rel, self.latest)
        return cached, known.mode

    def save_stat_cache(self, detection: Detection) -> None:
        """Keep what a read-only check learnt if it can: never worth waiting or failing for."""
        if not detection.cache_updates and not detection.cache_deletes:
            return
        with (
            contextlib.suppress(LockTimeout, SnaplineError, OSError),
            self._lock.acquire(timeout=0),
            self.store.write(),
        ):
            self.store.stat_cache.put(detection.cache_updates, detection.cache_deletes)

    def rules(self) -> IgnoreRules:
        """The ignore rules as they are on disk now."""
        # Ignore files can change between calls (an agent edits .gitignore), so rules are
        # loaded per operation, lazily per directory.
        return IgnoreRules(self.root)

    def read_file(self, location: Path, rel: str, info: os.stat_result) -> DiskFile:
        """Read one file on disk, keeping its content as a diff base for what follows."""
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

    def said(self, skipped: tuple[Skipped, ...]) -> None:
        """Keep what the last recording call did not capture, and log it."""
        self.last_skipped = skipped
        for item in skipped:
            _log().warning("not captured: %s (%s)", item.path, item.reason)
