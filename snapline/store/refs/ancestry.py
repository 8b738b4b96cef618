"""The snapshots of every line as git's commit graph: a merge snapshot's joined heads are parents.

Git merges two commits from their best common ancestors (``git merge-base --all``): the
common ancestors that are no ancestor of another one. A line that once joined another
(``snapline merge`` after ``git merge``) has the joined snapshot among its ancestors, so
when the other line later merges it back, git's base is that joined snapshot, not the
point where the two lines forked. A base taken from each line's own chain alone is the
older fork point: it makes edits one line apart overlap, a conflict where git merged
cleanly. :mod:`snapline.store.refs.combine` takes its bases from here too.
"""

from __future__ import annotations

from collections.abc import Iterable

from snapline.store.refs.reading import LineSnapshot

__all__ = ["Ancestry"]


class Ancestry:
    """The parent links among a set of snapshots (parents outside it are left out).

    Args:
        chains: The chains whose snapshots make the graph (every line's, forks included).
    """

    def __init__(self, chains: Iterable[list[LineSnapshot]]) -> None:
        self._by_commit = {snapshot.commit: snapshot for chain in chains for snapshot in chain}
        self._children: dict[str, list[str]] | None = None
        # Each pair of lines asks for both tips' ancestors: walked once per tip.
        self._walked: dict[str, frozenset[str]] = {}

    def _parents(self, commit: str) -> list[str]:
        return [p for p in self._by_commit[commit].parents if p in self._by_commit]

    def ancestors(self, commit: str) -> frozenset[str]:
        """``commit`` and every snapshot it descends from, through joins too."""
        done = self._walked.get(commit)
        if done is not None:
            return done
        found = {commit}
        stack = [commit]
        while stack:
            for parent in self._parents(stack.pop()):
                if parent not in found:
                    found.add(parent)
                    stack.append(parent)
        self._walked[commit] = frozenset(found)
        return self._walked[commit]

    def best_common(self, one: str, other: str) -> list[LineSnapshot]:
        """The best common ancestors of two snapshots, as ``git merge-base --all`` finds them.

        Args:
            one: A snapshot commit of the graph.
            other: Another.

        Returns:
            The common ancestors that are no ancestor of another common ancestor, in
            commit order (none when the two share no snapshot).
        """
        common = self.ancestors(one) & self.ancestors(other)
        # Every ancestor of a common ancestor is common: one walk over them marks those
        # below another.
        below: set[str] = set()
        stack = [parent for commit in common for parent in self._parents(commit)]
        while stack:
            commit = stack.pop()
            if commit not in below:
                below.add(commit)
                stack.extend(self._parents(commit))
        return [self._by_commit[commit] for commit in sorted(common - below)]

    def descendants(self, commit: str) -> set[str]:
        """The snapshots that descend from ``commit`` (itself left out), through joins too."""
        if self._children is None:
            self._children = {}
            for child in self._by_commit:
                for parent in self._parents(child):
                    self._children.setdefault(parent, []).append(child)
        found: set[str] = set()
        stack = [commit]
        while stack:
            for child in self._children.get(stack.pop(), ()):
                if child not in found:
                    found.add(child)
                    stack.append(child)
        return found
