"""One snapshot appended to a line: its blobs, its trees, its commit, its ref moved.

The order is git's own for a commit: objects first (the changed files' blobs, the
record, the trees on the changed paths), the commit, then the ref, moved only if it
still points at the tip this writer built on (:meth:`GitRepository.set_ref`). The ref
is the commit point: a writer killed before it leaves unreferenced objects that
``git gc`` collects, never a half-written snapshot; a writer that loses the race gets
:class:`~snapline.store.refs.git.RefConflictError` and its commit stays unreferenced,
the winner's snapshot on the line.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterable, Iterator, Sequence
from typing import NamedTuple

from snapline.hashing import hash_bytes
from snapline.store.ledger.format import render_snapshot_parts
from snapline.store.ledger.milestone_format import render_milestone
from snapline.store.refs.git import GitRepository
from snapline.store.refs.layout import (
    RECORD,
    STATE,
    commit_message,
    commit_time,
    git_mode,
    line_ref,
    milestone_message,
    milestones_ref,
)
from snapline.store.refs.values import TREE_MODE, Entry
from snapline.store.rows import ChangeRow, MilestoneRow, SnapshotRow

__all__ = ["StateEdit", "append_milestone", "append_snapshot"]


class StateEdit(NamedTuple):
    """A file of the result state that the snapshot changes.

    Attributes:
        path: Its path in the workspace (checked, relative, POSIX).
        data: Its content after the snapshot; ``None`` when the snapshot deletes it
            (or moves it away), or when ``blob`` holds it.
        mode: Its POSIX mode after the snapshot (git keeps symlink, executable or not).
        blob: The id of a blob already written with its content (a large file streamed
            into git, never whole in memory), whose bytes the writer held to the
            recorded hash as it wrote them; ``None``: ``data`` is the content.
    """

    path: str
    data: bytes | None
    mode: int = 0o100644
    blob: str | None = None

    def entry(self, repo: GitRepository) -> Entry | None:
        """The tree entry of this file (its blob written), ``None`` when it is removed."""
        if self.blob is not None:
            return Entry(self.blob, git_mode(self.mode))
        if self.data is None:
            return None
        return Entry(repo.write_blob(self.data), git_mode(self.mode))


def append_snapshot(
    repo: GitRepository,
    line: str,
    row: SnapshotRow,
    changes: Iterable[ChangeRow],
    edits: Sequence[StateEdit],
    *,
    tip: str | None,
    fork: str | None = None,
    merges: Sequence[str] = (),
    taken_at: str | None = None,
) -> str:
    """Write snapshot ``row`` onto line ``line``; the id of its commit.

    Args:
        repo: The repository.
        line: The line's id (its first snapshot's id).
        row: The snapshot.
        changes: Its changes, as the record keeps them: a sequence in any order, or an
            iterator in path order taken once (a baseline's rows, streamed from the
            index, are never all in memory; the record is rendered as they pass).
        edits: The files of the state it changes, one per changed path (a rename: its
            new path with content, its old path with ``None``).
        tip: The commit the line's ref points at now (the snapshot before), ``None``
            when this snapshot starts the line.
        fork: For a line's first snapshot that is not a baseline: the commit of the
            snapshot it follows, on another line.
        merges: The commits of the heads a merge snapshot joins, in the order of the
            ids in ``row.merges``.
        taken_at: For a baseline: the user's commit it was taken at, its commit's parent,
            so that a push of the line leaves out the files the remote holds through it
            (git's push leaves out what the commits at the edge of what it sends reach).

    Raises:
        RefConflictError: If the line's ref no longer points at ``tip``.
        ValueError: If the arguments disagree (a programming error): a line not named
            by its first snapshot, edits that are not the changes' paths, content
            whose SHA-256 is not the recorded result.
        MissingObjectError: If a parent commit or its trees are absent.
    """
    ref = line_ref(line)
    _check_parents(line, row, tip, fork)
    if taken_at is not None and row.number != 0:
        raise ValueError(f"snapshot {row.number} is no baseline: its parent is a snapshot")
    if len(json.loads(row.merges)) != len(merges):
        raise ValueError(f"the record merges {row.merges:.80}, the commit {list(merges)}")
    parent = tip or fork
    base = _state_of(repo, parent) if parent is not None else None
    state = repo.update_tree(base, {edit.path: edit.entry(repo) for edit in edits})
    if isinstance(changes, Sequence):
        changes = sorted(changes, key=lambda change: change.path)
    record = repo.write_blob(_render(row, _checked(changes, edits)))
    root = repo.tree({RECORD: Entry(record, 0o100644), STATE: Entry(state, TREE_MODE)})
    parents = [
        *([parent] if parent is not None else []),
        *merges,
        *([taken_at] if taken_at else []),
    ]
    message = commit_message(row)
    commit = repo.write_commit(root, parents, message, commit_time(row))
    repo.set_ref(ref, commit, tip, message.splitlines()[0])
    return commit


def append_milestone(
    repo: GitRepository, line: str, row: MilestoneRow, last_id: str, *, tip: str | None
) -> str:
    """Write milestone ``row`` onto the milestones of line ``line``; the id of its commit.

    Its commit's tree holds ``record``, the milestone in the ledger's milestone format;
    its parent is the line's milestone before (``tip``), none for the first.

    Args:
        repo: The repository.
        line: The line's id (its first snapshot's id).
        row: The milestone.
        last_id: The id of snapshot ``row.last``, which anchors it to the line.
        tip: The commit the line's milestones ref points at now, ``None`` for none.

    Raises:
        RefConflictError: If the ref no longer points at ``tip``.
        ValueError: If the row cannot be written (see ``render_milestone``).
    """
    record = repo.write_blob(render_milestone(row, last_id))
    root = repo.tree({RECORD: Entry(record, 0o100644)})
    message = milestone_message(row)
    parents = [] if tip is None else [tip]
    commit = repo.write_commit(root, parents, message, commit_time(row))
    repo.set_ref(milestones_ref(line), commit, tip, message.splitlines()[0])
    return commit


def _state_of(repo: GitRepository, commit: str) -> str:
    found = repo.entry(repo.read_commit(commit).tree, STATE)
    if found is None or found.mode != TREE_MODE:
        raise ValueError(f"commit {commit} is not a snapshot: no {STATE} tree")
    return found.id


def _check_parents(line: str, row: SnapshotRow, tip: str | None, fork: str | None) -> None:
    if tip is None and row.id != line:
        raise ValueError(f"a line is named by its first snapshot: {line} is not {row.id}")
    if tip is not None and fork is not None:
        raise ValueError("a snapshot follows its line's tip or a fork, not both")
    if (row.number == 0) != (tip is None and fork is None):
        raise ValueError(f"snapshot {row.number} without a parent commit, or 0 with one")


def _render(row: SnapshotRow, changes: Iterable[ChangeRow]) -> bytes:
    """The record's bytes, its changes rendered one at a time (in path order)."""
    out = io.BytesIO()
    for part in render_snapshot_parts(row, changes):
        out.write(part)
    return out.getvalue()


def _checked(changes: Iterable[ChangeRow], edits: Sequence[StateEdit]) -> Iterator[ChangeRow]:
    """``changes`` as they pass, each checked against the edit of its path (and old path).

    Raises:
        ValueError: If the edits are not one per path the changes name (a rename's old
            path included), or an edit's content is not its change's result.
    """
    unnamed = {edit.path: edit for edit in edits}
    if len(unnamed) != len(edits):
        raise ValueError("two edits of one path")
    moved_from: set[str] = set()  # a rename's old path: removed, unless a change sets it
    for change in changes:
        edit = unnamed.pop(change.path, None)
        if edit is None:
            raise ValueError(f"{change.path!r}: a change without an edit, or two changes")
        _held_to(edit, change.result_hash)
        if change.old_path is not None:
            moved_from.add(change.old_path)
        yield change
    for path in moved_from:
        if path in unnamed:
            _held_to(unnamed.pop(path), None)
    if unnamed:
        raise ValueError(f"the edits name {sorted(unnamed)[:5]}, which no change names")


def _held_to(edit: StateEdit, expected: str | None) -> None:
    if edit.blob is not None:
        if expected is None:
            raise ValueError(f"{edit.path!r}: a blob for a file the changes remove")
        return  # held to its recorded hash as it was written (edits.py)
    actual = None if edit.data is None else hash_bytes(edit.data)
    if actual != expected:
        raise ValueError(f"{edit.path!r}: content {actual}, recorded result {expected}")
