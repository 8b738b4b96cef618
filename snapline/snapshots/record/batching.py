"""A journaled plan's writes as one write batch (used by ``journal.apply_writes``).

Every new content is staged (written and fsynced beside its file) before the first
rename; then the plan runs in order, except that each run of staged writes to distinct
paths, which only rename a finished file over another in a directory that exists, is
renamed at once. What a crash leaves of a batch is only temporary files, which
:func:`remove_temp_files` takes away when the journal undoes the plan.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from snapline import atomic
from snapline.paths import UnsafePathError

if TYPE_CHECKING:
    from snapline.snapshots.record.journal import PlannedWrite

__all__ = ["Group", "groups", "remove_temp_files", "stage", "write"]

Group = list[tuple["PlannedWrite", atomic.Staged | None]]
"""Writes that run together: one write, or a run of independent staged writes."""


def stage(
    batch: atomic.WriteBatch, write: PlannedWrite, locate: Callable[[str], Path]
) -> atomic.Staged | None:
    """Stage a write's new content, when it has one and its place can take it now.

    Args:
        batch: The batch.
        write: The planned write.
        locate: Turns a recorded path into its place on disk, or raises
            ``UnsafePathError``.

    Returns:
        The staged file, or ``None`` (a deletion, or a write to run in order).
    """
    if write.content is None:
        return None
    assert write.after_mode is not None
    try:
        location = locate(write.path)
    except UnsafePathError:
        # Perhaps only until an earlier step removes a symlink standing where a
        # directory goes: the write in order checks again, and refuses if it still is.
        return None
    return batch.stage(location, write.content, write.after_mode)


def groups(writes: Sequence[PlannedWrite], staged: Sequence[atomic.Staged | None]) -> list[Group]:
    """The plan in order, with each run of staged writes to distinct paths as one group.

    Such writes only rename a finished file over another in a directory that exists,
    so they may happen in any order; every other write (a deletion, a parked file, one
    not staged) is a group of its own, in its place.
    """
    found: list[Group] = []
    run: set[str] = set()
    for planned, item in zip(writes, staged, strict=True):
        free = item is not None and planned.park is None
        if free and run and planned.path not in run:
            found[-1].append((planned, item))
            run.add(planned.path)
        else:
            found.append([(planned, item)])
            run = {planned.path} if free else set()
    return found


def write(
    batch: atomic.WriteBatch, root: Path, location: Path, content: bytes | None, mode: int | None
) -> None:
    """Write (or, with ``content`` ``None``, remove) a file that was not staged, now."""
    if content is None:
        batch.remove(location, root=root)
    else:
        assert mode is not None
        batch.write(location, content, mode)


def remove_temp_files(location: Path) -> None:
    """Remove the temporary files a write to ``location`` may have left (a crash)."""
    prefix = atomic.temp_prefix(location.name)
    with contextlib.suppress(OSError):
        for entry in os.scandir(location.parent):
            if entry.name.startswith(prefix):
                with contextlib.suppress(OSError):
                    os.unlink(entry.path)
