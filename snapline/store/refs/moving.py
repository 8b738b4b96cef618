"""An in-tree history written onto git's refs: every snapshot once, lines and milestones.

``snapline upgrade`` (:mod:`snapline.moving`) hands this module what an in-tree store
holds (the snapshots of every line with their ledger record's bytes, the milestones) and
a reader of its content. Each snapshot becomes a commit as
:func:`~snapline.store.refs.writing.append_snapshot` writes one: ``record`` (the
ledger file's own bytes, unchanged) and ``state`` (the files after it, git's blobs); its
first parent is its parent snapshot's commit, its further parents the heads it merges.

A snapshot whose id is on a line already is never written again: its commit is reused.
What is new goes onto lines: the baseline's snapshots onto the line it names (the main
line), and a run of new snapshots whose parent is already on the refs (an old branch
that diverged, or went further) or on another line of the store (a side line) onto a
line of its own, named by its first snapshot and forked from that parent's commit.

All objects are written first, then each line's ref is set once, from nothing to its
tip; the main line last, its milestones just before it. A kill before a ref moved
leaves only unreferenced objects (``git gc`` collects them); the objects are the same
bytes on every run (fixed identity, the snapshot's own time), so a run after a kill
writes the same commits and finds the refs set before it where it left them.

A version the store keeps no bytes of (forgotten with ``snapline forget``, kept by its
hash only above the size limit, a baseline file neither the work tree nor ``HEAD``
holds) enters the state as a short placeholder, never as other content: the record
keeps its true hash, and every read of a state checks the hash
(:func:`~snapline.store.refs.reading.read_version`), so a placeholder is never taken for
the version. A forgotten secret is thus never copied onto the refs.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from snapline.store.ledger.milestone_format import render_milestone
from snapline.store.protocol import BlobReader
from snapline.store.refs.edits import UnpublishableError, state_edits
from snapline.store.refs.git import GitRepository
from snapline.store.refs.layout import (
    RECORD,
    STATE,
    commit_message,
    commit_time,
    line_ref,
    milestone_message,
    milestones_ref,
)
from snapline.store.refs.reading import list_lines, read_line, read_milestones
from snapline.store.refs.values import TREE_MODE, Entry
from snapline.store.refs.writing import StateEdit
from snapline.store.rows import ChangeRow, MilestoneRow, SnapshotRow

__all__ = ["MoveOutcome", "MovedSnapshot", "move_history", "placeholder"]


@dataclass(frozen=True)
class MovedSnapshot:
    """A snapshot of the in-tree store, as it goes onto a line.

    Attributes:
        row: The snapshot.
        changes: Its changes, deltas included.
        record: The ledger file's bytes (the commit's ``record``, unchanged).
        main: Whether it is on the store's main line (else on a side line).
    """

    row: SnapshotRow
    changes: list[ChangeRow]
    record: bytes
    main: bool


@dataclass
class MoveOutcome:
    """What a move wrote, or with ``dry_run`` would write.

    Attributes:
        written: The ids of the snapshots written (new commits on a line).
        present: How many snapshots were on the refs already (reused, not written).
        lines: Each line written: its id and the number of snapshots put on it.
        main_line: The line of the store's baseline.
        milestones: The numbers of the milestones written.
        placeholders: ``(snapshot, path)`` of each version written as a placeholder.
        side_milestones: How many milestones of side lines were written.
    """

    written: list[str] = field(default_factory=list)
    present: int = 0
    lines: dict[str, int] = field(default_factory=dict)
    main_line: str = ""
    milestones: list[int] = field(default_factory=list)
    placeholders: list[tuple[int, str]] = field(default_factory=list)
    side_milestones: int = 0


def placeholder(hash_: str) -> bytes:
    """The bytes a state holds for a version the old store keeps no bytes of."""
    return (
        "snapline: the in-tree store kept no content of this version (forgotten, or kept "
        f"by its hash only); its recorded hash is {hash_}\n"
    ).encode()


def move_history(
    repo: GitRepository,
    snapshots: Sequence[MovedSnapshot],
    milestones: Sequence[tuple[MilestoneRow, str]],
    blobs: BlobReader,
    *,
    dry_run: bool,
    side_milestones: Sequence[tuple[MilestoneRow, str]] = (),
    before_main: Callable[[], None] = lambda: None,
) -> MoveOutcome:
    """Write the snapshots not on the refs yet, and the main line's milestones.

    Args:
        repo: The repository.
        snapshots: Every snapshot of the store: its main line in order, then its side
            lines (a parent always before its child).
        milestones: The main line's milestones in order, each with its last snapshot's id.
        side_milestones: Milestones closed on the store's side lines (each onto the
            milestones of the line its last snapshot is on, after the numbers that
            line's milestones ref holds).
        blobs: The whole versions' content, packed, by hash (baseline content too).
        dry_run: Decide only: write nothing.
        before_main: Called after every other ref was set, before the main line's
            (a named crash point for the tests).

    Returns:
        What was (or would be) written.

    Raises:
        DamagedLineError: If a line already on the refs is damaged or crafted.
        RefConflictError: If another writer set a ref meanwhile.
        ValueError: If the store's snapshots do not form lines (a parent missing).
    """
    on_refs, lines_on_refs = _commits_on_refs(repo)
    outcome = MoveOutcome(main_line=snapshots[0].row.id if snapshots else "")
    outcome.present = sum(1 for s in snapshots if s.row.id in on_refs)
    new = [s for s in snapshots if s.row.id not in on_refs]
    by_id = {s.row.id: s for s in new}
    line_of: dict[str, str] = {}
    for snapshot in new:
        parent = by_id.get(snapshot.row.parent_id or "")
        if parent is not None and parent.main == snapshot.main:
            line_of[snapshot.row.id] = line_of[parent.row.id]
        else:
            line_of[snapshot.row.id] = snapshot.row.id
        outcome.lines[line_of[snapshot.row.id]] = outcome.lines.get(line_of[snapshot.row.id], 0) + 1
        outcome.written.append(snapshot.row.id)
    main = outcome.main_line
    where = {**lines_on_refs, **line_of}
    # A milestone of the store's main line that ends on a snapshot of another line of
    # the refs (an old branch's, which went onto a line of its own) goes with that line.
    on_main = [(m, last) for m, last in milestones if where.get(last, main) == main]
    elsewhere = [(m, last) for m, last in milestones if where.get(last, main) != main]
    new_milestones = _new_milestones(repo, main, on_main, on_refs, by_id)
    outcome.milestones = [m.number for m, _ in new_milestones]
    by_line = _side_milestones(repo, [*side_milestones, *elsewhere], where, main)
    outcome.side_milestones = sum(len(found) for found in by_line.values())
    if dry_run:
        return outcome
    commits = dict(on_refs)
    tips: dict[str, str] = {}
    for snapshot in _in_order(new, commits):
        commit = _write(repo, snapshot, commits, blobs, outcome.placeholders)
        commits[snapshot.row.id] = commit
        tips[line_of[snapshot.row.id]] = commit
    milestone_tip = _write_milestones(repo, main, new_milestones)
    side_tips = {line: _write_milestones(repo, line, found) for line, found in by_line.items()}
    for line, tip in sorted(tips.items()):
        if line != main:
            _set(repo, line_ref(line), tip)
    for line, side_tip in sorted(side_tips.items()):
        if side_tip is not None:
            before = repo.ref(milestones_ref(line))
            repo.set_ref(milestones_ref(line), side_tip, before, "snapline upgrade")
    if milestone_tip is not None:
        before = repo.ref(milestones_ref(main))
        repo.set_ref(milestones_ref(main), milestone_tip, before, "snapline upgrade")
    before_main()
    if main in tips:
        _set(repo, line_ref(main), tips[main])
    return outcome


def _commits_on_refs(repo: GitRepository) -> tuple[dict[str, str], dict[str, str]]:
    """Every snapshot on every line: its commit by id, and its line by id."""
    found: dict[str, str] = {}
    lines: dict[str, str] = {}
    for line in sorted(list_lines(repo)):
        for snapshot in read_line(repo, line):
            found[snapshot.record.row.id] = snapshot.commit
            lines.setdefault(snapshot.record.row.id, line)
    return found, lines


def _side_milestones(
    repo: GitRepository,
    milestones: Sequence[tuple[MilestoneRow, str]],
    line_of: dict[str, str],
    main: str,
) -> dict[str, list[tuple[MilestoneRow, str]]]:
    """The side lines' milestones to write, by line, after what each line's refs hold."""
    wanted: dict[str, list[tuple[MilestoneRow, str]]] = {}
    for milestone, last_id in sorted(milestones, key=lambda pair: pair[0].number):
        line = line_of.get(last_id)
        if line is not None and line != main:
            wanted.setdefault(line, []).append((milestone, last_id))
    found = {}
    for line, listed in wanted.items():
        held = read_milestones(repo, line)
        after = held[-1].row.number if held else 0
        new = [(m, last) for m, last in listed if m.number > after]
        if new:
            found[line] = new
    return found


def _new_milestones(
    repo: GitRepository,
    main: str,
    milestones: Sequence[tuple[MilestoneRow, str]],
    on_refs: dict[str, str],
    new: dict[str, MovedSnapshot],
) -> list[tuple[MilestoneRow, str]]:
    """The main line's milestones after those its refs hold (none when it holds more).

    Its milestones ref is read whether or not its line's ref is set: an upgrade killed
    after the milestones and before the main line's ref (``upgrade-lines-set``) wrote
    them already, and the next run must not write them twice.
    """
    if not main or (main not in new and main not in on_refs):
        return []
    held = read_milestones(repo, main) if repo.ref(milestones_ref(main)) is not None else []
    after = held[-1].row.number if held else 0
    return [(m, last) for m, last in milestones if m.number > after]


def _in_order(new: list[MovedSnapshot], done: dict[str, str]) -> list[MovedSnapshot]:
    """The new snapshots in an order where each one's parent and merged heads come first."""
    ready = set(done)
    waiting = list(new)
    ordered: list[MovedSnapshot] = []
    while waiting:
        still = []
        for snapshot in waiting:
            needs = [snapshot.row.parent_id or "", *json.loads(snapshot.row.merges)]
            if all(not need or need in ready for need in needs):
                ordered.append(snapshot)
                ready.add(snapshot.row.id)
            else:
                still.append(snapshot)
        if len(still) == len(waiting):
            missing = still[0].row
            raise ValueError(
                f"snapshot {missing.number} ({missing.id}) follows or merges a snapshot "
                "that is neither in the store nor on the refs"
            )
        waiting = still
    return ordered


def _write(
    repo: GitRepository,
    snapshot: MovedSnapshot,
    commits: dict[str, str],
    blobs: BlobReader,
    placeholders: list[tuple[int, str]],
) -> str:
    """Write one snapshot's objects and commit (no ref moves); the commit's id."""
    row = snapshot.row
    parent = commits.get(row.parent_id or "")
    merges = [commits[head] for head in json.loads(row.merges)]
    before = None
    if parent is not None:
        entry = repo.entry(repo.read_commit(parent).tree, STATE)
        before = None if entry is None or entry.mode != TREE_MODE else entry.id
    edits: dict[str, Entry | None] = {}
    for change in snapshot.changes:
        # One change at a time: a version without bytes is that one file's placeholder.
        try:
            found = state_edits(repo, before, [change], blobs, repo.git_dir)
        except UnpublishableError:
            assert change.result_hash is not None, "a deletion needs no bytes"
            placeholders.append((row.number, change.path))
            mode = change.result_mode if change.result_mode is not None else 0o100644
            found = [StateEdit(change.path, placeholder(change.result_hash), mode)]
            if change.old_path is not None:
                found.append(StateEdit(change.old_path, None))
        for edit in found:
            entry = edit.entry(repo)
            if entry is None:
                edits.setdefault(edit.path, None)
            else:
                edits[edit.path] = entry
    state = repo.update_tree(before, edits)
    record = repo.write_blob(snapshot.record)
    root = repo.tree({RECORD: Entry(record, 0o100644), STATE: Entry(state, TREE_MODE)})
    parents = [*([parent] if parent is not None else []), *merges]
    return repo.write_commit(root, parents, commit_message(row), commit_time(row))


def _write_milestones(
    repo: GitRepository, main: str, milestones: Sequence[tuple[MilestoneRow, str]]
) -> str | None:
    """Write the milestones' commits after the main line's milestone tip; the new tip."""
    if not milestones:
        return None
    tip = repo.ref(milestones_ref(main))
    for milestone, last_id in milestones:
        record = repo.write_blob(render_milestone(milestone, last_id))
        root = repo.tree({RECORD: Entry(record, 0o100644)})
        parents = [] if tip is None else [tip]
        tip = repo.write_commit(root, parents, milestone_message(milestone), commit_time(milestone))
    return tip


def _set(repo: GitRepository, ref: str, tip: str) -> None:
    """Set a new line's ref; one already there at ``tip`` is left as it is."""
    current = repo.ref(ref)
    if current != tip:
        # Expected absent: a line named by a snapshot that is not on the refs is new.
        repo.set_ref(ref, tip, None, "snapline upgrade")
