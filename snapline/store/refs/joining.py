"""The lines ``snapline merge`` joins on git's refs: those whose work git merged into the files.

On the in-tree ledger, git's merge of two branches brings the other branch's snapshot
files along, and the ledger lists a second line. On the refs each writer records on a
line of its own, fetched beside the branches, so which lines a merge joins is asked of
the files git merged: the work tree's files in scope are explained by the history
(:func:`~snapline.store.refs.disk.explain_workspace`, as CI's ``verify`` explains a
commit): a state recorded on another line (a fast-forward), git's merge of states of
several lines (a merge, a squash, a rebase), or the nearest such merge (a conflict
resolved by hand). Each snapshot so named that this work tree's history neither holds
nor joined is a head to join: its line's snapshots back to the history are the side
snapshots the merge snapshot joins (its commit names each head's commit as a further
parent). A line that never reaches this history (another baseline) is left alone, and
so is this work tree's own line: a snapshot on it past a reader's view is the next one
a writer of this work tree recorded meanwhile, never another line's work. A work tree
pinned without a line of its own owns none: the line it follows past its pin is joined.
"""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path
from typing import TYPE_CHECKING

from snapline.store.refs.layout import line_ref
from snapline.store.refs.marks import PIN
from snapline.store.refs.reading import LineSnapshot, read_snapshot
from snapline.store.refs.sides import joined_lines, side_row
from snapline.store.rows import SideRow

if TYPE_CHECKING:
    from snapline.store.refs.disk import ScopedTree
    from snapline.store.refs.explain import Explanation
    from snapline.store.refs.store import RefsStore

__all__ = ["git_wrote", "join_of", "lines_to_join"]


def lines_to_join(store: RefsStore, root: Path) -> dict[str, tuple[SideRow, LineSnapshot]]:
    """The side snapshots a merge of the files at ``root`` joins, by id (not joined yet).

    Args:
        store: The open store, caught up, under the writer lock.
        root: The work tree's root.

    Returns:
        Each snapshot of the lines to join (``merged_into`` ``None``) and its commit.

    Raises:
        DamagedLineError: If a line is damaged or crafted.
    """
    return join_of(store, root)[1]


def join_of(
    store: RefsStore, root: Path
) -> tuple[Explanation, dict[str, tuple[SideRow, LineSnapshot]], ScopedTree]:
    """What explains the files at ``root``, and the side snapshots a merge of them joins.

    Status and verify ask it too (``snapshots/check/merged.py``): files that git merged
    from another line are that line's recorded work, for ``snapline merge``.

    Args:
        store: The open store, under a lock (the writer's, or a reader's).
        root: The work tree's root.

    Returns:
        The explanation, :func:`lines_to_join`'s answer, and the files' tree explained.

    Raises:
        DamagedLineError: If a line is damaged or crafted.
    """
    from snapline.store.refs.disk import explain_workspace
    from snapline.store.refs.explain import Verdict

    explanation, scoped = explain_workspace(root, store.repo)
    if explanation.verdict is Verdict.UNEXPLAINED and explanation.base is None:
        return explanation, {}, scoped  # nearest to one state, no merge: nothing git merged
    joined = joined_lines(store)
    followed = _written_line(store)
    found: dict[str, tuple[SideRow, LineSnapshot]] = {}
    for place in sorted(explanation.snapshots, key=lambda p: (-p.number, p.id)):
        held = store.index.snapshots.get(place.number)
        if (held is not None and held.id == place.id) or place.id in joined or place.id in found:
            continue
        if place.line == followed:
            continue
        walked: dict[str, tuple[SideRow, LineSnapshot]] = {}
        ref = line_ref(place.line) if place.line else "refs/snapline/lines"
        if _walk_unjoined(store, ref, place.commit, joined, walked):
            found.update(walked)
    return explanation, found, scoped


def git_wrote(store: RefsStore, scoped: ScopedTree, paths: Collection[str]) -> set[str]:
    """Of ``paths``, those whose file on disk git put there: ``HEAD``'s, or staged.

    A merge git made is committed (``HEAD`` moved since this work tree's latest snapshot,
    and its tree holds each file as it is on disk) or waits for its commit (git's index
    holds it, stage 0, other than ``HEAD``'s); a deletion likewise (neither holds the
    path). A file a person or an agent wrote that happens to be another line's version,
    or ``HEAD``'s while ``HEAD`` stayed where the line last recorded, is neither, unless
    added by hand: the same bytes are no merge.

    Args:
        store: The open store.
        scoped: The files' tree (:func:`join_of`'s).
        paths: The paths to ask about.
    """
    from snapline.store.refs.disk import work_tree_index
    from snapline.store.refs.headmark import head_moved
    from snapline.store.refs.trees import TreeReader

    reader = TreeReader(store.repo, scoped.overlay)
    head = store.repo.head_tree()
    moved = head_moved(store)
    staged = work_tree_index(store.repo)
    found = set()
    for path in paths:
        now = reader.entry(scoped.tree, path)
        committed = None if head is None else reader.entry(head, path)
        if moved and head is not None and committed == now:
            found.add(path)
            continue
        if staged is None:
            continue
        entry = staged.entries.get(path)
        blob = entry.blob if entry else None
        # Staged other than HEAD's: a squash, a merge waiting for its commit.
        if blob == (now.id if now else None) != (committed.id if committed else None):
            found.add(path)
    return found


def _walk_unjoined(
    store: RefsStore,
    ref: str,
    head: str,
    joined: dict[str, tuple[SideRow, LineSnapshot]],
    walked: dict[str, tuple[SideRow, LineSnapshot]],
) -> bool:
    """Walk from ``head`` back to the history; whether it got there (not another baseline).

    A line joined by an earlier merge and continued since: only its new part joins now.
    """
    commit: str | None = head
    while commit is not None:
        snapshot = read_snapshot(store.repo, commit, ref=ref)
        row = snapshot.record.row
        if row.id in joined:
            return True
        held = store.index.snapshots.get(row.number)
        if held is not None and held.id == row.id:
            return True
        walked[row.id] = (side_row(row, None), snapshot)
        commit = snapshot.parents[0] if snapshot.parents else None
    return False


def _written_line(store: RefsStore) -> str | None:
    """The line this work tree's writers append to, whose snapshots are never another's.

    Past a reader's view, a snapshot on it is the next one a writer of this work tree
    recorded meanwhile. A work tree pinned without a line of its own (a linked one, or
    one whose line a plain ``git switch`` left) follows a line only up to its pin: its
    next write starts a line of its own there, and what the followed line holds past
    the pin is others' work, or its own left on another branch (the git machine: a
    branch merged on ``side``, then again on ``main``), joined like any other line's.
    """
    own = store.own_line()
    if own is None and store.marks.get(PIN) is not None:
        return None
    return own or store.read_line()
