"""Which snapshot last wrote each line of one recorded version of a file.

As ``git blame`` does, the walk goes from the version asked about back through the
versions before it, newest first: a line a version's diff against its parent shows as
written is that version's; every other line is handed to the parent, at the line it
had there. The walk ends when no line is left to hand down, or at the version where
the file was added (the baseline's files are added by snapshot 0). A file new at its
path in a snapshot (added, or renamed: ``move_file``, an exact move a snapshot detected)
is followed to the file the snapshot removed that git's rename detection pairs it with
(:mod:`snapline.blame.renames`: a recorded rename's own source, unless another removed
file has the same content and the same name), else it starts there.
"""

from __future__ import annotations

from collections.abc import Iterator

from snapline.blame.lines import Hunks, carried, split_lines
from snapline.blame.renames import Candidate, choose_source
from snapline.snapshots.kinds import ChangeKind, Storage
from snapline.snapshots.read.reconstruct import (
    ContentUnavailableError,
    NotInSnapshotError,
    Reconstructor,
)
from snapline.store import ChangeRow, StoreReader

__all__ = ["line_snapshots", "versions"]

_PAGE = 64


def versions(
    store: StoreReader, reconstructor: Reconstructor, path: str, at: int
) -> Iterator[ChangeRow]:
    """The versions of ``path`` as it was after ``at``, back to where it was added.

    Newest first; across a rename (recorded, or an addition git's blame would take for
    one: :mod:`snapline.blame.renames`), the old path's versions follow.

    Raises:
        NotInSnapshotError: If ``path`` did not exist after snapshot ``at``.
    """
    current, last, first = path, at, True
    while True:
        batch = store.changes.path_history(current, last=last, count=_PAGE)
        for row in batch:
            if row.path != current:
                continue  # the path was moved away then: another life of the name
            if row.result_hash is None or row.storage == Storage.NONE:
                if first:
                    raise NotInSnapshotError(path, at)
                return
            first = False
            yield row
            if row.kind == ChangeKind.RENAMED or row.base_hash is None:
                # New at this path: the baseline's files start here; another file, where
                # a file the snapshot removed is what git's blame would follow it to. A
                # recorded rename is one of those, but of several removed files with the
                # same content git takes the one of the same name, and so does blame.
                source = None if row.snapshot == 0 else _source(store, reconstructor, row)
                if source is None:
                    return
                current, last = source, row.snapshot - 1
                break
            last = row.snapshot - 1
        else:
            if len(batch) < _PAGE:
                if first:
                    raise NotInSnapshotError(path, at)
                return
            last = batch[-1].snapshot - 1


def _source(store: StoreReader, reconstructor: Reconstructor, row: ChangeRow) -> str | None:
    """The file ``git blame`` would follow the added ``row.path`` to, among those removed."""
    removed = [
        Candidate(change.old_path or change.path, change.base_mode, change.base_hash)
        for change in store.changes.of(row.snapshot, deltas=False)
        if change.base_hash is not None
        and change.base_mode is not None
        and (change.result_hash is None or change.kind == ChangeKind.RENAMED)
    ]
    removed = [_sized(reconstructor, c, row.snapshot - 1) for c in removed]
    if not removed or row.result_hash is None or row.result_mode is None:
        return None

    def load(candidate: Candidate) -> bytes | None:
        try:
            return reconstructor.content_at(candidate.path, row.snapshot - 1)
        except (ContentUnavailableError, NotInSnapshotError):
            return None

    content = reconstructor.rebuild(row)
    return choose_source(row.path, row.result_mode, row.result_hash, content, removed, load)


def _sized(reconstructor: Reconstructor, candidate: Candidate, at: int) -> Candidate:
    version = reconstructor.version(candidate.path, at)
    size = None if version is None or version.result_hash != candidate.hash else version.size
    return Candidate(candidate.path, candidate.mode, candidate.hash, size)


def line_snapshots(
    store: StoreReader, reconstructor: Reconstructor, path: str, at: int, hunks: Hunks
) -> tuple[bytes, list[int]]:
    """The content of ``path`` after snapshot ``at`` and, per line, the snapshot that wrote it.

    Args:
        store: The history.
        reconstructor: Rebuilds (and hash-checks) each version read.
        path: The file.
        at: The snapshot whose version is blamed.
        hunks: The line diff (git's, in use).

    Returns:
        The content, and one snapshot number per line of it.

    Raises:
        NotInSnapshotError: If ``path`` did not exist after snapshot ``at``.
        ContentUnavailableError: If a version on the way was tracked by hash only or
            forgotten (its lines cannot be told apart).
    """
    walk = versions(store, reconstructor, path, at)
    child_row = next(walk)
    content = child = reconstructor.rebuild(child_row)
    child_count = len(split_lines(child))
    owner = [child_row.snapshot] * child_count
    # Line of the version in hand -> line of the version asked about.
    pending = {line: line for line in range(child_count)}
    for parent_row in walk:
        if not pending:
            break
        parent = reconstructor.rebuild(parent_row)
        mapping = carried(parent, child, hunks, child_count)
        handed: dict[int, int] = {}
        for line, final in pending.items():
            before = mapping[line]
            if before is None:
                owner[final] = child_row.snapshot
            else:
                handed[before] = final
        pending, child_row, child = handed, parent_row, parent
        child_count = len(split_lines(child))
    for final in pending.values():
        owner[final] = child_row.snapshot
    return content, owner
