"""Every line of the repository, read once per tip: the states an explanation looks among.

A line is read with :func:`~snapline.store.refs.reading.read_line` (checked: damaged or
crafted history is :class:`~snapline.store.refs.reading.DamagedLineError`, exit 3) and
kept by its tip; a line whose ref moved on is read from the old tip only (its mark), a
line rewritten past it (a forget) is read whole. Each line's *chain* is its snapshots
preceded by those of the line it forks from, up to the fork, and so on down to a
baseline: the states the workspace of that line went through, in order.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from snapline.store.refs.git import GitRepository
from snapline.store.refs.reading import (
    LineRewrittenError,
    LineSnapshot,
    list_lines,
    read_line,
    read_snapshot,
)

__all__ = ["Catalog", "Place", "changed_paths"]


@dataclass(frozen=True, slots=True)
class Place:
    """Where a snapshot is: its line, number, id and commit."""

    line: str
    number: int
    id: str
    commit: str


class Catalog:
    """The lines of one repository, read and checked once, kept while their refs stay.

    Args:
        repo: The repository.
    """

    def __init__(self, repo: GitRepository) -> None:
        self.repo = repo
        self._lines: dict[str, tuple[str, list[LineSnapshot]]] = {}
        self._chains: dict[str, list[LineSnapshot]] = {}
        self._places: dict[str, Place] = {}
        self._by_state: dict[str, list[Place]] = {}
        self._touching: dict[str, set[str]] = {}
        self._roots: set[str] = set()

    def refresh(self) -> None:
        """Read what the refs gained since the last refresh (everything, the first time).

        Raises:
            DamagedLineError: If a line is damaged or crafted.
        """
        tips = list_lines(self.repo)
        if tips == {line: tip for line, (tip, _) in self._lines.items()}:
            return
        for line in set(self._lines) - set(tips):
            del self._lines[line]
        for line, tip in tips.items():
            known = self._lines.get(line)
            if known is not None and known[0] == tip:
                continue
            snapshots: list[LineSnapshot] | None = None
            if known is not None:
                try:
                    snapshots = known[1] + read_line(self.repo, line, after=known[0])
                except LineRewrittenError:
                    snapshots = None
            if snapshots is None:
                snapshots = read_line(self.repo, line)
            self._lines[line] = (tip, snapshots)
        self._index()

    def _index(self) -> None:
        self._places = {}
        self._by_state = {}
        self._touching = {}
        self._roots = set()
        for line, (_, snapshots) in sorted(self._lines.items()):
            for snapshot in snapshots:
                row = snapshot.record.row
                place = Place(line, row.number, row.id, snapshot.commit)
                self._places[snapshot.commit] = place
                self._by_state.setdefault(snapshot.state, []).append(place)
                for path in changed_paths(snapshot):
                    self._touching.setdefault(path, set()).add(snapshot.state)
        self._chains = {}
        for line in self._lines:
            self._chain(line)
        for chain in self._chains.values():
            if chain:
                self._roots.add(chain[0].state)

    def _chain(self, line: str, visiting: frozenset[str] = frozenset()) -> list[LineSnapshot]:
        done = self._chains.get(line)
        if done is not None:
            return done
        snapshots = self._lines[line][1]
        below: list[LineSnapshot] = []
        if snapshots and snapshots[0].record.row.number != 0 and snapshots[0].parents:
            fork = snapshots[0].parents[0]
            place = self._places.get(fork)
            if place is None or place.line in visiting or place.line == line:
                # A fork no line holds any more (read_line checked it): its state only.
                below = [read_snapshot(self.repo, fork)]
            else:
                theirs = self._chain(place.line, visiting | {line})
                held = self._lines[place.line][1]
                upto = next(i for i, s in enumerate(held) if s.commit == fork)
                below = theirs[: len(theirs) - len(held) + upto + 1]
        chain = below + snapshots
        self._chains[line] = chain
        return chain

    def chains(self) -> dict[str, list[LineSnapshot]]:
        """Each line's chain: the states its workspace went through, baseline first."""
        return self._chains

    def recorded(self, tree: str) -> list[Place]:
        """The snapshots whose state is ``tree``, on every line."""
        return list(self._by_state.get(tree, ()))

    def place(self, snapshot: LineSnapshot) -> Place:
        """Where ``snapshot`` is (a fork no line holds: its record's own line unknown)."""
        found = self._places.get(snapshot.commit)
        if found is not None:
            return found
        row = snapshot.record.row
        return Place("", row.number, row.id, snapshot.commit)

    def states_holding(self, path: str) -> Iterator[str]:
        """The states that may hold ``path`` as one snapshot made it.

        Those whose record names it, and the states every chain starts from (a baseline
        records every file, a fork no line holds does not).
        """
        yield from self._touching.get(path, ())
        yield from self._roots

    def paths(self) -> set[str]:
        """Every path a record names: the files snapline tracks, or tracked, on a line."""
        return set(self._touching)


def changed_paths(snapshot: LineSnapshot) -> set[str]:
    """The paths a snapshot changes, as its record names them (a rename's both)."""
    paths = {change.path for change in snapshot.record.changes}
    paths |= {c.old_path for c in snapshot.record.changes if c.old_path is not None}
    return paths
