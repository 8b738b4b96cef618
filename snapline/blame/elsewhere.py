"""Blame in a checkout that only reads the history: lines that other lines recorded.

A checkout of main after agents' pull requests were merged (squashed, rebased or by a
merge commit) holds files that the agents recorded on lines of their own, in their own
clones; the checkout's index follows the main line only, where those files are
changes nobody recorded. In a checkout that never wrote to a history on git's refs
(CI's clone, a reviewer's: ``RefsStore.wrote_here``), as ``verify`` explains such a
checkout (:mod:`snapline.snapshots.check.explained`), each file the main line does not
explain is blamed by the lines that do:

- **recorded**: a snapshot, on any line, wrote exactly the file's content at its path:
  the file is blamed along that line at that snapshot, as the agent's clone blames it
  (a version a line still ends with is preferred, then the first snapshot to write it);
- **merged**: otherwise the lines whose states explain the checkout
  (:func:`~snapline.store.refs.disk.explain_workspace`: git's clean merge of their
  states, or the nearest state) each give their version of the file, blamed along its
  line; each line of the file is blamed as the first of those versions that has it
  (by git's line diff, as a line is carried from one version to the next), and a line
  that none of them has (a hand edit on main, a merge's own resolution) is
  ``unrecorded``.

A work tree that records keeps blaming along its own line only: there, a line its
latest snapshot lacks is a change nobody recorded, as ``verify`` says.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from snapline.blame.batch import pairs, prefetched
from snapline.blame.lines import Hunks, carried, split_lines
from snapline.blame.lineviews import LineViews
from snapline.blame.model import UNRECORDED, Origin
from snapline.blame.walk import line_snapshots
from snapline.hashing import hash_bytes
from snapline.snapshots.read.reconstruct import NotInSnapshotError
from snapline.store import StoreReader

if TYPE_CHECKING:
    from snapline.store.refs.catalog import Catalog, Place
    from snapline.store.refs.explain import Explanation
    from snapline.store.refs.store import RefsStore

__all__ = ["Elsewhere", "for_checkout"]


def for_checkout(root: Path, store: StoreReader, hunks: Hunks) -> Elsewhere | None:
    """The other lines' blame for the checkout at ``root``, or ``None`` where it does not apply.

    Args:
        root: The workspace root.
        store: Its open store.
        hunks: The line diff.

    Returns:
        ``None`` unless the history is on git's refs and this work tree never wrote to
        it; else an :class:`Elsewhere` (close it), which reads the lines only when asked.
    """
    from snapline.store.refs.store import RefsStore

    if not isinstance(store, RefsStore) or store.wrote_here():
        return None
    return Elsewhere(root, store, hunks)


class Elsewhere:
    """Blames files by the lines that recorded them (see the module's text).

    Args:
        root: The workspace root.
        store: Its store, on git's refs.
        hunks: The line diff.
    """

    def __init__(self, root: Path, store: RefsStore, hunks: Hunks) -> None:
        self._root = root
        self._repo = store.repo
        self._hunks = hunks
        self._views = LineViews(store.repo, store.config())
        self._catalog: Catalog | None = None
        self._writers: dict[tuple[str, str], Place] = {}
        self._explanation: Explanation | None = None

    def close(self) -> None:
        """Close the lines' indexes."""
        self._views.close()

    def __enter__(self) -> Elsewhere:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def paths(self) -> set[str]:
        """Every path a snapshot on some line records (the files some line tracks).

        Raises:
            DamagedLineError: If a line is damaged or crafted.
        """
        return self._read().paths()

    def owners(self, path: str, disk: bytes) -> list[Origin] | None:
        """Who wrote each line of ``path`` (``disk``, its bytes), by the lines that recorded it.

        Returns:
            One origin per line (``unrecorded`` where no line's version has it), or
            ``None`` when no line has a version of the file.

        Raises:
            DamagedLineError: If a line is damaged or crafted.
            ContentUnavailableError: If a version on the way was tracked by hash only.
        """
        self._read()
        wrote = self._writers.get((path, hash_bytes(disk)))
        if wrote is not None:
            view = self._views.get(wrote.line)
            # Its versions' diffs in one git process (the disk pair is not asked for).
            ahead = pairs(view.store, view.reconstructor, path, disk, wrote.number)
            content, numbers = line_snapshots(
                view.store, view.reconstructor, path, wrote.number, prefetched(ahead, self._hunks)
            )
            if content == disk:
                return [view.origins.of(number) for number in numbers]
        return self._merged(path, disk)

    def _merged(self, path: str, disk: bytes) -> list[Origin] | None:
        """Each line of ``disk`` from the first explaining state's version that has it."""
        explanation = self._explain()
        places = [*explanation.snapshots, *([explanation.base] if explanation.base else [])]
        count = len(split_lines(disk))
        found: list[Origin | None] = [None] * count
        seen: set[bytes] = set()
        for place in places:
            if not place.line:
                continue  # a fork no line holds any more: no index follows it
            view = self._views.get(place.line)
            ahead = pairs(view.store, view.reconstructor, path, disk, place.number)
            diff = prefetched(ahead, self._hunks)
            try:
                content, numbers = line_snapshots(
                    view.store, view.reconstructor, path, place.number, diff
                )
            except NotInSnapshotError:
                continue
            if content in seen:
                continue
            seen.add(content)
            for line, before in enumerate(carried(content, disk, diff, count)):
                if found[line] is None and before is not None:
                    found[line] = view.origins.of(numbers[before])
        if not seen:
            return None
        return [UNRECORDED if origin is None else origin for origin in found]

    def _read(self) -> Catalog:
        """The lines, read once; the snapshot that wrote each version of each path."""
        if self._catalog is not None:
            return self._catalog
        from snapline.store.refs.catalog import Catalog

        catalog = Catalog(self._repo)
        catalog.refresh()
        ranked: dict[tuple[str, str], tuple[bool, str, str, Place]] = {}
        for chain in catalog.chains().values():
            last: dict[str, tuple[str | None, str]] = {}
            for snapshot in chain:
                for change in snapshot.record.changes:
                    if change.old_path is not None:
                        last[change.old_path] = (None, snapshot.commit)
                    last[change.path] = (change.result_hash, snapshot.commit)
            ends = {(path, hash_, commit) for path, (hash_, commit) in last.items()}
            for snapshot in chain:
                place = catalog.place(snapshot)
                if not place.line:
                    continue
                row = snapshot.record.row
                for change in snapshot.record.changes:
                    if change.result_hash is None:
                        continue
                    key = (change.path, change.result_hash)
                    # The version a line ends with first (the line's own latest writer
                    # of it, as its clone blames), then the first snapshot to write it.
                    ending = (*key, snapshot.commit) in ends
                    rank = (not ending, row.time, row.id, place)
                    if key not in ranked or rank[:3] < ranked[key][:3]:
                        ranked[key] = rank
        self._writers = {key: rank[3] for key, rank in ranked.items()}
        self._catalog = catalog
        return catalog

    def _explain(self) -> Explanation:
        if self._explanation is None:
            from snapline.store.refs.disk import explain_workspace

            self._explanation, _ = explain_workspace(self._root, self._repo, catalog=self._read())
        return self._explanation
