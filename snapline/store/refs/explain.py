"""What explains a tree: a recorded state, git's clean merge of recorded states, or nothing.

CI checks out a commit C, however it was merged, and asks whether the history explains
its files (issue 37, point 4). Given C's tree restricted to snapline's scope (or the
tree of the files on disk, :mod:`snapline.store.refs.disk`), :func:`explain` answers:

- **recorded**: the tree is exactly the state of a snapshot, on any line (one dict
  lookup by tree id: equal trees have equal ids);
- **merged**: it is git's own clean merge of states of two or more lines from a state
  they share: what a merge commit, a squash merge or a rebase merge of parallel agents'
  pull requests makes (:mod:`snapline.store.refs.combine`);
- **unexplained**: neither; then each path where the tree differs from the nearest
  recorded state or merge is named (a merge is nearer when it names no more paths, or
  when it differs from the tree in no more paths and only where it was in conflict: its
  conflicts resolved by hand, the others as a side recorded them, which is no person's
  edit), unless some snapshot's state, on some line, holds
  exactly that path with that blob and mode (a file as an agent recorded it, put
  together with others by hand is still each file recorded). A path deleted, or in a
  conflict of the nearest merge, is named. Only when every such path is some state's
  file are they all named: the tree as a whole is no snapshot's.

A line that is damaged or crafted raises, as every reader of the refs does (exit 3).
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass

from snapline.store.refs.catalog import Catalog, Place, changed_paths
from snapline.store.refs.combine import Attempt, find_merge
from snapline.store.refs.git import GitRepository
from snapline.store.refs.reading import LineSnapshot
from snapline.store.refs.trees import TreeReader
from snapline.store.refs.values import Entry

__all__ = ["Explanation", "Verdict", "explain"]


class Verdict(enum.Enum):
    """What a tree is, for the history."""

    RECORDED = "recorded"
    MERGED = "merged"
    UNEXPLAINED = "unexplained"
    NO_HISTORY = "no-history"


@dataclass(frozen=True, slots=True)
class Explanation:
    """The answer for one tree.

    Attributes:
        verdict: Recorded, merged, unexplained, or no history to explain it with.
        tree: The tree explained.
        snapshots: Recorded: every snapshot whose state it is. Merged: the snapshots
            merged, in merge order. Unexplained: the nearest state or merge's.
        base: Merged (or a nearest merge): the snapshot whose state is the merge base.
        paths: Unexplained: the paths no snapshot explains, in path order.
        conflicts: The nearest merge's paths in conflict, when a merge was nearest.
    """

    verdict: Verdict
    tree: str
    snapshots: tuple[Place, ...] = ()
    base: Place | None = None
    paths: tuple[str, ...] = ()
    conflicts: tuple[str, ...] = ()

    @property
    def explained(self) -> bool:
        """Whether the tree is a recorded state or a clean merge of recorded states."""
        return self.verdict in (Verdict.RECORDED, Verdict.MERGED)


def explain(
    repository: GitRepository,
    tree: str,
    *,
    overlay: Mapping[str, bytes] | None = None,
    catalog: Catalog | None = None,
) -> Explanation:
    """Explain ``tree`` by the history on the repository's lines.

    Args:
        repository: The repository holding the lines.
        tree: The tree's id, scoped as the states are (only files snapline tracks or
            would track: :mod:`snapline.store.refs.disk`).
        overlay: Trees not written into the repository, by id (the disk's tree).
        catalog: The lines read before, kept between calls (refreshed here).

    Returns:
        The explanation.

    Raises:
        DamagedLineError: If a line is damaged or crafted.
        MissingObjectError: If the tree, or a tree of it, is absent.
    """
    catalog = catalog or Catalog(repository)
    catalog.refresh()
    recorded = catalog.recorded(tree)
    if recorded:
        return Explanation(Verdict.RECORDED, tree, tuple(recorded))
    chains = catalog.chains()
    if not any(chains.values()):
        return Explanation(Verdict.NO_HISTORY, tree)
    reader = TreeReader(repository, overlay)
    attempt = find_merge(catalog, reader, tree)
    if attempt is not None and attempt.explains:
        merged = tuple(catalog.place(s) for s in attempt.merged)
        return Explanation(Verdict.MERGED, tree, merged, catalog.place(attempt.base))
    nearest, distance = _nearest_state(catalog, reader, tree)
    if attempt is not None and (
        attempt.named <= distance or (attempt.edited == 0 and attempt.distance <= distance)
    ):
        return _unexplained(catalog, reader, tree, attempt.tree, attempt)
    return _unexplained(catalog, reader, tree, nearest.state, nearest)


def _unexplained(
    catalog: Catalog,
    reader: TreeReader,
    tree: str,
    reference: str,
    near: Attempt | LineSnapshot,
) -> Explanation:
    changes = reader.diff(reference, tree)
    conflicts = near.conflicts if isinstance(near, Attempt) else ()
    named = {c.path for c in changes if c.new is None or not _held(catalog, reader, c.path, c.new)}
    named.update(conflicts)
    if not named:
        named = {change.path for change in changes}
    if isinstance(near, Attempt):
        places = tuple(catalog.place(s) for s in near.merged)
        base: Place | None = catalog.place(near.base)
    else:
        places, base = (catalog.place(near),), None
    return Explanation(Verdict.UNEXPLAINED, tree, places, base, tuple(sorted(named)), conflicts)


def _held(catalog: Catalog, reader: TreeReader, path: str, entry: Entry) -> bool:
    """Whether some snapshot's state holds ``path`` exactly as ``entry``."""
    return any(reader.entry(state, path) == entry for state in catalog.states_holding(path))


def _nearest_state(catalog: Catalog, reader: TreeReader, tree: str) -> tuple[LineSnapshot, int]:
    """The state fewest paths away from ``tree``, on any chain, and how many.

    Each chain is walked once from its first state (one difference of trees), each
    snapshot's distance from the one before by the paths its record names.
    """
    known: dict[str, int] = {}
    best: tuple[LineSnapshot, int] | None = None
    for chain in catalog.chains().values():
        previous: LineSnapshot | None = None
        for snapshot in chain:
            distance = known.get(snapshot.commit)
            if distance is None:
                if previous is None:
                    distance = len(reader.diff(snapshot.state, tree))
                else:
                    distance = known[previous.commit]
                    for path in changed_paths(snapshot):
                        wanted = reader.entry(tree, path)
                        distance += (reader.entry(snapshot.state, path) != wanted) - (
                            reader.entry(previous.state, path) != wanted
                        )
                known[snapshot.commit] = distance
            if best is None or distance <= best[1]:
                best = (snapshot, distance)
            previous = snapshot
    assert best is not None  # explain() returns early when no chain has a snapshot
    return best
