"""Finding the states whose clean git merge is a given tree: parallel lines merged.

Two agents fork from one snapshot F and record on two lines; their pull requests are
merged (a merge commit, a squash merge, a rebase merge): the merged tree is git's merge
of a state X of one line and a state Y of the other from F's state, ``merge(F, X, Y)``,
and with a third line, that merged again with its state Z from F. The search:

1. Bases: for each two lines, the best common ancestors of their tips as git's
   ``merge-base`` finds them, a merge snapshot's joined heads counted as parents
   (:mod:`snapline.store.refs.ancestry`: a line that joined the other merges from the
   joined snapshot, as git does), and the latest state both chains went through (by
   tree id, so two lines that started from the same files without a common snapshot
   share one).
   Those whose difference from the tree is smallest come first (a base further back
   differs in more paths), at most :data:`MAX_BASES`.
2. For a base F and the tree C, ``D`` is the set of paths where C differs from F. On
   each chain that went through F (or descends from it through a join), each snapshot
   after F is scored along the way (its
   record names the paths it changes, so one tree lookup per change): a snapshot is a
   candidate if every path it changed since F is in ``D`` (a merge cannot undo a change
   the other side did not make), and it changed one. Ranked, best first: those whose
   files merged line by line keep every line they added in C's file (an agent that
   edited the file on after its commit); those that changed fewer files C deleted, or
   deleted fewer files C holds changed (git's merge of a deletion with a change is a
   conflict: resolved by hand, or, for a file C deleted, a rename on the other side);
   those holding more of C's files
   as C does; those that changed more paths of ``D`` (a file merged line by line, or
   edited after the merge, is held by neither side); the later. A line's tip is the
   usual candidate; an earlier snapshot when the agent recorded on after its commit.
3. The best candidates of the chains are merged in turn from F with git's merge (the
   chain holding most of C first; libgit2's, or git's own ``merge-tree`` where libgit2
   finds a conflict, :mod:`snapline.store.refs.gitmerge`: they part where a side moved
   a file); a clean merge equal to C explains it. Then each
   chain's next candidates in place of its best, then fewer chains (an agent that
   touched a path of C and was not merged), within :data:`MAX_MERGES` merges a base.

The best merge tried (a conflicting one as git leaves it, or without git as its first
side has it) is kept: the paths where the tree differs from it, or that were in
conflict, are what no merge explains. Merges are ranked by how many paths the tree
differs from them: a conflict resolved by hand is one path, one resolved as a side
recorded it none (so the tip of a line whose every change was in conflict is no further
than its earlier snapshots); of as near, those whose differences are all conflicts first.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from snapline.store.refs.ancestry import Ancestry
from snapline.store.refs.catalog import Catalog, changed_paths
from snapline.store.refs.gitmerge import merge
from snapline.store.refs.reading import LineSnapshot
from snapline.store.refs.trees import TreeReader
from snapline.store.refs.values import Entry

__all__ = ["MAX_BASES", "MAX_MERGES", "Attempt", "find_merge"]

MAX_BASES = 4
"""Bases tried, nearest first: enough for a fork point, a shared baseline and a spare."""
MAX_MERGES = 32
"""Merges tried from one base: the best candidates, then each chain's next ones."""
_PER_CHAIN = 3
_ALL_COMBINATIONS = 27


@dataclass(frozen=True, slots=True)
class Attempt:
    """A merge tried: the states merged, from which base, and what it made.

    Attributes:
        base: The snapshot whose state is the merge base.
        merged: The snapshots merged, in merge order.
        tree: The merged tree (a conflict as git leaves it, or as its first side has it).
        conflicts: The paths git could not merge cleanly.
        distance: How many paths the tree differs from the one explained (a conflict it
            resolved as a side recorded it is none).
        named: How many paths differ or were in conflict (each counted once).
    """

    base: LineSnapshot
    merged: tuple[LineSnapshot, ...]
    tree: str
    conflicts: tuple[str, ...]
    distance: int
    named: int

    @property
    def explains(self) -> bool:
        """Whether git's clean merge made exactly the tree explained."""
        return not self.conflicts and self.distance == 0

    @property
    def edited(self) -> int:
        """How many paths git merged cleanly that the tree holds otherwise (edited after)."""
        return self.named - len(self.conflicts)


def find_merge(catalog: Catalog, reader: TreeReader, tree: str) -> Attempt | None:
    """The merge of recorded states that makes ``tree``, else the nearest tried.

    Args:
        catalog: The lines, refreshed.
        reader: Trees, ``tree`` readable through it.
        tree: The tree to explain (scoped as the states are).

    Returns:
        An attempt that :attr:`~Attempt.explains` the tree, else the one nearest to it
        (fewest paths apart), ``None`` when no two chains share a state.

    Raises:
        MissingObjectError: If a tree is absent.
    """
    best: Attempt | None = None
    ancestry = Ancestry(catalog.chains().values())
    for base in _bases(catalog, reader, tree, ancestry)[:MAX_BASES]:
        found = _from_base(catalog, reader, tree, base, ancestry.descendants(base.commit))
        if found is not None and (best is None or _rank(found) < _rank(best)):
            best = found
        if best is not None and best.explains:
            break
    return best


def _rank(attempt: Attempt) -> tuple[int, int, int]:
    # Nearest: fewest paths apart. A conflict the tree resolved as a side recorded it is
    # no path apart (counted, a merge of the line's tip, which changed one more file in
    # conflict, lost to its earlier snapshot); of as near, one whose differences are all
    # conflicts resolved by hand, not a clean merge's file edited after.
    return (attempt.distance, attempt.edited, len(attempt.merged))


def _bases(
    catalog: Catalog, reader: TreeReader, tree: str, ancestry: Ancestry
) -> list[LineSnapshot]:
    chains = [chain for chain in catalog.chains().values() if chain]
    last = [{s.state: i for i, s in enumerate(chain)} for chain in chains]
    found: dict[str, LineSnapshot] = {}
    for i, chain in enumerate(chains):
        for j in range(i + 1, len(chains)):
            for common in ancestry.best_common(chain[-1].commit, chains[j][-1].commit):
                found.setdefault(common.state, common)
            for snapshot in reversed(chains[j]):
                at = last[i].get(snapshot.state)
                if at is not None:
                    found.setdefault(snapshot.state, chain[at])
                    break
    sized = [(len(reader.diff(state, tree)), base) for state, base in found.items()]
    sized.sort(key=lambda pair: pair[0])
    return [base for _, base in sized]


def _from_base(
    catalog: Catalog, reader: TreeReader, tree: str, base: LineSnapshot, below: set[str]
) -> Attempt | None:
    wanted = {change.path: change.new for change in reader.diff(base.state, tree)}
    scored: list[tuple[int, str, list[LineSnapshot]]] = []
    ends: set[str] = set()
    for chain in catalog.chains().values():
        start, after = _after(chain, base.state, below)
        if after and after[-1].commit not in ends:
            ends.add(after[-1].commit)
            joined = set() if start is None else {c.path for c in reader.diff(base.state, start)}
            matched, found = _candidates(reader, base, after, wanted, joined)
            if found:
                scored.append((matched, after[-1].commit, found))
    if not scored:
        return None
    # The chain holding most of the tree first: a conflict is resolved as it has it.
    scored.sort(key=lambda item: (-item[0], item[1]))
    ranked = [found for _, _, found in scored]
    best: Attempt | None = None
    for tried, choice in enumerate(_choices(ranked), start=1):
        attempt = _merge(catalog, reader, tree, base, choice)
        if best is None or _rank(attempt) < _rank(best):
            best = attempt
        if (best is not None and best.explains) or tried >= MAX_MERGES:
            break
    return best


def _after(
    chain: list[LineSnapshot], state: str, below: set[str]
) -> tuple[str | None, list[LineSnapshot]]:
    """The chain's snapshots after the base, and the state before them if not the base's.

    From the base's first occurrence: a line that came back to the base's files (a file
    added, then deleted) went on from there, and what it did before is scored. A chain
    that never held the base's state but joined a line that did goes on from the join:
    the join's record names what it changed since the snapshot before it, not since the
    base, so the state before it is returned too.
    """
    for i, snapshot in enumerate(chain):
        if snapshot.state == state:
            return None, chain[i + 1 :]
        if i and snapshot.commit in below:
            return chain[i - 1].state, chain[i:]
    return None, []


def _candidates(
    reader: TreeReader,
    base: LineSnapshot,
    after: list[LineSnapshot],
    wanted: dict[str, Entry | None],
    joined: set[str],
) -> tuple[int, list[LineSnapshot]]:
    """The chain's snapshots after the base that a merge into ``tree`` can take, best first.

    ``joined`` names the paths where the state before the first of ``after`` differs from
    the base's (a chain that reached the base through a join): changed by the first too.

    Returns:
        How many paths the best holds as the tree does, and the candidates.
    """
    current: dict[str, Entry | None] = {}
    outside = 0  # changed since the base, at a path where the tree did not change
    matched = 0  # paths where the tree changed, held as the tree holds them
    touched = 0  # paths where the tree changed, changed here too (a merge may finish them)
    unmerged = 0  # of those, files whose added lines are not all in the tree's file
    against = 0  # a change against a deletion: a conflict (resolved by hand, or a rename)
    kept: dict[tuple[str, Entry | None], bool] = {}

    def lost(path: str, entry: Entry | None, original: Entry | None) -> bool:
        goal = wanted[path]
        if entry is None or goal is None or entry in (goal, original):
            return False
        if (path, entry) not in kept:
            before = reader.lines(original.id) if original is not None else frozenset()
            mine, theirs = reader.lines(entry.id), reader.lines(goal.id)
            # A file on disk in no object (edited by hand): its lines tell nothing.
            if mine is None or before is None or theirs is None:
                kept[path, entry] = True
            else:
                kept[path, entry] = mine - before <= theirs
        return not kept[path, entry]

    scored: list[tuple[bool, int, int, int, int, LineSnapshot]] = []
    for index, snapshot in enumerate(after):
        for path in changed_paths(snapshot) | (joined if index == 0 else set()):
            original = reader.entry(base.state, path)
            was = current.get(path, original)
            now = reader.entry(snapshot.state, path)
            current[path] = now
            if path in wanted:
                goal = wanted[path]
                matched += (now == goal) - (was == goal)
                touched += (now != original) - (was != original)
                unmerged += lost(path, now, original) - lost(path, was, original)
                # Changed here and deleted in the tree, or deleted here and in the tree
                # with other content: git's merge of a deletion with a change is a
                # conflict, never that content, unless a person resolved it so (kept as
                # a candidate, ranked after those without: the nearest merge then names
                # the path, and the lines it merged are still the ones to join).
                against += _kept(now, original, goal) - _kept(was, original, goal)
                against += _deleted(now, original, goal) - _deleted(was, original, goal)
            else:
                outside += (now != original) - (was != original)
        if outside == 0 and touched > 0:
            scored.append((unmerged > 0, against, matched, touched, index, snapshot))
    scored.sort(key=lambda item: (item[0], item[1], -item[2], -item[3], -item[4]))
    found: list[LineSnapshot] = []
    states: set[str] = set()
    for *_, snapshot in scored:
        if snapshot.state not in states:
            states.add(snapshot.state)
            found.append(snapshot)
        if len(found) == _PER_CHAIN:
            break
    return (max(item[2] for item in scored) if scored else 0), found


def _deleted(entry: Entry | None, original: Entry | None, goal: Entry | None) -> bool:
    return entry is None and original is not None and goal is not None


def _kept(entry: Entry | None, original: Entry | None, goal: Entry | None) -> bool:
    return goal is None and entry is not None and entry != original


def _choices(ranked: list[list[LineSnapshot]]) -> Iterator[list[LineSnapshot]]:
    """The merges to try: the best of each chain, each chain's next, then fewer chains.

    With few chains and candidates every combination is tried, best ranks first; else
    each chain's next candidates in place of its best. A chain that changed a path of
    the tree may not be part of the merge: then fewer chains.
    """
    best = [found[0] for found in ranked]
    if math.prod(len(found) for found in ranked) <= _ALL_COMBINATIONS:
        picks = itertools.product(*(range(len(found)) for found in ranked))
        for pick in sorted(picks, key=sum):
            yield [ranked[i][at] for i, at in enumerate(pick)]
    else:
        yield best
        for i, found in enumerate(ranked):
            for other in found[1:]:
                yield [*best[:i], other, *best[i + 1 :]]
    for size in range(len(best) - 1, 1, -1):
        for kept in itertools.combinations(best, size):
            yield list(kept)


def _merge(
    catalog: Catalog,
    reader: TreeReader,
    tree: str,
    base: LineSnapshot,
    choice: Sequence[LineSnapshot],
) -> Attempt:
    merged: list[LineSnapshot] = []
    for snapshot in choice:
        if all(snapshot.state != other.state for other in merged):
            merged.append(snapshot)
    best = _fold(catalog, reader, tree, base, merged)
    # In conflict, each side's resolution is tried in turn: the nearest names the least
    # (libgit2's, without git: git's own merge names the same whatever the order).
    for first in range(1, len(merged) if best.conflicts else 0):
        order = [merged[first], *merged[:first], *merged[first + 1 :]]
        other = _fold(catalog, reader, tree, base, order)
        if _rank(other) < _rank(best):
            best = other
    return best


def _fold(
    catalog: Catalog,
    reader: TreeReader,
    tree: str,
    base: LineSnapshot,
    merged: Sequence[LineSnapshot],
) -> Attempt:
    result = merged[0].state
    conflicts: set[str] = set()
    for snapshot in merged[1:]:
        made = merge(catalog.repo, base.state, result, snapshot.state)
        conflicts.update(made.conflicts)
        result = made.tree
    differ = {change.path for change in reader.diff(result, tree)}
    # A conflict the tree resolved as a side recorded it is no path apart, whether the
    # merge left git's markers there or (libgit2's, without git) its first side's file.
    sided = {
        path
        for path in differ & conflicts
        if any(reader.entry(s.state, path) == reader.entry(tree, path) for s in merged)
    }
    return Attempt(
        base,
        tuple(merged),
        result,
        tuple(sorted(conflicts)),
        len(differ - sided),
        len(differ | conflicts),
    )
