"""The plain records that cross the store boundary, one per table row.

They mirror the columns of ``store.db`` (see :mod:`snapline.store.schema` and
docs/format.md); the layers above turn them into the public models. Paths are ``str``
throughout: a file name that is not valid UTF-8 carries surrogate escapes.

Each record is a ``NamedTuple``: immutable, compared by value, changed with
``row._replace(...)``. Not frozen dataclasses: every cold process (a hook's record) builds
these classes at import, and a dataclass costs it several times a named tuple, besides
loading ``dataclasses`` and ``inspect`` (issue 39). This module has no ``from __future__
import annotations`` on purpose: ``NamedTuple`` compiles each annotation given as text,
and :func:`shape_problem` reads the real types.
"""

import types
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import NamedTuple, TypedDict

__all__ = [
    "ChangeRow",
    "Checkpoint",
    "Contents",
    "FileStamp",
    "Fingerprint",
    "ForgottenRow",
    "JournalRow",
    "LedgerEntry",
    "MilestoneRow",
    "SideRow",
    "SnapshotQuery",
    "SnapshotRow",
    "StatRow",
    "StateRow",
    "shape_problem",
    "state_moves",
]

Contents = Mapping[str, bytes] | None
"""New versions' bytes a writer holds, by SHA-256: a store keeping every version whole
(git's refs) writes them as they are, checked, rather than rebuilt from the deltas."""


class SnapshotQuery(TypedDict, total=False):
    """The filters of a query of snapshot headers (``snapshots.select(**query)``); all must hold.

    Attributes:
        first: The lowest number to include.
        last: The highest number to include.
        tool: Only snapshots recorded by this tool.
        session: Only snapshots of this session.
        path: Only snapshots that changed this path (as its path or old path).
        since: Only snapshots recorded at or after this stored time (UTC ISO text).
        until: Only snapshots recorded at or before this stored time.
        descending: Newest first.
        limit: At most this many.
    """

    first: int | None
    last: int | None
    tool: str | None
    session: str | None
    path: str | None
    since: str | None
    until: str | None
    descending: bool
    limit: int | None


class SnapshotRow(NamedTuple):
    """The header of one snapshot.

    Attributes:
        number: Its sequence number (0 is the baseline).
        id: Its unique id.
        parent_id: The id of snapshot ``number - 1``; ``None`` for the baseline.
        time: When it was recorded (ISO 8601, UTC).
        tool: What recorded it.
        description: What it did, in words.
        session: The agent session or person that recorded it, if known.
        metadata: Free-form metadata, a JSON object.
        skipped: The paths it skipped and why, a JSON list.
        version: The format version of the record.
        chain_hash: The hash that chains it to the snapshot before.
        merges: The ids of the heads of other lines this snapshot joins (a merge), a
            JSON list; ``"[]"`` for every other snapshot.
    """

    number: int
    id: str
    parent_id: str | None
    time: str
    tool: str
    description: str
    session: str | None
    metadata: str
    skipped: str
    version: int
    chain_hash: str
    merges: str = "[]"


class ChangeRow(NamedTuple):
    """One file changed by one snapshot.

    Attributes:
        snapshot: The number of the snapshot.
        path: The file's path after the change.
        kind: added, modified, deleted or renamed.
        old_path: The path before a rename, else ``None``.
        base_hash: The content hash before, ``None`` when added.
        result_hash: The content hash after, ``None`` when deleted.
        base_mode: The file mode before, if any.
        result_mode: The file mode after, if any.
        size: The size after, in bytes, if any.
        storage: How the content is stored (delta, full, hash only, ...).
        forward: The forward delta, or ``None`` (not stored or not loaded).
        reverse: The reverse delta, or ``None`` (not stored or not loaded).
        content: The blob hash holding the full content, if any.
        chain: How many deltas lead back to a full copy.
        chain_bytes: How many delta bytes lead back to a full copy.
    """

    snapshot: int
    path: str
    kind: str
    old_path: str | None
    base_hash: str | None
    result_hash: str | None
    base_mode: int | None
    result_mode: int | None
    size: int | None
    storage: str
    forward: bytes | None
    reverse: bytes | None
    content: str | None
    chain: int
    chain_bytes: int


class StateRow(NamedTuple):
    """The known state of one tracked path.

    Attributes:
        path: The tracked path.
        hash: The hash of its content after the latest snapshot.
        mode: Its file mode.
        size: Its size in bytes.
        snapshot: The snapshot that last changed it.
    """

    path: str
    hash: str
    mode: int
    size: int
    snapshot: int


class StatRow(NamedTuple):
    """One stat cache entry: what ``lstat`` said when a file was last hashed.

    Attributes:
        path: The file's path.
        size: Its size in bytes.
        mtime_ns: Its modification time.
        ino: Its inode number.
        ctime_ns: Its status change time.
        mode: Its file mode.
        hash: The hash of its content then.
        checked_ns: When it was hashed.
    """

    path: str
    size: int
    mtime_ns: int
    ino: int
    ctime_ns: int
    mode: int
    hash: str
    checked_ns: int


class MilestoneRow(NamedTuple):
    """One milestone: a titled range of snapshots.

    Attributes:
        number: Its sequence number.
        title: Its title.
        description: What it covers, in words.
        tags: Its tags, a JSON list.
        time: When it was created (ISO 8601, UTC).
        first: The first snapshot number it covers.
        last: The last snapshot number it covers.
        version: The format version of the record.
        chain_hash: The hash that chains it to the milestone before.
    """

    number: int
    title: str
    description: str
    tags: str
    time: str
    first: int
    last: int
    version: int
    chain_hash: str


class SideRow(NamedTuple):
    """A snapshot of a line other than the main one (recorded on another branch).

    Attributes:
        id: Its id.
        number: Its number on its own line.
        parent_id: Its parent's id.
        time: When it was recorded.
        tool: What recorded it.
        description: What it did.
        session: Its session, if any.
        merged_into: The number of the main-line snapshot that joined its line, or
            ``None`` while the line is not joined.
    """

    id: str
    number: int
    parent_id: str | None
    time: str
    tool: str
    description: str
    session: str | None
    merged_into: int | None


class ForgottenRow(NamedTuple):
    """A version whose content was forgotten (``snapline forget``).

    Attributes:
        path: The file.
        hash: Its content hash.
        snapshot: The snapshot that recorded it.
        time: When it was forgotten (ISO 8601, UTC).
        reason: Why, as the user said.
    """

    path: str
    hash: str
    snapshot: int
    time: str
    reason: str


class FileStamp(NamedTuple):
    """What ``lstat`` said of a ledger file when it was verified: any write changes it.

    ``ctime_ns`` is set by the kernel on every change of the file (``utime`` cannot set
    it back), so an edit that restores size and mtime still shows. A tuple, so that
    the stamps of a whole ledger are made and compared at C speed (``verify`` compares
    one per ledger file).
    """

    size: int
    mtime_ns: int
    ctime_ns: int
    ino: int


class Checkpoint(NamedTuple):
    """The history as it was when ``verify`` last checked all of it and found it sound.

    Attributes:
        number: The main line's latest snapshot then.
        id: Its id.
        chain_hash: Its chain hash (the chain covers every snapshot before it).
        stamps: Each ledger file then, by its path under the ledger (``snapshots/…``).
    """

    number: int
    id: str
    chain_hash: str
    stamps: dict[str, FileStamp]


class LedgerEntry(NamedTuple):
    """One file of a ledger as read back, for verification: a record, an object or damage.

    Attributes:
        location: The file.
        problem: What is wrong with it, when it cannot be used at all.
        snapshot: The snapshot it holds.
        changes: That snapshot's changes (deltas packed).
        milestone: The milestone it holds.
        last_id: The id of the milestone's last snapshot.
        object_hash: The content hash an object file holds (checked against its name).
    """

    location: Path
    problem: str | None = None
    snapshot: SnapshotRow | None = None
    changes: tuple[ChangeRow, ...] = ()
    milestone: MilestoneRow | None = None
    last_id: str | None = None
    object_hash: str | None = None


class JournalRow(NamedTuple):
    """One journal entry: work on the workspace that must be finished or undone.

    Attributes:
        id: Its id, in the order entries were added.
        op: The operation.
        created: When it was added (ISO 8601, UTC).
        payload: What to finish or undo, as JSON.
    """

    id: int
    op: str
    created: str
    payload: str


Fingerprint = tuple[int, int, int, int]
"""``(size, mtime_ns, ino, ctime_ns)`` of a file, as ``lstat`` reports it."""


def _shape(record: type) -> tuple[tuple[str, tuple[type, ...], str], ...]:
    # The annotations are the types themselves: int, str | None, bytes | None...
    fields = []
    for name, annotation in record.__annotations__.items():
        allowed = annotation.__args__ if isinstance(annotation, types.UnionType) else (annotation,)
        names = ("None" if kind is types.NoneType else kind.__name__ for kind in allowed)
        declared = " | ".join(names)
        fields.append((name, tuple(allowed), declared))
    return tuple(fields)


# Built on first use: a process that never reads a row back (a hook's record) does not
# pay for it at import.
_SHAPES: dict[type, tuple[tuple[str, tuple[type, ...], str], ...]] = {}
_SOUND: set[tuple[type, ...]] = set()


def shape_problem(row: object) -> str | None:
    """What is wrong with the types of a row's values, if anything.

    SQLite keeps whatever a column is given, so a row edited by hand (or a crafted
    store) can hold text where a number belongs. Readers check a row's shape before
    trusting it, so such damage is reported as damage, not met as a crash.

    Args:
        row: One of this module's records.

    Returns:
        A short description of the first bad value (``"its size is the text 'big', not
        int | None"``), or ``None`` when every value has its declared type.
    """
    kinds = (type(row), *map(type, row)) if isinstance(row, tuple) else None
    if kinds in _SOUND:
        # The exact types of a row found sound before (the verdict depends on nothing
        # else): a baseline's hundred thousand rows hold a handful of combinations.
        return None
    shape = _SHAPES.get(type(row))
    if shape is None:
        shape = _SHAPES[type(row)] = _shape(type(row))
    for name, allowed, declared in shape:
        value = getattr(row, name)
        # bool is an int to Python, never a value SQLite returns for these columns.
        if not isinstance(value, allowed) or isinstance(value, bool):
            kind = "text" if isinstance(value, str) else type(value).__name__
            return f"its {name} is the {kind} {value!r:.40}, not {declared}"
    if kinds is not None and len(_SOUND) < 4096:
        _SOUND.add(kinds)
    return None


def state_moves(number: int, changes: Iterable[ChangeRow]) -> tuple[list[StateRow], list[str]]:
    """How snapshot ``number``'s changes move the known state: ``(upserts, deletes)``."""
    upserts, deletes = [], []
    for change in changes:
        if change.old_path is not None:
            deletes.append(change.old_path)
        if change.result_hash is None:
            deletes.append(change.path)
        else:
            assert change.result_mode is not None and change.size is not None
            upserts.append(
                StateRow(change.path, change.result_hash, change.result_mode, change.size, number)
            )
    return upserts, deletes
