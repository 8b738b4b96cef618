"""A line read back from its ref: the snapshots in order, each record parsed and checked.

A line is data that may come from elsewhere (it is fetched from remotes), so reading
refuses what snapline would not have written, as the ledger's reader does: a commit
that is not a snapshot (its tree is not exactly ``record`` and ``state``), a record
that does not parse (:func:`~snapline.store.ledger.format.parse_snapshot`: unsafe paths
in it are refused there), numbers or parent links out of sequence, a merge whose record and commit
name different heads, a line whose first
snapshot is not the one it is named by, and a state whose changed files are not the
record's changes or whose paths are unsafe (absolute, ``..``, ``.git`` or
``.snapline`` at any depth) or whose modes are not a file's. Every path of a state is
checked once, where it enters: the first state whole, each later one by its changes.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, NamedTuple, TypeVar

from snapline.hashing import hash_bytes
from snapline.paths import UnsafePathError, check_recorded, inside_git_dir
from snapline.store.errors import StoreCorruptError
from snapline.store.ledger.format import (
    LedgerFormatError,
    SnapshotRecord,
    parse_snapshot,
)
from snapline.store.ledger.milestone_format import MilestoneRecord, parse_milestone
from snapline.store.refs.git import GitRepository, MissingObjectError
from snapline.store.refs.layout import (
    FILE_MODES,
    LINES,
    RECORD,
    STATE,
    line_of_ref,
    line_ref,
    milestones_ref,
)
from snapline.store.refs.values import TREE_MODE, Commit, TreeChange

if TYPE_CHECKING:
    from snapline.store.refs.treediff import Memo

__all__ = [
    "DamagedLineError",
    "LineRewrittenError",
    "LineSnapshot",
    "list_lines",
    "read_line",
    "read_milestones",
    "read_record_commit",
    "read_snapshot",
    "read_version",
]


_Record = TypeVar("_Record")


class LineSnapshot(NamedTuple):
    """One snapshot of a line as its commit holds it.

    Attributes:
        commit: The snapshot's commit id.
        record: Its record, parsed (the snapshot and its changes).
        state: The id of its result state's tree.
        parents: The snapshot commits among the commit's parents: the snapshot before,
            then the heads it merges; none for a baseline.
        taken_at: A baseline's parent commit, if it has one: the user's commit it was taken
            at, never a snapshot (a walk down a line stops at the baseline, before it).
    """

    commit: str
    record: SnapshotRecord
    state: str
    parents: tuple[str, ...]
    taken_at: str | None = None


class LineRewrittenError(LookupError):
    """A commit read before is no longer on its line: the line was rewritten (a forget).

    Attributes:
        ref: The line's ref.
        commit: The commit that is gone from it.
    """

    def __init__(self, ref: str, commit: str) -> None:
        self.ref = ref
        self.commit = commit
        super().__init__(f"{commit[:12]} is no longer on {ref}: read the line whole")


class DamagedLineError(StoreCorruptError):
    """A line's ref leads to data snapline would not have written (damaged or crafted).

    Attributes:
        ref: The line's ref.
        commit: The commit where the damage was found, if one.
    """

    def __init__(self, ref: str, commit: str | None, detail: str) -> None:
        self.ref = ref
        self.commit = commit
        where = ref if commit is None else f"{ref} at commit {commit[:12]}"
        if commit is not None and not ref:  # a state's version is read without its ref
            where = f"commit {commit[:12]}"
        super().__init__(where, detail)


@contextlib.contextmanager
def _unreadable_as_damage(ref: str, commit: str) -> Iterator[None]:
    """A missing object or a ``record`` that does not parse, as the line's damage at ``commit``."""
    try:
        yield
    except MissingObjectError as error:
        raise DamagedLineError(ref, commit, str(error)) from None
    except LedgerFormatError as error:
        raise DamagedLineError(ref, commit, f"its {RECORD}: {error}") from None


def read_record_commit(
    repo: GitRepository, ref: str, commit: str, parse: Callable[[bytes], _Record]
) -> tuple[Commit, _Record]:
    """A commit whose tree is exactly ``record`` (a milestone's, a forget's), and its record.

    Args:
        repo: The repository.
        ref: The ref the commit was reached from, for the error.
        commit: The commit id.
        parse: Reads the record's bytes (raising ``LedgerFormatError``).

    Returns:
        The commit and its record, parsed.

    Raises:
        DamagedLineError: If the tree holds anything else, an object is missing, or the
            record does not parse.
    """
    with _unreadable_as_damage(ref, commit):
        read = repo.read_commit(commit)
        names = repo.names(read.tree)
        entry = names.get(RECORD)
        if set(names) != {RECORD} or entry is None or entry.mode != 0o100644:
            raise DamagedLineError(ref, commit, f"its tree holds {sorted(names)[:4]}")
        return read, parse(repo.read_blob(entry.id))


def read_snapshot(repo: GitRepository, commit: str, *, ref: str = "") -> LineSnapshot:
    """The snapshot commit ``commit``: its record parsed, its tree's shape checked.

    Args:
        repo: The repository.
        commit: The commit id.
        ref: The ref it was reached from, for the error.

    Raises:
        DamagedLineError: If it is not a snapshot commit snapline would write.
    """
    with _unreadable_as_damage(ref, commit):
        found = repo.read_commit(commit)
        names = repo.names(found.tree)
        if set(names) != {RECORD, STATE}:
            raise DamagedLineError(ref, commit, f"its tree holds {sorted(names)[:4]}")
        record_entry, state_entry = names[RECORD], names[STATE]
        if record_entry.mode != 0o100644:
            raise DamagedLineError(ref, commit, f"{RECORD} is not a file")
        if state_entry.mode != TREE_MODE:
            raise DamagedLineError(ref, commit, f"{STATE} is not a tree")
        record = parse_snapshot(repo.read_blob(record_entry.id))
    if record.row.number != 0:
        return LineSnapshot(commit, record, state_entry.id, found.parents)
    # A baseline's one parent is the user's commit it was taken at (docs/format.md): not
    # a snapshot, so no walk goes there; in a shallow clone it may be absent or grafted.
    if len(found.parents) > 1:
        raise DamagedLineError(ref, commit, "a baseline with more than one parent commit")
    return LineSnapshot(commit, record, state_entry.id, (), next(iter(found.parents), None))


def read_line(repo: GitRepository, line: str, *, after: str | None = None) -> list[LineSnapshot]:
    """The snapshots of line ``line``, first to last; empty when there is no such ref.

    Args:
        repo: The repository.
        line: The line's id (its first snapshot's id).
        after: A commit of the line already read and checked (a cache's mark): only the
            snapshots after it are read, and checked against it. Without it, a line the
            repository's object read whole at the same tip is not read again
            (``GitRepository.lines_read``).

    Raises:
        DamagedLineError: If the line is damaged or crafted (see the module's text).
        LineRewrittenError: If ``after`` is not on the line (a forget rewrote it).
        ValueError: If ``line`` is not a snapshot id.
    """
    ref = line_ref(line)
    found: list[LineSnapshot] = []
    commit = tip = repo.ref(ref)
    held = repo.lines_read.get(line)
    if after is None and held is not None and held[0] == tip:
        return list(held[1])
    while commit is not None and commit != after:
        snapshot = read_snapshot(repo, commit, ref=ref)
        found.append(snapshot)
        if snapshot.record.row.id == line:
            if after is not None:
                raise LineRewrittenError(ref, after)
            break
        if not snapshot.parents or snapshot.record.row.number == 0:
            raise DamagedLineError(ref, commit, f"the line never reaches its first snapshot {line}")
        commit = snapshot.parents[0]
    if commit is None and after is not None:
        raise LineRewrittenError(ref, after)
    found.reverse()
    if after is not None and not found:
        # The ref is at the mark: nothing to check against it. Reading the mark's
        # snapshot anyway parsed its whole record on every command's catch-up (a
        # rollback of 100 files: most of the next command's time, row R5).
        return found
    if after is not None:
        before: LineSnapshot | None = read_snapshot(repo, after, ref=ref)
    else:
        before = _fork(repo, ref, found[0]) if found else None
    memo: Memo = {}
    for snapshot in found:
        _check_step(repo, ref, before, snapshot, memo)
        before = snapshot
    if after is None and tip is not None:
        repo.lines_read[line] = (tip, tuple(found))
    return found


def read_milestones(repo: GitRepository, line: str) -> list[MilestoneRecord]:
    """The milestones of line ``line``, first to last; empty when there is no such ref.

    Each commit's tree must be exactly ``record`` (a milestone in the ledger's format),
    and the numbers must go up by one along the first parents.

    Raises:
        DamagedLineError: If the milestones are damaged or crafted.
        ValueError: If ``line`` is not a snapshot id.
    """
    ref = milestones_ref(line)
    found: list[MilestoneRecord] = []
    commit = repo.ref(ref)
    while commit is not None:
        read, record = read_record_commit(repo, ref, commit, parse_milestone)
        if found and record.row.number + 1 != found[-1].row.number:
            raise DamagedLineError(
                ref, commit, f"milestone {record.row.number} before {found[-1].row.number}"
            )
        if len(read.parents) > 1:
            raise DamagedLineError(ref, commit, "a milestone with more than one parent")
        found.append(record)
        commit = read.parents[0] if read.parents else None
    found.reverse()
    return found


def read_version(repo: GitRepository, snapshot: LineSnapshot, path: str, expected: str) -> bytes:
    """The content of ``path`` in a snapshot's state, checked against its recorded hash.

    :func:`read_line` checks a state's paths, not its bytes; every content taken from
    a state for use (a rollback, a rebuilt version) comes through here.

    Args:
        repo: The repository.
        snapshot: The snapshot, as :func:`read_line` returned it.
        path: The file's path.
        expected: Its recorded SHA-256 (``sha256:<hex>``): the record's result hash,
            or the known state's.

    Raises:
        DamagedLineError: If the state holds no such file or other bytes.
    """
    where = f"its state's {path!r:.80}"
    try:
        data = repo.read_path(snapshot.state, path)
    except MissingObjectError as error:
        raise DamagedLineError("", snapshot.commit, f"{where}: {error}") from None
    if data is None:
        raise DamagedLineError("", snapshot.commit, f"{where} is missing")
    if hash_bytes(data) != expected:
        raise DamagedLineError(
            "", snapshot.commit, f"{where} hashes to {hash_bytes(data)}, recorded {expected}"
        )
    return data


def list_lines(repo: GitRepository) -> dict[str, str]:
    """Every line in the repository: its id and the commit its ref points at.

    A ref under ``refs/snapline/lines/`` whose name is not a snapshot id is no line
    snapline wrote, and is left out.
    """
    found = {}
    for name, target in repo.refs(LINES).items():
        line = line_of_ref(name)
        if line is not None:
            found[line] = target
    return found


def _fork(repo: GitRepository, ref: str, first: LineSnapshot) -> LineSnapshot | None:
    """The snapshot a line's first snapshot follows (on another line), if it has one."""
    if first.record.row.number == 0:
        return None  # its parent, if any, is the user's commit (read_snapshot)
    if not first.parents:
        raise DamagedLineError(ref, first.commit, "a first snapshot with no parent commit")
    fork = read_snapshot(repo, first.parents[0], ref=ref)
    # The fork's line is read and checked on its own; its state is checked here too, so
    # a line that forks from a commit on no line brings no path unchecked.
    try:
        every = repo.changes(None, fork.state)
    except MissingObjectError as error:
        raise DamagedLineError(ref, fork.commit, str(error)) from None
    for change in every:
        _check_path(ref, fork.commit, change)
    return fork


def _check_step(
    repo: GitRepository,
    ref: str,
    before: LineSnapshot | None,
    snapshot: LineSnapshot,
    memo: Memo,
) -> None:
    row = snapshot.record.row
    merged = [read_snapshot(repo, c, ref=ref).record.row.id for c in snapshot.parents[1:]]
    if json.dumps(merged) != row.merges:
        raise DamagedLineError(
            ref, snapshot.commit, f"it merges {row.merges:.80} but its commit joins {merged}"
        )
    if before is not None:
        previous = before.record.row
        if row.number != previous.number + 1 or row.parent_id != previous.id:
            raise DamagedLineError(
                ref,
                snapshot.commit,
                f"snapshot {row.number} ({row.id}) does not follow snapshot "
                f"{previous.number} ({previous.id})",
            )
    try:
        # The trees of one step's new state are the next step's old: read once.
        changes = repo.changes(None if before is None else before.state, snapshot.state, memo)
    except MissingObjectError as error:
        raise DamagedLineError(ref, snapshot.commit, str(error)) from None
    for change in changes:
        _check_path(ref, snapshot.commit, change)
    recorded = {change.path for change in snapshot.record.changes}
    recorded |= {c.old_path for c in snapshot.record.changes if c.old_path is not None}
    # A file written over with its own bytes and mode (a move onto an identical file) is
    # a change of the record that leaves the state's tree as it was.
    same = {
        c.path
        for c in snapshot.record.changes
        if c.old_path is None
        and c.base_hash is not None
        and (c.base_hash, c.base_mode) == (c.result_hash, c.result_mode)
    }
    changed = {change.path for change in changes}
    if changed != recorded - (same - changed):
        odd = sorted(changed ^ recorded)[:3]
        raise DamagedLineError(
            ref, snapshot.commit, f"its state and its record disagree about {odd}"
        )


def _check_path(ref: str, commit: str, change: TreeChange) -> None:
    try:
        check_recorded(change.path)
        if inside_git_dir(change.path):
            raise UnsafePathError(change.path, "a path inside .git is never tracked")
    except UnsafePathError as error:
        raise DamagedLineError(
            ref, commit, f"its state holds {change.path!r:.80}: {error.reason}"
        ) from None
    if change.new is not None and change.new.mode not in FILE_MODES:
        raise DamagedLineError(
            ref, commit, f"its state holds {change.path!r:.80} with mode {change.new.mode:o}"
        )
