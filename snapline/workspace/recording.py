"""Recording: the workspace methods that make snapshots from edits, commands and the disk."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Unpack

from snapline.paths import UnknownPathError, check_writable
from snapline.snapshots.info_fields import EXTERNAL_TOOL, Who, info_of
from snapline.workspace.base import PathArg, WorkspaceBase
from snapline.workspace.rows import record_rows

if TYPE_CHECKING:
    from snapline.snapshots.record.command import RunResult
    from snapline.snapshots.record.gc import GcResult
    from snapline.snapshots.snapshot import SkippedPath, Snapshot

__all__ = ["Recording", "Tracking", "UnknownPathError"]


class Tracking:
    """What ``ws.track(...)`` yields; ``snapshot`` is set when the block ends.

    Attributes:
        paths: The paths the block tracks.
        snapshot: The snapshot recorded when the block ended, if any.
    """

    __slots__ = ("paths", "snapshot")

    def __init__(self, paths: list[str], snapshot: Snapshot | None = None) -> None:
        self.paths = paths
        self.snapshot = snapshot

    def __repr__(self) -> str:
        return f"Tracking(paths={self.paths!r}, snapshot={self.snapshot!r})"


class Recording(WorkspaceBase):
    """Recording methods of :class:`~snapline.workspace.Workspace`.

    Every method that records takes who made the change and why as keyword arguments
    (:class:`~snapline.snapshots.info_fields.Who`: ``tool``, ``description``, ``session``
    and ``metadata``, or one :class:`~snapline.SnapshotInfo` as ``info=`` in their place),
    turned into one info by :func:`~snapline.snapshots.info_fields.info_of`.
    """

    def record(
        self,
        paths: Iterable[PathArg] | PathArg | None = None,
        **who: Unpack[Who],
    ) -> Snapshot | None:
        """Record whatever changed on disk since the known state.

        This is how the side effects of a shell command are recorded: new, modified and
        deleted files, for the given paths (files or directories) or the whole workspace.

        Args:
            paths: Files or directories (default: the whole workspace).
            **who: Who made the change and why (tool, default ``record``; description;
                session; metadata; or them all as ``info``).

        Returns:
            The new snapshot, or ``None`` when nothing changed. What was not captured
            (unreadable, ignored when named, tracked by hash only) is in the snapshot's
            ``skipped`` and in :attr:`last_skipped`.

        Raises:
            UnknownPathError: If a path given is neither on disk nor tracked.
            StateMismatchError: If, on git's refs, a path to record is work recorded
                elsewhere, nothing written: another line's that git merged in (its
                ``unmerged``: ``snapline merge``), or pulled commits' whose history is
                not fetched yet (its ``unfetched``: ``snapline fetch REMOTE`` first).
        """
        return record_rows(self, paths, info_of(who, "record")).snapshot()

    def merge(
        self,
        **who: Unpack[Who],
    ) -> Snapshot | None:
        """Join the lines of history that a git merge of two recording branches left.

        Records a merge snapshot on the main line whose result is the workspace as it
        is (the merged tree) and which names the heads of the lines it joins; their
        snapshots stay in the history as they were recorded. Milestones closed on the
        other branches are joined too: the merge names their files, and one new
        milestone, numbered after the main line's last, closes the merge with their
        titles (docs/format.md, "Milestones across lines").

        Args:
            **who: Who made the change and why (tool, default ``merge``; description,
                default one naming the lines; session; metadata; or them all as ``info``).

        Returns:
            The merge snapshot, or ``None`` when there was nothing to join.
        """
        from snapline.milestones.join import merge_with_milestones

        # Said by nobody: the merge describes itself (the lines it joins).
        given = any(value for key, value in who.items() if key != "tool")
        info = info_of(who, "merge") if given or who.get("tool", "merge") != "merge" else None
        return merge_with_milestones(self._store, self._recorder, info)

    def _refuse_unknown(self, rels: list[str] | None) -> None:
        # Under the writer lock: another writer cannot track or untrack a path meanwhile.
        for rel in rels or ():
            try:
                os.lstat(os.path.join(self.root, rel))
                continue
            except (FileNotFoundError, NotADirectoryError):
                pass
            except OSError:
                continue  # there, but out of reach: detection notes it
            with self._store.read():
                if self._store.state.get([rel]) or self._store.state.under(rel):
                    continue
            raise UnknownPathError(rel)

    @contextlib.contextmanager
    def track(
        self,
        paths: Iterable[PathArg] | PathArg,
        **who: Unpack[Who],
    ) -> Iterator[Tracking]:
        """Wrap an agent tool's edit of ``paths``: check them first, record them after.

        On entry the paths must match their known state: an outside change raises
        :class:`StateMismatchError` before the tool runs. When the block ends normally,
        what changed under the paths is recorded as one snapshot, available as
        ``tracking.snapshot`` (``None`` if nothing changed). When it raises, nothing is
        recorded and the store is left as it was.

        Args:
            paths: The files the tool edits.
            **who: Who made the change and why (tool, description, session, metadata,
                or them all as ``info``); a tool must be named.

        Raises:
            StateMismatchError: If a path was changed outside snapline.
            ProtectedPathError: If a path is inside ``.git/`` or ``.snapline/``.
        """
        info = info_of(who, "")
        items = [paths] if isinstance(paths, (str, os.PathLike)) else list(paths)
        rels = sorted({self._writable(p) for p in items})
        self._recorder.ensure_in_sync(rels)
        tracking = Tracking(paths=rels)
        yield tracking
        with self._recorder.writing():
            tracking.snapshot = self._recorder.record(rels, info).snapshot()

    def write_file(
        self,
        path: PathArg,
        content: str | bytes,
        *,
        executable: bool | None = None,
        **who: Unpack[Who],
    ) -> Snapshot | None:
        """Write a file and record the change, in one call.

        Args:
            path: Relative to the root (or absolute inside it).
            content: ``str`` is written as UTF-8; ``bytes`` exactly.
            executable: The executable bit; ``None`` keeps the current one.
            **who: Who made the change and why (tool, default ``write``; description,
                default ``write PATH``; session; metadata; or them all as ``info``).

        Returns:
            The new snapshot, or ``None`` when that content was already there (or the
            path is ignored: then it is written, not recorded, and said in
            :attr:`last_skipped`).

        Raises:
            StateMismatchError: If the file was changed outside snapline.
            ProtectedPathError: If a path is inside ``.git/`` or ``.snapline/``.
        """
        info = info_of(who, "write", f"write {path}")
        rel = self._writable(path)
        data = content.encode("utf-8") if isinstance(content, str) else bytes(content)
        from snapline.snapshots.record.edits import write_file

        with self._recorder.writing():
            return write_file(self._recorder, rel, data, executable, info)

    def edit_file(
        self,
        path: PathArg,
        old: str | bytes,
        new: str | bytes,
        **who: Unpack[Who],
    ) -> Snapshot | None:
        """Replace the one occurrence of ``old`` in a tracked file by ``new``, and record it.

        The contract agents know from their own edit tools: refused when the file was
        changed outside snapline, or ``old`` is missing or not unique.

        Args:
            path: Relative to the root (or absolute inside it).
            old: The exact text to replace (``str`` as UTF-8).
            new: What replaces it.
            **who: Who made the change and why (tool, default ``edit``; description,
                default ``edit PATH``; session; metadata; or them all as ``info``).

        Returns:
            The new snapshot, or ``None`` when ``old`` equals ``new``.

        Raises:
            StateMismatchError: If the file was changed outside snapline.
            NotTrackedError: If the path is not a tracked file.
            EditMatchError: If ``old`` is not in the file exactly once.
            ProtectedPathError: If a path is inside ``.git/`` or ``.snapline/``.
        """
        info = info_of(who, "edit", f"edit {path}")
        rel = self._writable(path)
        from snapline.snapshots.record.edits import edit_file

        with self._recorder.writing():
            return edit_file(self._recorder, rel, _bytes(old), _bytes(new), info)

    def delete_file(
        self,
        path: PathArg,
        **who: Unpack[Who],
    ) -> Snapshot:
        """Delete a tracked file and record the deletion.

        Args:
            path: Relative to the root (or absolute inside it).
            **who: Who made the change and why (tool, default ``delete``; description,
                default ``delete PATH``; session; metadata; or them all as ``info``).

        Raises:
            NotTrackedError: If the path is not a tracked file.
            StateMismatchError: If the file was changed outside snapline.
            ProtectedPathError: If a path is inside ``.git/`` or ``.snapline/``.
        """
        info = info_of(who, "delete", f"delete {path}")
        rel = self._writable(path)
        from snapline.snapshots.record.edits import delete_file

        with self._recorder.writing():
            return delete_file(self._recorder, rel, info)

    def move_file(
        self,
        src: PathArg,
        dst: PathArg,
        *,
        overwrite: bool = False,
        **who: Unpack[Who],
    ) -> Snapshot:
        """Move a tracked file and record it as a rename.

        Args:
            src: The tracked file.
            dst: Where it goes.
            overwrite: Replace ``dst`` when it exists.
            **who: Who made the change and why (tool, default ``move``; description,
                default ``move SRC -> DST``; session; metadata; or them all as ``info``).

        Raises:
            NotTrackedError: If ``src`` is not tracked, or ``dst`` exists and
                ``overwrite`` is false.
            StateMismatchError: If either file was changed outside snapline.
            ProtectedPathError: If a path is inside ``.git/`` or ``.snapline/``.
        """
        info = info_of(who, "move", f"move {src} -> {dst}")
        source, target = self._writable(src), self._writable(dst)
        from snapline.snapshots.record.edits import move_file

        with self._recorder.writing():
            return move_file(self._recorder, source, target, overwrite, info)

    def run(
        self,
        argv: list[str],
        *,
        cwd: PathArg | None = None,
        **who: Unpack[Who],
    ) -> RunResult:
        """Run a shell command and record its side effects as one snapshot.

        Refuses to start when the workspace has drifted from its known state (the
        snapshot must hold exactly what the command did). Holds the writer lock while
        the command runs, so other writers wait. If the process dies mid-command, the
        next open records what the command did.

        Args:
            argv: The command and its arguments (no shell is involved).
            cwd: Working directory (default: the root).
            **who: Who made the change and why (tool, default ``shell``; description,
                default the command line; session; metadata; or them all as ``info``).

        Returns:
            The command's exit code and the snapshot (``None`` if it changed nothing).

        Raises:
            StateMismatchError: If the workspace has drifted.
            CommandError: If the command cannot be started.
            ProtectedPathError: If ``cwd`` is inside ``.git/`` or ``.snapline/``.
        """
        import shlex  # here: only `run` needs it, and recording processes are many

        if who.get("description") is None:
            who["description"] = shlex.join(argv)  # an empty one given stays empty
        info = info_of(who, "shell")
        if cwd is not None:
            _refuse_protected_cwd(self.root, cwd)
        from snapline.snapshots.record.command import run_command

        with self._recorder.writing():
            return run_command(self._recorder, argv, info, None if cwd is None else Path(cwd))

    def gc(self) -> GcResult:
        """Remove stored content that no snapshot refers to, and compact the store."""
        from snapline.snapshots.record.gc import collect_garbage

        with self._recorder.writing():
            return collect_garbage(self._store)

    def resync(
        self,
        *,
        paths: Iterable[PathArg] | PathArg | None = None,
        **who: Unpack[Who],
    ) -> Snapshot | None:
        """Adopt changes made outside snapline as an explicit snapshot (tool ``external``).

        This is the way out of a :class:`StateMismatchError`: the outside change becomes
        part of the history, so continuity holds and it can be rolled back like any other.

        Args:
            paths: Only these files or directories (default: the whole workspace).
            **who: Why the workspace changed (description, for example "ran the
                formatter"; default ``outside changes``), session, metadata, or them
                all as ``info``; the tool is ``external``.

        Returns:
            The new snapshot, or ``None`` when the disk already matched the history.

        Raises:
            UnknownPathError: If a path given is neither on disk nor tracked.
            StateMismatchError: If, on git's refs, a path is work recorded elsewhere, as
                :meth:`record` refuses it.
        """
        if "tool" in who:
            raise TypeError("resync() records the tool 'external': it takes no tool")
        info = info_of(who, EXTERNAL_TOOL, "outside changes")
        return record_rows(self, paths, info).snapshot()

    @property
    def last_skipped(self) -> tuple[SkippedPath, ...]:
        """What the last recording call did not capture, also when it recorded nothing."""
        from snapline.snapshots.snapshot import SkippedPath

        made = SkippedPath.model_construct  # values snapline made: not validated again
        return tuple(made(path=s.path, reason=s.reason) for s in self._recorder.last_skipped)


def _refuse_protected_cwd(root: Path, cwd: PathArg) -> None:
    # A command started inside .git/ writes there by default (relative paths): the
    # writers' rule applies to where snapline starts it, as to every path it writes.
    location = Path(os.path.normpath(root / cwd))
    with contextlib.suppress(ValueError):
        inside = location.relative_to(root).as_posix()
        if inside != ".":
            check_writable(inside, shown=os.fspath(cwd), action="run a command in")


def _bytes(text: str | bytes) -> bytes:
    return text.encode("utf-8") if isinstance(text, str) else bytes(text)
