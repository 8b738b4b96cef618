"""What git says about the ledger's files, for the states a git operation leaves behind.

Only asked by a rebuild that finds what git alone explains: a snapshot whose parent is
missing (``git ls-files``: an orphan, or damage?) or several heads (``git ls-tree`` of
the branch merged into: which line is the main one?). Outside a git work tree, or when
git cannot be run, the answer is ``None`` and the caller keeps its rule without git.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from snapline.store.ledger.format import SnapshotRecord, snapshot_name

__all__ = [
    "first_parent_for_milestones",
    "first_parent_ledger",
    "main_preference",
    "milestones_collide",
    "untracked_snapshot_files",
]

_SNAPSHOTS = ".snapline/ledger/snapshots"
_LEDGER = ".snapline/ledger"


def untracked_snapshot_files(root: Path) -> set[str] | None:
    """The names of the snapshot files git does not track here, when git tracks the ledger.

    Args:
        root: The workspace root.

    Returns:
        The file names (not paths) of untracked snapshot files, or ``None`` outside a git
        work tree, when git tracks no snapshot file (the ledger is not committed), or
        when git cannot be run.
    """
    tracked = _ls_files(root, [])
    if not tracked:
        return None
    untracked = _ls_files(root, ["--others"])
    return None if untracked is None else {Path(p).name for p in untracked}


def main_preference(
    records: Sequence[SnapshotRecord],
    root: Path,
    preferred: str | None,
    *,
    milestones_collide: bool = False,
) -> tuple[str | None, frozenset[str]]:
    """Which line should be the main one: the branch git merged into, when it merged.

    Args:
        records: Every snapshot of the ledger.
        root: The workspace root.
        preferred: The id this clone's index had as its latest (the rule without git).
        milestones_collide: Two milestone files share a number: ask git even when the
            snapshots form one line.

    Returns:
        The id whose line should be the main one, and the ledger file names of the
        branch merged into (empty when git merged nothing), which also decide between
        milestones closed on both branches.
    """
    if len(_heads(records)) < 2 and not milestones_collide:
        return preferred, frozenset()
    names = frozenset(first_parent_ledger(root) or ())
    ours = _heads([r for r in records if snapshot_name(r.row.number, r.row.id) in names])
    return (ours[0].row.id if len(ours) == 1 else preferred), names


def milestones_collide(milestone_names: Sequence[str]) -> bool:
    """Whether two milestone files share a number (closed on two branches)."""
    return len({name.partition("-")[0] for name in milestone_names}) < len(milestone_names)


def first_parent_for_milestones(root: Path, milestone_names: Sequence[str]) -> frozenset[str]:
    """The branch merged into's ledger names, asked only when milestones collide."""
    if not milestones_collide(milestone_names):
        return frozenset()
    return frozenset(first_parent_ledger(root) or ())


def _heads(records: Sequence[SnapshotRecord]) -> list[SnapshotRecord]:
    # The snapshots nobody names as parent or joins: one per line not joined.
    named = {r.row.parent_id for r in records}
    for record in records:
        if record.row.merges != "[]":
            named.update(json.loads(record.row.merges))
    return [r for r in records if r.row.id not in named]


def first_parent_ledger(root: Path) -> set[str] | None:
    """The ledger file names of the branch merged into, when git is merging or has merged.

    During a merge (``MERGE_HEAD`` exists) that is ``HEAD``'s ledger; when ``HEAD`` is a
    merge commit, its first parent's. The main line after a merge is that branch's line,
    whatever this clone's index last saw (DESIGN.md, "Git-native").

    Returns:
        The names (not paths) of its snapshot and milestone files, or ``None``: not in a
        git work tree, no merge, or git cannot be run.
    """
    merging = _git(root, ["rev-parse", "-q", "--verify", "MERGE_HEAD"])
    if merging is not None:
        commit = "HEAD"
    elif _git(root, ["rev-parse", "-q", "--verify", "HEAD^2"]) is not None:
        commit = "HEAD^1"
    else:
        return None
    listed = _git(root, ["ls-tree", "-r", "-z", "--name-only", commit, "--", _LEDGER])
    if listed is None:
        return None
    return {Path(p).name for p in listed.split("\0") if p}


def _ls_files(root: Path, options: list[str]) -> list[str] | None:
    out = _git(root, ["ls-files", "-z", *options, "--", _SNAPSHOTS])
    return None if out is None else [p for p in out.split("\0") if p]


def _git(root: Path, args: list[str]) -> str | None:
    # What git prints, or None when it fails or cannot run (then the rule without git).
    from snapline.git_binary import GitNotRunError, run_git  # a one-line catch-up runs no git

    try:
        done = run_git(root, *args, timeout=30)
    except GitNotRunError:
        return None
    return done.text if done.code == 0 else None
