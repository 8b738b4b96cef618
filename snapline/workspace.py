"""The public API: a :class:`Workspace` is a directory tree with its history in ``.snapline/``.

Every mutating call takes the workspace's writer lock, undoes any write a dead process
left half done, and commits through one SQLite transaction (see
``snapshots/recorder.py``). Reading calls take no lock.
"""

from __future__ import annotations

import contextlib
import os
import shlex
import shutil
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

import filelock

from snapline import atomic
from snapline.crashpoints import crash_point
from snapline.errors import SnaplineError
from snapline.paths import STORE_DIR, UnsafeRecordError, relpath_from_user
from snapline.snapshots.build import Limits
from snapline.snapshots.commit import EXTERNAL_TOOL, make_header
from snapline.snapshots.convert import to_snapshot
from snapline.snapshots.detect import sync_problems
from snapline.snapshots.history import SnapshotNotFoundError, modified_files, unified_diff
from snapline.snapshots.model import Problem, Report, SkippedPath, Snapshot
from snapline.snapshots.recorder import LOCK_NAME, GcResult, Recorder, RunResult
from snapline.snapshots.results import ModifiedFile, RevertResult, RollbackResult
from snapline.store import DB_NAME, SqliteStore, Store

if TYPE_CHECKING:
    from snapline.milestones import Milestones

# Only what recording needs is imported here: the CLI runs one operation per process,
# and rollback, revert, validation and milestones are imported where they are used.

__all__ = [
    "AlreadyInitializedError",
    "NotInitializedError",
    "SnapshotNotFoundError",
    "Tracking",
    "UnsafeRootError",
    "Workspace",
]

_INIT_SUFFIX = ".init"
_DEFAULT_TIMEOUT = 30.0

PathArg = str | os.PathLike[str]


class NotInitializedError(SnaplineError):
    """There is no snapline store at (or above) the given root."""

    exit_code = 2

    def __init__(self, root: Path) -> None:
        self.path = str(root)
        super().__init__(f"{root} has no snapline store; run `snapline init` there first")


class AlreadyInitializedError(SnaplineError):
    """``init`` was called on a root that already has a store."""

    exit_code = 2

    def __init__(self, root: Path) -> None:
        self.path = str(root)
        super().__init__(
            f"{root} already has a snapline store in {STORE_DIR}/; open it instead, "
            "or delete that directory to start over"
        )


class UnsafeRootError(SnaplineError):
    """``init`` was pointed at the filesystem root or a home directory."""

    exit_code = 2

    def __init__(self, root: Path, what: str) -> None:
        self.path = str(root)
        super().__init__(
            f"refusing to snapshot {root}: it is {what}; choose a project directory, "
            "or pass force=True (--force) if you really mean it"
        )


@dataclass
class Tracking:
    """What ``ws.track(...)`` yields; ``snapshot`` is set when the block ends."""

    paths: list[str]
    snapshot: Snapshot | None = None


class Workspace:
    """A workspace and its history. Create with :meth:`init`, or :meth:`open` an existing one.

    Use as a context manager, or call :meth:`close`.
    """

    def __init__(self, root: Path, store: Store, timeout: float) -> None:
        self.root = root
        self._store = store
        self._recorder = Recorder(root, store, _limits(store.config()), timeout)
        self._milestones: Milestones | None = None

    # -- opening ------------------------------------------------------------------------

    @classmethod
    def init(
        cls,
        root: PathArg,
        *,
        force: bool = False,
        large_file_limit: int | None = None,
        description: str = "baseline",
        timeout: float = _DEFAULT_TIMEOUT,
        progress: Callable[[int, int], None] | None = None,
    ) -> Workspace:
        """Create ``<root>/.snapline/`` and capture every non-ignored file as snapshot 0.

        Args:
            root: An existing directory.
            force: Allow the filesystem root or the home directory.
            large_file_limit: Bytes above which files are tracked by hash only.
            description: The baseline's description.
            timeout: Seconds to wait for another process holding the store.
            progress: Called as ``progress(done, total)`` while files are captured.

        Raises:
            AlreadyInitializedError: If the root already has a store.
            UnsafeRootError: If the root is ``/`` or the home directory and not forced.
            NotADirectoryError: If the root is not a directory.
        """
        path = Path(os.path.abspath(root))
        if not path.is_dir():
            raise NotADirectoryError(f"{path} is not a directory; create it first")
        _refuse_dangerous_root(path, force)
        store_dir = path / STORE_DIR
        if (store_dir / DB_NAME).exists():
            raise AlreadyInitializedError(path)
        limits = Limits() if large_file_limit is None else Limits(large_file_limit=large_file_limit)
        created_dir = not store_dir.exists()
        store_dir.mkdir(exist_ok=True)
        staging = store_dir / (DB_NAME + _INIT_SUFFIX)
        try:
            with filelock.FileLock(str(store_dir / LOCK_NAME), timeout=timeout):
                _remove_staging(store_dir)
                store = SqliteStore.create(staging, _config(limits))
                try:
                    from snapline.snapshots.baseline import capture_baseline

                    capture_baseline(path, store, limits, description, progress)
                finally:
                    store.close()
                crash_point("baseline-built")
                # The store only appears under its real name once the baseline is in
                # it, so an interrupted init never leaves a store that looks usable;
                # and init only returns once that name is on disk, or a power cut
                # could take the whole store back with it.
                os.replace(staging, store_dir / DB_NAME)
                atomic.sync_directory(store_dir)
        except BaseException:
            with contextlib.suppress(OSError):
                _remove_staging(store_dir)
                if created_dir:
                    shutil.rmtree(store_dir)
            raise
        return cls.open(path, timeout=timeout)

    @classmethod
    def open(cls, root: PathArg, *, timeout: float = _DEFAULT_TIMEOUT) -> Workspace:
        """Open the workspace whose store is at ``<root>/.snapline/``.

        A write that a crashed process left half done is undone first, when no other
        process is writing.

        Raises:
            NotInitializedError: If there is no store.
            StoreCorruptError: If the store cannot be read.
            StoreVersionError: If the store is newer than this snapline.
        """
        path = Path(os.path.abspath(root))
        db = path / STORE_DIR / DB_NAME
        if not db.is_file():
            raise NotInitializedError(path)
        workspace = cls(path, SqliteStore.open(db, busy_timeout=timeout), timeout)
        workspace._recorder.recover_if_idle()
        return workspace

    @classmethod
    def find(cls, start: PathArg = ".", *, timeout: float = _DEFAULT_TIMEOUT) -> Workspace:
        """Open the workspace containing ``start``, looking upwards as git looks for ``.git``.

        Raises:
            NotInitializedError: If no directory from ``start`` upwards has a store.
        """
        here = Path(os.path.abspath(start))
        for candidate in (here, *here.parents):
            if (candidate / STORE_DIR / DB_NAME).is_file():
                return cls.open(candidate, timeout=timeout)
        raise NotInitializedError(here)

    def close(self) -> None:
        """Close the store."""
        self._store.close()

    def __enter__(self) -> Workspace:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- recording ----------------------------------------------------------------------

    def record(
        self,
        paths: Iterable[PathArg] | PathArg | None = None,
        *,
        tool: str = "record",
        description: str = "",
        session: str | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> Snapshot | None:
        """Record whatever changed on disk since the known state.

        This is how the side effects of a shell command are recorded: new, modified and
        deleted files, for the given paths (files or directories) or the whole workspace.

        Returns:
            The new snapshot, or ``None`` when nothing changed. What was not captured
            (unreadable, ignored when named, tracked by hash only) is in the snapshot's
            ``skipped`` and in :attr:`last_skipped`.
        """
        header = make_header(tool, description, session, metadata)
        rels = self._scope(paths)
        with self._recorder.writing():
            return self._recorder.record(rels, header)

    @contextlib.contextmanager
    def track(
        self,
        paths: Iterable[PathArg] | PathArg,
        *,
        tool: str,
        description: str = "",
        session: str | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> Iterator[Tracking]:
        """Wrap an agent tool's edit of ``paths``: check them first, record them after.

        On entry the paths must match their known state: an outside change raises
        :class:`StateMismatchError` before the tool runs. When the block ends normally,
        what changed under the paths is recorded as one snapshot, available as
        ``tracking.snapshot`` (``None`` if nothing changed). When it raises, nothing is
        recorded and the store is left as it was.

        Raises:
            StateMismatchError: If a path was changed outside snapline.
        """
        header = make_header(tool, description, session, metadata)
        rels = self._relpaths(paths)
        self._recorder.ensure_in_sync(rels)
        tracking = Tracking(paths=rels)
        yield tracking
        with self._recorder.writing():
            tracking.snapshot = self._recorder.record(rels, header)

    def write_file(
        self,
        path: PathArg,
        content: str | bytes,
        *,
        executable: bool | None = None,
        tool: str = "write",
        description: str = "",
        session: str | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> Snapshot | None:
        """Write a file and record the change, in one call.

        Args:
            path: Relative to the root (or absolute inside it).
            content: ``str`` is written as UTF-8; ``bytes`` exactly.
            executable: The executable bit; ``None`` keeps the current one.

        Returns:
            The new snapshot, or ``None`` when that content was already there (or the
            path is ignored: then it is written, not recorded, and said in
            :attr:`last_skipped`).

        Raises:
            StateMismatchError: If the file was changed outside snapline.
        """
        header = make_header(tool, description or f"write {path}", session, metadata)
        rel = self._relpath(path)
        data = content.encode("utf-8") if isinstance(content, str) else bytes(content)
        with self._recorder.writing():
            return self._recorder.write(rel, data, executable, header)

    def delete_file(
        self,
        path: PathArg,
        *,
        tool: str = "delete",
        description: str = "",
        session: str | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> Snapshot:
        """Delete a tracked file and record the deletion.

        Raises:
            NotTrackedError: If the path is not a tracked file.
            StateMismatchError: If the file was changed outside snapline.
        """
        header = make_header(tool, description or f"delete {path}", session, metadata)
        rel = self._relpath(path)
        with self._recorder.writing():
            return self._recorder.delete(rel, header)

    def move_file(
        self,
        src: PathArg,
        dst: PathArg,
        *,
        overwrite: bool = False,
        tool: str = "move",
        description: str = "",
        session: str | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> Snapshot:
        """Move a tracked file and record it as a rename.

        Raises:
            NotTrackedError: If ``src`` is not tracked, or ``dst`` exists and
                ``overwrite`` is false.
            StateMismatchError: If either file was changed outside snapline.
        """
        header = make_header(tool, description or f"move {src} -> {dst}", session, metadata)
        source, target = self._relpath(src), self._relpath(dst)
        with self._recorder.writing():
            return self._recorder.move(source, target, overwrite, header)

    def run(
        self,
        argv: list[str],
        *,
        tool: str = "shell",
        description: str | None = None,
        cwd: PathArg | None = None,
        session: str | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> RunResult:
        """Run a shell command and record its side effects as one snapshot.

        Refuses to start when the workspace has drifted from its known state (the
        snapshot must hold exactly what the command did). Holds the writer lock while
        the command runs, so other writers wait. If the process dies mid-command, the
        next open records what the command did.

        Args:
            argv: The command and its arguments (no shell is involved).
            description: Defaults to the command line.
            cwd: Working directory (default: the root).

        Returns:
            The command's exit code and the snapshot (``None`` if it changed nothing).

        Raises:
            StateMismatchError: If the workspace has drifted.
            CommandError: If the command cannot be started.
        """
        text = description if description is not None else shlex.join(argv)
        header = make_header(tool, text, session, metadata)
        with self._recorder.writing():
            return self._recorder.run(argv, header, None if cwd is None else Path(cwd))

    def gc(self) -> GcResult:
        """Remove stored content that no snapshot refers to, and compact the store."""
        with self._recorder.writing():
            return self._recorder.gc()

    # -- rollback, revert and resync ------------------------------------------------------

    def resync(
        self,
        *,
        description: str = "",
        paths: Iterable[PathArg] | PathArg | None = None,
        session: str | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> Snapshot | None:
        """Adopt changes made outside snapline as an explicit snapshot (tool ``external``).

        This is the way out of a :class:`StateMismatchError`: the outside change becomes
        part of the history, so continuity holds and it can be rolled back like any other.

        Args:
            description: Why the workspace changed (for example "ran the formatter").
            paths: Only these files or directories (default: the whole workspace).

        Returns:
            The new snapshot, or ``None`` when the disk already matched the history.
        """
        header = make_header(EXTERNAL_TOOL, description or "outside changes", session, metadata)
        rels = self._scope(paths)
        with self._recorder.writing():
            return self._recorder.record(rels, header)

    def rollback(
        self,
        to: int,
        paths: Iterable[PathArg] | PathArg | None = None,
        *,
        dry_run: bool = False,
        force: bool = False,
        tool: str = "rollback",
        description: str = "",
        session: str | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> RollbackResult:
        """Make every tracked file (or only ``paths``) what it was after snapshot ``to``.

        Modified files are rewritten, files added since are deleted and files deleted
        since are recreated, with their mode; files already right are not touched.
        Untracked and ignored files are left alone, and nothing under ``.git/`` is ever
        written. The rollback is recorded as a new snapshot, so it can be rolled back in
        turn. Writes are journaled: on failure every file is put back.

        Args:
            to: The snapshot to go back to (0 is the baseline).
            paths: Only these files or directories (default: the whole workspace).
            dry_run: Only report what would change, and the conflicts; write nothing.
            force: Overwrite files changed outside snapline: their content is first
                recorded as a snapshot of its own (tool ``external``), so it is not lost.

        Returns:
            A :class:`RollbackResult`: the paths restored, deleted and recreated, any
            conflicts, and the new snapshot (``None`` if nothing changed or dry run).

        Raises:
            SnapshotNotFoundError: If there is no snapshot ``to``.
            RollbackConflictError: If files were changed outside snapline (and ``force``
                is false) or a path is in the way; nothing is written.
            OSError: If writing fails; the workspace and the store are left as they were.
        """
        header = make_header(tool, description or f"roll back to snapshot {to}", session, metadata)
        rels = self._scope(paths)
        from snapline.snapshots.rollback import rollback

        return rollback(self._recorder, to, rels, dry_run=dry_run, force=force, header=header)

    def revert(
        self,
        number: int,
        *,
        dry_run: bool = False,
        tool: str = "revert",
        description: str = "",
        session: str | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> RevertResult:
        """Undo the changes of snapshot ``number`` only, keeping later ones (like ``git revert``).

        Text files edited since get the snapshot's change patched out of today's content;
        a file the snapshot added is deleted if unchanged since, one it deleted is
        recreated if the path is free, and a rename is moved back. Recorded as a new
        snapshot.

        Args:
            number: The snapshot to undo (1 or later).
            dry_run: Only report what would change, and the conflicts; write nothing.

        Returns:
            A :class:`RevertResult`: the paths restored, deleted, recreated and moved
            back, conflicts (dry run only), and the new snapshot.

        Raises:
            SnapshotNotFoundError: If there is no snapshot ``number``.
            BaselineRevertError: If ``number`` is 0.
            RevertConflictError: If some change cannot be undone cleanly (per file:
                hunks that no longer apply, binary files changed since, outside changes,
                paths in the way); nothing is written.
        """
        header = make_header(tool, description or f"revert snapshot {number}", session, metadata)
        from snapline.snapshots.revert import revert

        return revert(self._recorder, number, dry_run=dry_run, header=header)

    @property
    def last_skipped(self) -> tuple[SkippedPath, ...]:
        """What the last recording call did not capture, also when it recorded nothing."""
        return self._recorder.last_skipped

    # -- reading ------------------------------------------------------------------------

    @property
    def latest(self) -> int:
        """The number of the latest snapshot (0: only the baseline)."""
        return self._recorder.latest

    @property
    def limits(self) -> Limits:
        """This store's content settings."""
        return self._recorder.limits

    @property
    def milestones(self) -> Milestones:
        """The workspace's milestones: named, continuous ranges of snapshots.

        ``ws.milestones.create("parser done")`` closes everything recorded since the last
        milestone; see :class:`~snapline.milestones.Milestones`.
        """
        if self._milestones is None:
            from snapline.milestones import Milestones

            self._milestones = Milestones(self._recorder)
        return self._milestones

    def snapshots(
        self,
        *,
        file: PathArg | None = None,
        tool: str | None = None,
        session: str | None = None,
        since: datetime | int | None = None,
        until: datetime | int | None = None,
        limit: int | None = None,
        newest_first: bool = False,
    ) -> Iterator[Snapshot]:
        """Iterate snapshots in number order, without loading their diffs.

        Args:
            file: Only snapshots that touched this path.
            tool: Only snapshots recorded by this tool.
            session: Only snapshots of this session.
            since: A snapshot number or a time; only snapshots from it on.
            until: A snapshot number or a time; only snapshots up to it.
            limit: At most this many.
            newest_first: Newest first instead.
        """
        rows = self._store.snapshots.select(
            first=since if isinstance(since, int) else None,
            last=until if isinstance(until, int) else None,
            tool=tool,
            session=session,
            path=None if file is None else self._relpath(file),
            since=_stored_time(since) if isinstance(since, datetime) else None,
            until=_stored_time(until) if isinstance(until, datetime) else None,
            descending=newest_first,
            limit=limit,
        )
        for row in rows:
            yield to_snapshot(row, self._store.changes.of(row.number, deltas=False))

    def snapshot(self, number: int) -> Snapshot:
        """One snapshot with its diffs.

        Raises:
            SnapshotNotFoundError: If there is no such snapshot.
        """
        with self._store.read():
            row = self._store.snapshots.get(number)
            if row is None:
                raise SnapshotNotFoundError(number, self.latest)
            return to_snapshot(row, self._store.changes.of(number, deltas=True))

    def content_at(self, path: PathArg, number: int | None = None) -> bytes:
        """The bytes of ``path`` after snapshot ``number`` (default: the latest).

        Rebuilt from the store alone and checked against the recorded hash.

        Raises:
            NotInSnapshotError: If the file did not exist then.
            ContentUnavailableError: If that version was tracked by hash only.
            SnapshotNotFoundError: If there is no snapshot ``number``.
        """
        rel = self._relpath(path)
        with self._store.read():
            latest = self.latest
            at = latest if number is None else number
            if not 0 <= at <= latest:
                raise SnapshotNotFoundError(at, latest)
            return self._recorder.rebuilder.content_at(rel, at)

    def modified_files(self, from_n: int = 0, to_n: int | None = None) -> list[ModifiedFile]:
        """Each path changed between snapshots ``from_n`` and ``to_n`` (default: latest).

        Statuses are relative to ``from_n``: ``added``, ``modified``, ``deleted``, or
        ``renamed`` (with ``old_path``); each lists the snapshots that touched the file.
        A file added and deleted again inside the range is not listed.

        Raises:
            SnapshotNotFoundError: If either number does not exist.
            SnapshotRangeError: If ``from_n`` comes after ``to_n``.
        """
        return modified_files(self._store, from_n, to_n)

    def diff(
        self,
        from_n: int,
        to_n: int | None = None,
        paths: Iterable[PathArg] | PathArg | None = None,
    ) -> str:
        """A git-style unified diff from snapshot ``from_n`` to ``to_n`` (default: latest).

        ``git apply`` accepts it on a tree in the state after ``from_n``: it has
        ``diff --git`` headers, new/deleted file and mode-change lines, renames, full
        ``index`` lines, and ``\\ No newline at end of file``. Binary files are named,
        not dumped.

        Raises:
            SnapshotNotFoundError: If either number does not exist.
            SnapshotRangeError: If ``from_n`` comes after ``to_n``.
        """
        rels = self._scope(paths)
        return unified_diff(self._recorder, from_n, to_n, rels)

    def tracked(self) -> dict[str, str]:
        """The known state: every tracked path with its content hash, sorted by path."""
        return {path: row.hash for path, row in sorted(self._store.state.get().items())}

    def validate(self, *, deep: bool = False) -> Report:
        """Check the history for gaps, broken links, chain mismatches and missing content.

        Args:
            deep: Also rebuild every recorded version and check every stored blob.
        """
        from snapline.milestones import validate_milestones
        from snapline.snapshots.validate import validate_history

        with self._store.read():
            problems = validate_history(self._store, deep=deep)
            problems += validate_milestones(self._store)
        return Report(problems=tuple(problems))

    def verify(self, *, deep: bool = False) -> Report:
        """Everything CI holds a workspace to: :meth:`validate` plus :meth:`check_sync`."""
        history = self.validate(deep=deep)
        try:
            sync = self.check_sync()
        except UnsafeRecordError as error:
            # The disk cannot be compared with a known state that names a path outside
            # the root; say so once, next to what validation found.
            if any(p.kind == "unsafe-path" and p.path == error.path for p in history.problems):
                return history
            problem = Problem(
                kind="unsafe-path", path=error.path, severity="corrupt", message=str(error)
            )
            return Report(problems=(*history.problems, problem))
        return Report(problems=history.problems + sync.problems)

    def check_sync(self, paths: Iterable[PathArg] | PathArg | None = None) -> Report:
        """Report files whose disk content differs from the known state.

        Problems have kind ``modified``, ``deleted``, ``untracked`` (new and not
        ignored) or ``unreadable``, each with its ``path``.
        """
        rels = self._scope(paths)
        with self._store.read():
            detection = self._recorder.detect(rels, want_content=False)
        self._recorder.save_stat_cache(detection)
        return Report(problems=tuple(sync_problems(detection)))

    # -- internals ----------------------------------------------------------------------

    def _relpath(self, path: PathArg) -> str:
        return relpath_from_user(self.root, path)

    def _scope(self, paths: Iterable[PathArg] | PathArg | None) -> list[str] | None:
        """Paths to limit an operation to; ``None`` (everything) when one is the root."""
        if paths is None:
            return None
        items = [paths] if isinstance(paths, (str, os.PathLike)) else list(paths)
        if any(Path(os.path.abspath(self.root / p)) == self.root for p in items):
            return None
        return self._relpaths(items)

    def _relpaths(self, paths: Iterable[PathArg] | PathArg) -> list[str]:
        if isinstance(paths, (str, os.PathLike)):
            paths = [paths]
        return sorted({self._relpath(p) for p in paths})


def _stored_time(moment: datetime) -> str:
    # Snapshot times are stored as UTC ISO strings with microseconds and compared as
    # text, so a bound must be written the same way (a naive datetime is local time).
    return moment.astimezone(timezone.utc).isoformat(timespec="microseconds")


def _limits(config: dict[str, Any]) -> Limits:
    defaults = Limits()
    return Limits(
        large_file_limit=int(config.get("large_file_limit", defaults.large_file_limit)),
        diff_limit=int(config.get("diff_limit", defaults.diff_limit)),
        max_chain=int(config.get("max_chain", defaults.max_chain)),
        diff_deadline=float(config.get("diff_deadline", defaults.diff_deadline)),
    )


def _config(limits: Limits) -> dict[str, Any]:
    return {
        "large_file_limit": limits.large_file_limit,
        "diff_limit": limits.diff_limit,
        "max_chain": limits.max_chain,
        "diff_deadline": limits.diff_deadline,
    }


def _remove_staging(store_dir: Path) -> None:
    for leftover in store_dir.glob(DB_NAME + _INIT_SUFFIX + "*"):
        leftover.unlink()


def _refuse_dangerous_root(path: Path, force: bool) -> None:
    if force:
        return
    real = Path(os.path.realpath(path))
    if real == Path(real.anchor):
        raise UnsafeRootError(path, "the filesystem root")
    homes = set()
    if os.environ.get("HOME"):
        homes.add(Path(os.path.realpath(os.environ["HOME"])))
    with contextlib.suppress(RuntimeError, KeyError):
        homes.add(Path(os.path.realpath(Path.home())))
    if real in homes:
        raise UnsafeRootError(path, "your home directory")
