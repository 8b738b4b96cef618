"""The history as seen from a snapshot of another line: a store that reads along that line.

After a git merge of two branches that both recorded, the index holds the main line's
snapshots and changes; another line's snapshots are listed, their changes stay in their
ledger files (``StoreReader.side_line``). A :class:`LineView` puts the two together: the
main line up to the snapshot the other line continues from (its fork), then that line's
own snapshots up to the one asked for. It answers as a store whose latest snapshot is
that one, so every reader written for the main line (a snapshot with its diffs, the
state after any snapshot, a unified diff, rebuilding a version from its delta chain)
reads the other line unchanged, and a rollback plans from it. It never writes.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Unpack

from snapline.store import ChangeReader, ChangeRow, SideRow, SnapshotRow, StateRow, StoreReader
from snapline.store.rows import (
    Checkpoint,
    FileStamp,
    ForgottenRow,
    LedgerEntry,
    SnapshotQuery,
    state_moves,
)

if TYPE_CHECKING:
    from snapline.store.protocol import (
        BlobReader,
        JournalReader,
        MilestoneReader,
        StatCacheReader,
    )

__all__ = ["LineView"]


class LineView:
    """A read-only store: the main line up to a fork, then one other line up to a snapshot.

    Args:
        store: The open store (the index and its ledger).
        records: The other line's snapshots from the one after the fork to the one to
            read up to, oldest first, with their changes (``store.side_line(id)``).

    Attributes:
        main: The store it reads the main line from.
        fork: The last main-line snapshot the line shares.
        head: The snapshot it reads up to (its latest).
    """

    def __init__(
        self, store: StoreReader, records: list[tuple[SnapshotRow, list[ChangeRow]]]
    ) -> None:
        if not records:
            raise ValueError("a line view needs at least one snapshot of the other line")
        self.main = store
        self.head = records[-1][0]
        self.fork = records[0][0].number - 1
        rows = {row.number: row for row, _ in records}
        changes = {row.number: sorted(found, key=_path) for row, found in records}
        self._snapshots = _Snapshots(store, self.fork, rows, changes)
        self._changes = _Changes(store, self.fork, changes)
        self._state = _State(store, self.fork, changes)

    def touched(self) -> set[str]:
        """Every path the line's own snapshots changed (as its path or its old path)."""
        return self._changes.own_paths()

    @property
    def path(self) -> Path:
        """Where the store lives."""
        return self.main.path

    @property
    def snapshots(self) -> _Snapshots:
        """The line's snapshot headers."""
        return self._snapshots

    @property
    def changes(self) -> _Changes:
        """The line's file changes."""
        return self._changes

    @property
    def state(self) -> _State:
        """The state after the line's latest snapshot."""
        return self._state

    @property
    def blobs(self) -> BlobReader:
        """Content by hash: the same for every line."""
        return self.main.blobs

    @property
    def stat_cache(self) -> StatCacheReader:
        """The workspace's stat cache (of the main line's known state)."""
        return self.main.stat_cache

    @property
    def milestones(self) -> MilestoneReader:
        """The main line's milestones."""
        return self.main.milestones

    @property
    def journal(self) -> JournalReader:
        """The workspace's journal."""
        return self.main.journal

    def read(self) -> AbstractContextManager[None]:
        """A consistent view of the index (the line's files are read once, up front)."""
        return self.main.read()

    def config(self) -> dict[str, Any]:
        """The workspace configuration."""
        return self.main.config()

    def format_version(self) -> int:
        """The store's format version."""
        return self.main.format_version()

    def generation(self) -> tuple[int, int]:
        """The store's generation."""
        return self.main.generation()

    def integrity_problems(self) -> list[str]:
        """The store's own check."""
        return self.main.integrity_problems()

    def stale(self) -> bool:
        """Whether the store lags behind its ledger."""
        return self.main.stale()

    def ledger_entries(self, names: Collection[str] | None = None) -> Iterator[LedgerEntry]:
        """The store's ledger files read back."""
        return self.main.ledger_entries(names)

    def ledger_stamps(self) -> dict[str, FileStamp]:
        """The store's ledger stamps."""
        return self.main.ledger_stamps()

    def checkpoint(self) -> Checkpoint | None:
        """The store's verify checkpoint."""
        return self.main.checkpoint()

    def forgotten_hashes(self) -> set[str]:
        """Forgotten versions: a forget applies to every line."""
        return self.main.forgotten_hashes()

    def baseline_in_workspace(self) -> bool:
        """Whether the baseline's content may be held by the workspace only."""
        return self.main.baseline_in_workspace()

    def baseline_content(self, path: str, hash_: str, size: int) -> bytes | None:
        """A baseline version from where it still is: the baseline is every line's."""
        return self.main.baseline_content(path, hash_, size)

    def forgotten_version(self, path: str, hash_: str) -> ForgottenRow | None:
        """The version ``hash_`` of ``path`` if its content was forgotten."""
        return self.main.forgotten_version(path, hash_)

    def side_snapshots(self) -> list[SideRow]:
        """The store's side snapshots."""
        return self.main.side_snapshots()

    def side_line(self, id_: str) -> list[tuple[SnapshotRow, list[ChangeRow]]]:
        """The store's other lines."""
        return self.main.side_line(id_)

    def snapshots_elsewhere(self, prefix: str) -> list[SideRow]:
        """The store's snapshots of other writers' lines."""
        return self.main.snapshots_elsewhere(prefix)

    def orphan_snapshots(self) -> list[tuple[int, str]]:
        """The store's orphaned snapshot files."""
        return self.main.orphan_snapshots()

    def other_milestones(self) -> list[LedgerEntry]:
        """The store's milestone files off the main line."""
        return self.main.other_milestones()


def _path(change: ChangeRow) -> str:
    return change.path


def _touches(change: ChangeRow, path: str) -> bool:
    return change.path == path or change.old_path == path


def _without_deltas(change: ChangeRow) -> ChangeRow:
    return change._replace(forward=None, reverse=None)


class _Snapshots:
    """Headers: the main line's up to the fork, then the line's."""

    def __init__(
        self,
        main: StoreReader,
        fork: int,
        rows: dict[int, SnapshotRow],
        changes: dict[int, list[ChangeRow]],
    ) -> None:
        self._main = main
        self._fork = fork
        self._rows = rows
        self._changes = changes
        self._latest = max(rows)

    def latest_number(self) -> int | None:
        """The line's latest snapshot."""
        return self._latest

    def get(self, number: int) -> SnapshotRow | None:
        """The header of snapshot ``number`` on this line, or ``None``."""
        if number <= self._fork:
            return self._main.snapshots.get(number)
        return self._rows.get(number)

    def with_id_prefix(self, prefix: str, limit: int) -> list[SnapshotRow]:
        """Up to ``limit`` headers on this line whose id starts with ``prefix``."""
        found = [r for r in self._main.snapshots.with_id_prefix(prefix, limit)]
        found = [r for r in found if r.number <= self._fork]
        found += [r for r in self._rows.values() if r.id.startswith(prefix)]
        return sorted(found, key=lambda r: r.number)[:limit]

    def with_ids(self, ids: Collection[str]) -> list[SnapshotRow]:
        """The headers on this line whose id is one of ``ids``, in number order."""
        wanted = set(ids)
        found = [r for r in self._main.snapshots.with_ids(wanted) if r.number <= self._fork]
        found += [r for r in self._rows.values() if r.id in wanted]
        return sorted(found, key=lambda r: r.number)

    def select(self, **query: Unpack[SnapshotQuery]) -> list[SnapshotRow]:
        """Headers on this line matching every filter of ``query``, by number."""
        first, last, tool, session = (
            query.get("first"),
            query.get("last"),
            query.get("tool"),
            query.get("session"),
        )
        path, since, until = query.get("path"), query.get("since"), query.get("until")
        # The main line's part up to the fork, in number order and whole: this line's
        # own are added after it, then the order and the limit apply to both.
        main: SnapshotQuery = {**query, "descending": False, "limit": None}
        main["last"] = self._fork if last is None else min(last, self._fork)
        found = self._main.snapshots.select(**main)
        for number, row in sorted(self._rows.items()):
            if (first is not None and number < first) or (last is not None and number > last):
                continue
            if (tool is not None and row.tool != tool) or (
                session is not None and row.session != session
            ):
                continue
            if (since is not None and row.time < since) or (until is not None and row.time > until):
                continue
            if path is not None and not any(_touches(c, path) for c in self._changes[number]):
                continue
            found.append(row)
        if query.get("descending"):
            found.reverse()
        limit = query.get("limit")
        return found if limit is None else found[:limit]


class _Changes(ChangeReader):
    """File changes: the main line's up to the fork, then the line's."""

    def __init__(self, main: StoreReader, fork: int, changes: dict[int, list[ChangeRow]]) -> None:
        self._main = main
        self._fork = fork
        self._changes = changes

    def own_paths(self) -> set[str]:
        """Every path the line's own snapshots changed (path or old path)."""
        paths = set()
        for found in self._changes.values():
            for change in found:
                paths.add(change.path)
                if change.old_path is not None:
                    paths.add(change.old_path)
        return paths

    def _own(self, first: int, last: int) -> list[ChangeRow]:
        return [c for n in sorted(self._changes) if first <= n <= last for c in self._changes[n]]

    def of(self, snapshot: int, *, deltas: bool = True) -> list[ChangeRow]:
        """The changes of one snapshot of this line, by path."""
        if snapshot <= self._fork:
            return self._main.changes.of(snapshot, deltas=deltas)
        found = self._changes.get(snapshot, [])
        return list(found) if deltas else [_without_deltas(c) for c in found]

    def stream_of(self, snapshot: int) -> Iterator[ChangeRow]:
        """The changes of one snapshot of this line with their deltas, in path order."""
        if snapshot <= self._fork:
            return self._main.changes.stream_of(snapshot)
        return iter(sorted(self._changes.get(snapshot, []), key=lambda c: c.path))

    def totals(self, snapshot: int) -> tuple[int, int]:
        """How many files one snapshot of this line changed, and their recorded sizes."""
        if snapshot <= self._fork:
            return self._main.changes.totals(snapshot)
        found = self._changes.get(snapshot, [])
        return len(found), sum(c.size or 0 for c in found)

    def paths(self, first: int, last: int) -> list[tuple[int, str, str | None]]:
        """``(snapshot, path, old path)`` of each change of ``first..last`` on this line."""
        found = self._main.changes.paths(first, min(last, self._fork))
        return found + [(c.snapshot, c.path, c.old_path) for c in self._own(first, last)]

    def touched(self, first: int, last: int) -> set[str]:
        """Every path a change of ``first..last`` on this line made or moved away."""
        found = self._main.changes.touched(first, min(last, self._fork))
        own = self._own(first, last)
        return found | {c.path for c in own} | {c.old_path for c in own if c.old_path}

    def in_range(self, first: int, last: int, *, deltas: bool = False) -> list[ChangeRow]:
        """The changes of snapshots ``first..last`` on this line, in (snapshot, path) order."""
        found = self._main.changes.in_range(first, min(last, self._fork), deltas=deltas)
        own = self._own(first, last)
        return found + (own if deltas else [_without_deltas(c) for c in own])

    def iter(self, *, deltas: bool = True) -> Iterator[ChangeRow]:
        """Every change on this line, in (snapshot, path) order."""
        for change in self._main.changes.iter(deltas=deltas):
            if change.snapshot > self._fork:
                break
            yield change
        yield from self.in_range(self._fork + 1, max(self._changes), deltas=deltas)

    def version_at(self, path: str, at: int) -> ChangeRow | None:
        """The last change on this line at or before ``at`` that touched ``path``."""
        for number in sorted((n for n in self._changes if n <= at), reverse=True):
            candidates = [c for c in self._changes[number] if _touches(c, path)]
            if candidates:
                # As the index answers: the change that made ``path`` when one snapshot
                # both moved it away and made it anew.
                return max(candidates, key=lambda c: c.path == path)
        return self._main.changes.version_at(path, min(at, self._fork))

    def path_history(self, path: str, *, last: int, count: int) -> list[ChangeRow]:
        """Up to ``count`` changes of ``path`` on this line at or before ``last``, newest first."""
        own = [c for c in reversed(self._own(self._fork + 1, last)) if c.path == path]
        if len(own) >= count:
            return own[:count]
        earlier = self._main.changes.path_history(
            path, last=min(last, self._fork), count=count - len(own)
        )
        return own + earlier


class _State:
    """The state after the line's latest snapshot, worked out once when first asked."""

    def __init__(self, main: StoreReader, fork: int, changes: dict[int, list[ChangeRow]]) -> None:
        self._main = main
        self._fork = fork
        self._changes = changes
        self._rows: dict[str, StateRow] | None = None

    def _all(self) -> dict[str, StateRow]:
        if self._rows is None:
            from snapline.snapshots.read.history import state_at

            rows = {}
            for path, version in state_at(self._main, self._fork).items():
                row = self._main.changes.version_at(path, self._fork)
                size = row.size if row is not None and row.size is not None else 0
                snapshot = row.snapshot if row is not None else 0
                rows[path] = StateRow(path, version.hash, version.mode, size, snapshot)
            for number in sorted(self._changes):
                upserts, deletes = state_moves(number, self._changes[number])
                for gone in deletes:
                    rows.pop(gone, None)
                rows.update((row.path, row) for row in upserts)
            self._rows = rows
        return self._rows

    def get(self, paths: Iterable[str] | None = None) -> dict[str, StateRow]:
        """The state of the given paths after the line's latest snapshot (all when ``None``)."""
        rows = self._all()
        if paths is None:
            return dict(rows)
        return {path: rows[path] for path in paths if path in rows}

    def iter(self) -> Iterator[StateRow]:
        """The state of every path after the line's latest snapshot."""
        return iter(list(self._all().values()))

    def under(self, prefix: str) -> dict[str, StateRow]:
        """The state of every path inside directory ``prefix``."""
        start = prefix.rstrip("/") + "/"
        return {path: row for path, row in self._all().items() if path.startswith(start)}
