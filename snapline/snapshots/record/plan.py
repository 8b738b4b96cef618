"""Planned workspace changes: the one way anything is written into the workspace.

A plan is a list of :class:`Step` (a path, the version it must have now, and the content
and mode it must end with, or ``None`` to delete it), run in the order given. Edits
(write, delete, move), rollback and revert all build one, and
:meth:`Recorder.apply <snapline.snapshots.record.recorder.Recorder.apply>` writes it
under the journal and records it as one snapshot, or puts everything back. Before
anything is written, rollback and revert check their plan against the disk: outside
changes, untracked files or directories in the way, symlinked parents, and paths inside
``.git/`` all become :class:`Conflict` entries.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from snapline.errors import SnaplineError
from snapline.hashing import hash_bytes
from snapline.paths import ProtectedPathError, UnsafePathError, check_relpath, protected_dir
from snapline.scanning import DiskFile
from snapline.scanning.reasons import SkipReason
from snapline.snapshots.check.merged import UNMERGED, merge_advice, unmerged_paths
from snapline.snapshots.read.history import Version
from snapline.snapshots.record.detect import Detection, Drift
from snapline.snapshots.record.journal import PlannedWrite
from snapline.snapshots.results import Conflict
from snapline.store import StateRow, Store

__all__ = [
    "ConflictsError",
    "Step",
    "deletions_first",
    "drift_conflicts",
    "obstacles",
    "planned_file",
    "to_writes",
    "unsafe_conflict",
]

# Skipped for reasons a rollback need not protect (compared by value: the reasons
# arrive as the stored text).
_NOT_CONFLICTS = frozenset(
    reason.value for reason in (SkipReason.IGNORED, SkipReason.NOT_A_FILE, SkipReason.UNREACHABLE)
)


class ConflictsError(SnaplineError):
    """Some files cannot be written safely; nothing was written.

    Attributes:
        conflicts: Every conflicting file, with what is wrong with it.
        paths: The conflicting paths.
        problem: The message without its advice for outside changes (each surface names
            its own options); it names ``snapline merge`` for ``unmerged`` paths.
    """

    exit_code = 1

    def __init__(self, what: str, conflicts: Sequence[Conflict], advice: str = "") -> None:
        self.conflicts = list(conflicts)
        self.paths = [c.path for c in self.conflicts]
        more = f" (and {len(self.conflicts) - 1} more)" if len(self.conflicts) > 1 else ""
        self.problem = f"{what} refused, nothing was written: {self.conflicts[0].message}{more}"
        unmerged = [c.path for c in self.conflicts if c.kind == UNMERGED]
        if unmerged and self.conflicts[0].kind != UNMERGED:
            # Said on every surface, beside its own advice for the outside changes.
            self.problem += f"; {merge_advice(unmerged)}"
        super().__init__(f"{self.problem}; {advice}" if advice else self.problem)


@dataclass(frozen=True)
class Step:
    """One path and what it must become (``content`` ``None``: deleted).

    Attributes:
        path: The workspace-relative path.
        before: Its known version now (``None``: not tracked).
        content: What it must hold afterwards (``None``: it is deleted).
        mode: Its git-style mode afterwards (``None`` when deleted).
    """

    path: str
    before: Version | None
    content: bytes | None
    mode: int | None


def deletions_first(steps: Sequence[Step]) -> list[Step]:
    """``steps`` with deletions first, deepest paths first, then the writes.

    So a file can replace a directory the plan empties, and the reverse.
    """
    return sorted(
        steps, key=lambda s: (s.content is not None, -s.path.count("/") if s.content is None else 0)
    )


def to_writes(
    steps: Sequence[Step], known: dict[str, StateRow]
) -> tuple[list[Drift], list[PlannedWrite]]:
    """What recording and the journal need from a plan, step for step, in order.

    Args:
        steps: The plan.
        known: The known state of the plan's paths, read under the writer lock.

    Returns:
        The drifts to record and the writes to journal.
    """
    drifts = []
    writes = []
    for step in steps:
        before = known.get(step.path)
        before_hash = before.hash if before else None
        before_mode = before.mode if before else None
        if step.content is None:
            drifts.append(Drift(step.path, before, None))
            writes.append(PlannedWrite(step.path, before_hash, before_mode, None, None, None))
            continue
        assert step.mode is not None
        new = planned_file(step.path, step.content, step.mode)
        drifts.append(Drift(step.path, before, new))
        writes.append(
            PlannedWrite(step.path, before_hash, before_mode, new.hash, new.mode, step.content)
        )
    return drifts, writes


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


def drift_conflicts(
    detection: Detection, root: Path, store: Store, relevant: set[str] | None = None
) -> list[Conflict]:
    """The outside changes (and unreadable tracked files) a detection found.

    Args:
        detection: What :meth:`Recorder.detect` found.
        root: The workspace root.
        store: The open store, asked (only on drift) which drifted paths another line
            recorded and git merged in: those are ``unmerged`` conflicts, which no
            forced restore settles (recording them would file that line's work as a
            person's), for ``snapline merge``.
        relevant: Paths whose unreadability matters (``None``: all skipped paths that
            are not merely ignored).

    Raises:
        DamagedLineError: If, asked so, a line turns out damaged or crafted.
    """
    merged = unmerged_paths(root, store, [drift.path for drift in detection.drifts])
    conflicts = []
    for drift in detection.drifts:
        if drift.path in merged:
            kind, message = UNMERGED, merge_advice([drift.path])
        else:
            kind = {"added": "untracked", "deleted": "deleted", "modified": "modified"}[drift.kind]
            # What is wrong only: the way out is an option of the caller's surface
            # (--force on the command line, force=True in Python, "force" in MCP),
            # which the error built from these conflicts names (FORCEABLE kinds).
            message = (
                f"{drift.path} is {kind} on disk compared with the history: a change made "
                "outside snapline and not recorded"
            )
        conflicts.append(
            Conflict(
                path=drift.path,
                kind=kind,
                expected=drift.known.hash if drift.known else None,
                actual=drift.disk.hash if drift.disk else None,
                message=message,
            )
        )
    for skipped in detection.skipped:
        # A FIFO, a socket or a path the OS cannot reach is no outside change to
        # protect: it matters only where a write would land on it (obstacles()).
        if skipped.reason in _NOT_CONFLICTS or (
            relevant is not None and skipped.path not in relevant
        ):
            continue
        conflicts.append(
            Conflict(
                path=skipped.path,
                kind="unreadable",
                message=f"{skipped.path} could not be checked ({skipped.reason}); "
                "fix its permissions and try again",
            )
        )
    return conflicts


def unsafe_conflict(path: str) -> Conflict | None:
    """A conflict when ``path`` must never be written (unsafe, or inside ``.git/``).

    A recorded path inside ``.git/`` or ``.snapline/`` gets the writers' one refusal
    (:class:`~snapline.paths.ProtectedPathError`); no writer records one, so the store
    may come from an untrusted source, which the message says too.
    """
    try:
        check_relpath(path)
    except UnsafePathError as error:
        return Conflict(path=path, kind="unsafe-path", message=str(error))
    directory = protected_dir(path)
    if directory is not None:
        refusal = ProtectedPathError(path, directory)
        return Conflict(
            path=path,
            kind="unsafe-path",
            message=f"{refusal}; no writer records such a path, so the store may come "
            "from an untrusted source: run `snapline verify`",
        )
    return None


def obstacles(root: Path, steps: Sequence[Step]) -> list[Conflict]:
    """Paths that something untracked occupies, or whose parent cannot be used.

    The steps are checked in the order they will run (:func:`deletions_first`), so a
    tracked file or directory in the way is fine when the plan removes it before the
    write. Anything else in the way (an ignored or untracked file, a directory holding
    such files, a symlinked parent directory, a file the plan removes only later) is
    reported, because writing would destroy it or land outside the root. A dry run and
    the real run check the same ordered plan, so what the one promises the other does.
    """
    removed: set[str] = set()
    conflicts = []
    # Each parent directory's lstat once for the whole plan (the plan's paths share
    # them): taken twice per path, it was half of this (row R5, 100 files). The
    # writes check every parent again as they go (paths.disk_path).
    parents: dict[str, os.stat_result | None] = {}
    for step in steps:
        if step.content is None:
            if step.before is not None:
                removed.add(step.path)
            continue
        problem = _parent_problem(root, step.path, removed, parents)
        if problem is None:
            problem = _occupied(root, step, removed, parents)
        if problem is not None:
            conflicts.append(Conflict(path=step.path, kind="in-the-way", message=problem))
    return conflicts


def _parent_lstat(
    root: Path, parts: list[str], depth: int, parents: dict[str, os.stat_result | None]
) -> os.stat_result | None:
    """The ``lstat`` of the first ``depth`` parts of a path (``None``: nothing there)."""
    prefix = "/".join(parts[:depth])
    if prefix not in parents:
        try:
            parents[prefix] = os.lstat(os.path.join(root, *parts[:depth]))
        except (FileNotFoundError, NotADirectoryError):
            parents[prefix] = None
    return parents[prefix]


def _parent_problem(
    root: Path, path: str, removed: set[str], parents: dict[str, os.stat_result | None]
) -> str | None:
    parts = path.split("/")
    for depth in range(1, len(parts)):
        info = _parent_lstat(root, parts, depth, parents)
        if info is None:
            return None
        if stat.S_ISDIR(info.st_mode):
            continue
        prefix = "/".join(parts[:depth])
        if prefix in removed:
            return None
        kind = "a symlink" if stat.S_ISLNK(info.st_mode) else "a file"
        return (
            f"{path} cannot be written: {prefix} is {kind} that is not part of the history; "
            "move it away and try again"
        )
    return None


def _occupied(
    root: Path, step: Step, removed: set[str], parents: dict[str, os.stat_result | None]
) -> str | None:
    parts = step.path.split("/")
    location = root.joinpath(*parts)
    for depth in range(1, len(parts)):
        parent = _parent_lstat(root, parts, depth, parents)
        if parent is not None and not stat.S_ISDIR(parent.st_mode):
            # A symlink or file on the way that the plan removes first (else
            # _parent_problem reported it): nothing can stand at the path then,
            # and looking through the link would look outside the root.
            return None
    try:
        info = os.lstat(location)
    except (FileNotFoundError, NotADirectoryError):
        return None
    if stat.S_ISDIR(info.st_mode):
        for dirpath, dirnames, filenames in os.walk(location):
            base = Path(dirpath).relative_to(root).as_posix()
            for name in [*filenames, *(d for d in dirnames if os.path.islink(Path(dirpath, d)))]:
                if f"{base}/{name}" not in removed:
                    return (
                        f"{step.path} cannot be written: a directory stands there holding "
                        f"{base}/{name}, which is not part of the history; move it away and "
                        "try again"
                    )
        return None
    if step.before is None or not (stat.S_ISREG(info.st_mode) or stat.S_ISLNK(info.st_mode)):
        what = (
            "an untracked (perhaps ignored) file"
            if stat.S_ISREG(info.st_mode) or stat.S_ISLNK(info.st_mode)
            else "a FIFO, socket or device (never tracked)"
        )
        return f"{step.path} cannot be written: {what} is there; move it away and try again"
    return None
