"""What ``snapline log`` shows of each snapshot, read without building the models.

A listing shows a snapshot's number, time, tool, session, description and how many files
it changed. Building the public :class:`~snapline.Snapshot` for that would load pydantic
and make a model of every file change: ten thousand for a baseline, to print their
count. The header rows, and the paths the changes record, are checked here as loading
the snapshots would check them.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from snapline.paths import check_recorded
from snapline.snapshots.read.prompts import prompt_of
from snapline.store import SnapshotRow, StoreCorruptError, StoreReader, shape_problem

__all__ = ["SnapshotHeader", "header_of", "headers_of"]


@dataclass(frozen=True)
class SnapshotHeader:
    """One line of ``log``: a snapshot's header, and how many files it changed.

    Attributes:
        number: The snapshot's number.
        time: When it was recorded.
        tool: Who recorded it.
        session: The session it belongs to, if any.
        description: What it says about itself.
        files: How many files it changed.
        prompt: The agent prompt it answered, ``(session, n, at, text)``, when stamped
            (:mod:`snapline.snapshots.read.prompts`); ``text`` is empty when only a
            digest was kept.
    """

    number: int
    time: datetime
    tool: str
    session: str | None
    description: str
    files: int
    prompt: tuple[str, int, int, str] | None = None


def headers_of(store: StoreReader, rows: list[SnapshotRow]) -> list[SnapshotHeader]:
    """The headers of snapshot rows, in their order; call inside one read.

    Args:
        store: The open store.
        rows: Snapshot rows of ``store``.

    Returns:
        One header per row.

    Raises:
        StoreCorruptError: If a row holds values no snapline writes.
        UnsafeRecordError: If a change of one of them records an unsafe path (a crafted
            or damaged store), as loading the snapshot would say.
    """
    if not rows:
        return []
    numbers = {row.number for row in rows}
    counts = dict.fromkeys(numbers, 0)
    for number, path, old_path in store.changes.paths(min(numbers), max(numbers)):
        if number in counts:
            counts[number] += 1
            check_recorded(path)
            if old_path is not None:
                check_recorded(old_path)
    return [_header(store, row, counts[row.number]) for row in rows]


def header_of(store: StoreReader, row: SnapshotRow) -> SnapshotHeader:
    """The header of one snapshot row without reading its changes (``files`` is -1).

    For what shows a snapshot's number, time, tool and description only (``status``):
    counting a baseline's changes reads 100,000 rows.

    Raises:
        StoreCorruptError: If the row holds values no snapline writes.
    """
    return _header(store, row, -1)


def _header(store: StoreReader, row: SnapshotRow, files: int) -> SnapshotHeader:
    problem = shape_problem(row)
    if problem is not None:
        raise StoreCorruptError(store.path, f"snapshot {row.number}: {problem}")
    try:
        time = datetime.fromisoformat(row.time)
    except ValueError:
        raise StoreCorruptError(
            store.path, f"snapshot {row.number} cannot be read: its time {row.time!r:.40}"
        ) from None
    stamp = prompt_of(row)
    prompt = None
    if stamp is not None:
        text = stamp.get("text")
        prompt = (stamp["session"], stamp["n"], stamp["at"], text if isinstance(text, str) else "")
    return SnapshotHeader(row.number, time, row.tool, row.session, row.description, files, prompt)
