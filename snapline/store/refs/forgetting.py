"""Forgetting on git's refs: snapline's own commits rewritten, the user's never touched.

A forget record (the ledger's forget format, :mod:`snapline.store.ledger.forget_format`)
goes onto ``refs/snapline/forgets/<forget id>``: one commit, no parent, whose tree holds
``record``. Every snapshot commit, on any line, whose ``record`` carries a forgotten
version's content (a forward delta producing it, a reverse delta back to it) or whose
``state`` holds its blob is rewritten: the deltas become the ledger's tombstones (the
digest the chain hash covers, so the chain verifies), the blob becomes a *tombstone
blob* (``f`` then the forgotten content's SHA-256 in hex, :func:`snapline.content.tombstone`).
Every later commit is rewritten in step (its parent changed); the records' snapshot
ids, numbers and chain hashes stay, only the commits' ids change. Milestone and check
commits name snapshots by id, not by commit, and stay as they are.

The new commits are written first (unreferenced until a ref moves), then the forget
ref and every rewritten line's ref move in one libgit2 transaction
(:meth:`~snapline.store.refs.git.GitRepository.set_refs`): a kill at any instant
leaves the old history or the new one, never a mix. The forget's commit message names each rewrite
(``Rewrote: REF OLD NEW`` trailers): what ``snapline forget --publish`` leases on. A
clone that fetches a forget its index has not taken in applies every forget again
(:func:`apply_forgets`, which rewrites nothing twice) and rebuilds its index.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from snapline.content import tombstone
from snapline.store.ledger.fields import is_id
from snapline.store.ledger.forget_format import ForgetRecord, parse_forget, render_forget
from snapline.store.ledger.forgetting import forgotten_in
from snapline.store.ledger.format import render_snapshot
from snapline.store.refs.git import GitRepository
from snapline.store.refs.layout import FORGETS, RECORD, STATE, commit_time, line_ref, summary_line
from snapline.store.refs.reading import (
    LineSnapshot,
    list_lines,
    read_record_commit,
    read_snapshot,
)
from snapline.store.refs.values import TREE_MODE, Entry

__all__ = [
    "Forget",
    "Rewrite",
    "apply_forgets",
    "forgotten_versions",
    "move_lines",
    "plan_rewrite",
    "read_forgets",
    "record_forget",
    "rewrites_in",
]

_TRAILER = re.compile(r"Rewrote: (refs/snapline/\S+) ([0-9a-f]{40}) ([0-9a-f]{40})")


@dataclass(frozen=True, slots=True)
class Rewrite:
    """A ref a forget moved: from ``old`` (holding the content) to ``new``.

    Attributes:
        ref: The line's ref.
        old: The commit it pointed at before the forget.
        new: The rewritten commit.
    """

    ref: str
    old: str
    new: str


@dataclass(frozen=True, slots=True)
class Forget:
    """A forget as its ref holds it.

    Attributes:
        ref: ``refs/snapline/forgets/<forget id>``.
        commit: The commit the ref points at.
        record: The forget record.
        rewrites: The line refs it moved.
    """

    ref: str
    commit: str
    record: ForgetRecord
    rewrites: tuple[Rewrite, ...]


def read_forgets(repo: GitRepository) -> list[Forget]:
    """Every forget on the repository's refs, by ref name.

    Raises:
        DamagedLineError: If a forget ref's commit is not one snapline writes.
    """
    found = []
    for ref, commit in sorted(repo.refs(FORGETS).items()):
        if not is_id(ref.removeprefix(FORGETS)):
            continue  # not a forget snapline wrote
        read, record = read_record_commit(repo, ref, commit, parse_forget)
        found.append(Forget(ref, commit, record, rewrites_in(read.message)))
    return found


def rewrites_in(message: str) -> tuple[Rewrite, ...]:
    """The rewrites a forget commit's message names (its ``Rewrote: REF OLD NEW`` trailers)."""
    return tuple(Rewrite(*m.groups()) for m in _TRAILER.finditer(message))


def forgotten_versions(forgets: list[Forget]) -> set[tuple[str, str]]:
    """The ``(path, content hash)`` of every version the forgets removed."""
    return {(v.path, v.hash) for forget in forgets for v in forget.record.forgot}


def record_forget(
    repo: GitRepository, record: ForgetRecord, forget_id: str, rewrites: list[Rewrite]
) -> str:
    """Put the record on ``refs/snapline/forgets/<forget_id>`` and move the rewritten lines.

    One transaction moves every ref (the forget's and each line's); the ref's name.

    Raises:
        RefConflictError: If that ref exists (an id used twice) or a line moved since
            the rewrite was planned; then no ref moved.
    """
    blob = repo.write_blob(render_forget(record))
    root = repo.tree({RECORD: Entry(blob, 0o100644)})
    paths = sorted({v.path for v in record.forgot})
    message = summary_line(
        f"snapline forget: {len(record.forgot)} version(s) of {', '.join(paths)}"
    )
    trailers = "".join(f"Rewrote: {r.ref} {r.old} {r.new}\n" for r in rewrites)
    time = int(_epoch(record.time))
    commit = repo.write_commit(root, [], f"{message}\n\n{trailers}", time)
    ref = FORGETS + forget_id
    moves = [(ref, commit, None), *((r.ref, r.new, r.old) for r in rewrites)]
    repo.set_refs(moves, "snapline forget")
    return ref


def _epoch(time: str) -> float:
    from datetime import datetime

    return datetime.fromisoformat(time.replace("Z", "+00:00")).timestamp()


def plan_rewrite(
    repo: GitRepository,
    forgot: set[tuple[str, str]],
    published: Callable[[str], bool] | None = None,
) -> list[Rewrite]:
    """Write the commits of every line with the versions ``forgot`` removed; move no ref.

    Args:
        repo: The repository.
        forgot: The ``(path, content hash)`` of the versions to remove.
        published: Whether a baseline's parent (the user's commit) is still on one of
            the user's refs; a baseline whose parent is not loses it (:mod:`.based`).
            ``None`` keeps every parent (a clone finishing a forget it fetched).

    Returns:
        Each line whose commits changed: its ref, its tip now, its new tip (empty when
        every line is rewritten already).

    Raises:
        DamagedLineError: If a commit on a line is not a snapshot snapline writes.
    """
    tips = {line_ref(line): tip for line, tip in sorted(list_lines(repo).items())}
    snapshots = _in_order(repo, list(tips.values()))
    hashes = {hash_ for _, hash_ in forgot}
    paths = {c.path for s in snapshots for c in s.record.changes if c.result_hash in hashes}
    # The git blobs holding forgotten content, found where the record says it arrived.
    blobs: dict[str, str] = {}
    for snapshot in snapshots:
        for change in snapshot.record.changes:
            if change.result_hash in hashes and change.path in paths:
                entry = repo.entry(snapshot.state, change.path)
                if entry is not None and change.result_hash is not None:
                    blobs[entry.id] = change.result_hash
    new: dict[str, str] = {}
    taken = {s.taken_at for s in snapshots if s.taken_at is not None}
    new.update({parent: "" for parent in taken if published and not published(parent)})
    for snapshot in snapshots:
        rewritten = _rewrite(repo, snapshot, forgot, paths, blobs, new)
        if rewritten is not None:
            new[snapshot.commit] = rewritten
    return [Rewrite(ref, tip, new[tip]) for ref, tip in tips.items() if tip in new]


def _rewrite(
    repo: GitRepository,
    snapshot: LineSnapshot,
    forgot: set[tuple[str, str]],
    paths: set[str],
    blobs: dict[str, str],
    new: dict[str, str],
) -> str | None:
    """The commit of ``snapshot`` rewritten, or ``None`` when nothing in it changes."""
    changes = [forgotten_in(change, forgot) for change in snapshot.record.changes]
    edits: dict[str, Entry | None] = {}
    for path in sorted(paths):
        entry = repo.entry(snapshot.state, path)
        if entry is not None and entry.id in blobs:
            hex_ = blobs[entry.id].removeprefix("sha256:")
            edits[path] = Entry(repo.write_blob(tombstone(hex_)), entry.mode)
    commit = repo.read_commit(snapshot.commit)
    # The commit's own parents: a baseline keeps its parent, the user's commit (in a
    # shallow clone cut there, git shows none, and a commit may not name a missing one).
    # A parent mapped to "" is a baseline's user commit no user ref reaches: dropped.
    parents = [found for parent in commit.parents if (found := new.get(parent, parent))]
    same_record = changes == list(snapshot.record.changes)
    if same_record and not edits and tuple(parents) == commit.parents:
        return None
    record = repo.entry(commit.tree, RECORD)
    assert record is not None, "read_snapshot checked the tree"
    row = snapshot.record.row
    blob = record.id if same_record else repo.write_blob(render_snapshot(row, changes))
    state = repo.update_tree(snapshot.state, edits) if edits else snapshot.state
    root = repo.tree({RECORD: Entry(blob, 0o100644), STATE: Entry(state, TREE_MODE)})
    return repo.write_commit(root, parents, commit.message, commit_time(snapshot.record.row))


def _in_order(repo: GitRepository, tips: list[str]) -> list[LineSnapshot]:
    """Every snapshot commit reachable from ``tips``, each after its parents."""
    order: list[LineSnapshot] = []
    read: dict[str, LineSnapshot] = {}
    stack: list[tuple[str, bool]] = [(tip, False) for tip in reversed(tips)]
    while stack:
        commit, done = stack.pop()
        if done:
            order.append(read[commit])
            continue
        if commit in read:
            continue
        read[commit] = snapshot = read_snapshot(repo, commit)
        stack.append((commit, True))
        stack.extend((parent, False) for parent in reversed(snapshot.parents) if parent not in read)
    return order


def move_lines(repo: GitRepository, rewrites: list[Rewrite]) -> None:
    """Move each rewritten line's ref from its old tip to its new one, all or none.

    Raises:
        RefConflictError: If a ref moved since the rewrite was planned; none moved.
    """
    if rewrites:
        moves = [(r.ref, r.new, r.old) for r in rewrites]
        repo.set_refs(moves, "snapline forget: rewritten")


def apply_forgets(repo: GitRepository, forgets: list[Forget]) -> None:
    """Finish every forget: lines that still hold forgotten content are rewritten.

    Raises:
        DamagedLineError: If a line is damaged or crafted.
        RefConflictError: If a line moved meanwhile (another writer).
    """
    forgot = forgotten_versions(forgets)
    if forgot:
        move_lines(repo, plan_rewrite(repo, forgot))
