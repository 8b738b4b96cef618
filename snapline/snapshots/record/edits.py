"""An agent's edits — write, edit, delete, move one file — as plans run through the journal.

Each edit first checks that the files it touches match their known state (an outside
change is refused, never overwritten), then hands one small plan to
:meth:`Recorder.apply <snapline.snapshots.record.recorder.Recorder.apply>`, the same
path rollback and revert take. Call these while holding ``recorder.writing()``.
"""

from __future__ import annotations

import os

from snapline import atomic
from snapline.errors import SnaplineError
from snapline.hashing import hash_bytes
from snapline.paths import UnsafePathError, check_writable, disk_path
from snapline.scanning import MODE_EXECUTABLE, MODE_FILE, MODE_SYMLINK, DiskFile, Skipped
from snapline.scanning.reasons import SkipReason
from snapline.snapshots.info import SnapshotInfo
from snapline.snapshots.read.history import Version
from snapline.snapshots.record.detect import Detection, Drift, ensure_in_sync
from snapline.snapshots.record.plan import Step
from snapline.snapshots.record.recorder import Recorder
from snapline.snapshots.snapshot import Snapshot
from snapline.store import StateRow

__all__ = [
    "EditMatchError",
    "NotTrackedError",
    "delete_file",
    "edit_file",
    "move_file",
    "write_file",
]


class NotTrackedError(SnaplineError):
    """An operation needs a tracked file and the path is not one (or is in the way).

    Attributes:
        path: The path.
        detail: What is wrong with it (``"is not tracked"``, ``"is a directory, ..."``).
    """

    exit_code = 1

    def __init__(self, path: str, what: str = "is not tracked") -> None:
        self.path = path
        self.detail = what
        super().__init__(f"{path} {what}; check the path with `snapline status`")


class EditMatchError(SnaplineError):
    """The text to replace is not in the file exactly once; nothing was written.

    Attributes:
        path: The file.
        count: How many times the text occurs (0: not found).
    """

    exit_code = 1

    def __init__(self, path: str, count: int) -> None:
        """Describe an edit whose old text is missing or not unique.

        Args:
            path: The file.
            count: How many times the old text occurs.
        """
        self.path = path
        self.count = count
        if count == 0:
            detail = "the old text is not in the file; read the file again and copy it exactly"
        else:
            detail = (
                f"the old text occurs {count} times; include more of the surrounding lines "
                "so that it occurs once"
            )
        super().__init__(f"cannot edit {path}: {detail}")


def edit_file(
    recorder: Recorder, rel: str, old: bytes, new: bytes, info: SnapshotInfo
) -> Snapshot | None:
    """Replace the one occurrence of ``old`` in a tracked file by ``new``, and record it.

    The contract of agents' own edit tools: refused when the file was changed outside
    snapline, or when ``old`` is empty, missing or occurs more than once.

    Args:
        recorder: The workspace's recorder (its writer lock held).
        rel: The checked relative path.
        old: The exact bytes to replace.
        new: What replaces them.
        info: What the caller says about the snapshot.

    Returns:
        The new snapshot; ``None`` when ``old`` equals ``new``.

    Raises:
        StateMismatchError: If the file was changed outside snapline.
        NotTrackedError: If the path is not a tracked file, or is tracked by hash only.
        EditMatchError: If ``old`` is not in the file exactly once.
    """
    known, current = _in_sync(recorder, rel)
    if known is None or current is None:
        raise NotTrackedError(rel)
    if current.content is None:
        raise NotTrackedError(rel, "is tracked by hash only (too large to edit)")
    count = current.content.count(old) if old else 0
    if count != 1:
        raise EditMatchError(rel, count)
    return write_file(recorder, rel, current.content.replace(old, new, 1), None, info)


def write_file(
    recorder: Recorder, rel: str, data: bytes, executable: bool | None, info: SnapshotInfo
) -> Snapshot | None:
    """Write one file and record it.

    Args:
        recorder: The workspace's recorder (its writer lock held).
        rel: The checked relative path.
        data: The new content.
        executable: The executable bit; ``None`` keeps the current one. A symlink
            at ``rel`` is replaced by a regular file (never given ``data`` as target).
        info: What the caller says about the snapshot.

    Returns:
        The new snapshot; ``None`` when the content was already there, or when the path
        is ignored and untracked (written, not recorded, and said in ``last_skipped``).

    Raises:
        StateMismatchError: If the file was changed outside snapline.
        NotTrackedError: If the path is a directory, or a tracked file is in its way.
        ProtectedPathError: If the path is inside ``.git/`` or ``.snapline/``.
    """
    check_writable(rel)  # the facade checked already; this write bypasses the journal's check
    known, current = _in_sync(recorder, rel)
    if known is None and recorder.rules().is_ignored(rel):
        # Nothing to record, so nothing to journal: one atomic write.
        atomic.write_file(
            disk_path(recorder.root, rel), data, MODE_EXECUTABLE if executable else MODE_FILE
        )
        recorder.said((Skipped(rel, SkipReason.WRITTEN_NOT_RECORDED.value),))
        return None
    _refuse_shadowing(recorder, rel)
    if executable is None:
        mode = known.mode if known else (current.mode if current else MODE_FILE)
        if mode == MODE_SYMLINK:
            # Content is never a link target: a link's target is a path, and binary or
            # text meant for a file must not become one. The link is replaced by a
            # regular file and recorded so (mode 100644), as ``cp`` over a link does
            # with ``--remove-destination``.
            mode = MODE_FILE
    else:
        mode = MODE_EXECUTABLE if executable else MODE_FILE
    if known is not None and known.mode == mode and known.hash == hash_bytes(data):
        recorder.said(())
        return None
    return recorder.apply("write", [Step(rel, _version(known), data, mode)], info)


def delete_file(recorder: Recorder, rel: str, info: SnapshotInfo) -> Snapshot:
    """Delete one tracked file and record it.

    Args:
        recorder: The workspace's recorder (its writer lock held).
        rel: The checked relative path.
        info: What the caller says about the snapshot.

    Returns:
        The new snapshot.

    Raises:
        NotTrackedError: If the path is not tracked.
        StateMismatchError: If the file was changed outside snapline.
    """
    known, _current = _in_sync(recorder, rel)
    if known is None:
        raise NotTrackedError(rel)
    return recorder.apply("delete", [Step(rel, _version(known), None, None)], info)


def move_file(
    recorder: Recorder, source: str, target: str, overwrite: bool, info: SnapshotInfo
) -> Snapshot:
    """Move one tracked file, recorded as a rename.

    The target is written before the source is deleted, so at no instant is the
    content on disk nowhere.

    Args:
        recorder: The workspace's recorder (its writer lock held).
        source: The checked relative path of the tracked file.
        target: Where it goes.
        overwrite: Replace a file already at ``target``.
        info: What the caller says about the snapshot.

    Returns:
        The new snapshot.

    Raises:
        NotTrackedError: If ``source`` is not tracked, or ``target`` exists and
            ``overwrite`` is false.
        StateMismatchError: If either file was changed outside snapline.
        UnsafePathError: If both paths are the same.
    """
    if source == target:
        raise UnsafePathError(target, "source and destination are the same path")
    known_src, current_src = _in_sync(recorder, source)
    if known_src is None or current_src is None:
        raise NotTrackedError(source)
    known_dst, current_dst = _in_sync(recorder, target)
    if current_dst is not None and not overwrite:
        raise NotTrackedError(target, "already exists; pass overwrite=True to replace it")
    _refuse_shadowing(recorder, target, moving=source)
    content = current_src.content
    if content is None:
        content = recorder.reconstructor.content_at(source, recorder.latest)
    steps = [
        Step(target, _version(known_dst), content, known_src.mode),
        Step(source, _version(known_src), None, None),
    ]
    return recorder.apply("move", steps, info, renames={target: source})


def _in_sync(recorder: Recorder, rel: str) -> tuple[StateRow | None, DiskFile | None]:
    """The known state and disk file of one path, refusing an outside change."""
    location = disk_path(recorder.root, rel)
    known = recorder.store.state.get([rel]).get(rel)
    try:
        info = os.lstat(location)
    except (FileNotFoundError, NotADirectoryError):
        info = None
    current = None
    if info is not None:
        if os.path.isdir(location) and not os.path.islink(location):
            raise NotTrackedError(rel, "is a directory, not a file")
        current = recorder.read_file(location, rel, info)
    on_disk = (current.hash, current.mode) if current else None
    if on_disk != ((known.hash, known.mode) if known else None) and not (
        known is None and recorder.rules().is_ignored(rel)
    ):
        drifted = Detection(drifts=[Drift(rel, known, current)])
        ensure_in_sync(drifted, recorder.root, recorder.store)
    return known, current


def _refuse_shadowing(recorder: Recorder, rel: str, moving: str | None = None) -> None:
    """Refuse a new file where the known state has a file on its way or files below it.

    A tracked file ``g`` deleted outside snapline leaves room on disk for ``g/h``;
    recording ``g/h`` then would give the history a state holding both, which no disk
    can hold and no rollback can restore. The outside change is what must be recorded
    first, so it is named as one (``StateMismatchError``).
    """
    parts = rel.split("/")
    ancestors = ["/".join(parts[:depth]) for depth in range(1, len(parts))]
    store = recorder.store
    tracked = {*store.state.get(ancestors), *store.state.under(rel)} - {moving}
    if not tracked:
        return
    with store.read():
        detection = recorder.detect(sorted(tracked), want_content=False)
        ensure_in_sync(detection, recorder.root, store)
    # In sync, such a file stands on disk in the way, and the write was refused
    # before getting here; this is only reached if the disk changed meanwhile.
    raise NotTrackedError(rel, f"cannot be written while {min(tracked)} is tracked")


def _version(row: StateRow | None) -> Version | None:
    return None if row is None else Version(row.hash, row.mode)
