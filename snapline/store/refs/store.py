"""The refs store: the history on git's own refs, a local SQLite index beside it as a cache.

:class:`RefsStore` implements the :class:`~snapline.store.protocol.Store` protocol, as
:class:`~snapline.store.ledger.store.LedgerStore` does for the in-tree ledger. Every
read is answered by the index (:class:`~snapline.store.sqlite.SqliteStore`); every
write goes to the index inside one transaction and, just before that transaction
commits, each snapshot it added is appended to its line's ref
(:func:`.writing.append_snapshot`, compare-and-swap). The ref is the commit point: a ref
that moved under this writer (another process recorded first) fails the write and the
index transaction rolls back; an index that lost its transaction after its ref moved (a
crash) catches up from the ref (:mod:`.catchup`): it never holds a snapshot the ref lacks.

Each work tree writes its own line (:mod:`snapline.store.refs.followed`): the one that
ran ``init`` the baseline's, any other a line it starts at its first write, forked from
the tip its index followed; milestones go on ``refs/snapline/milestones/<line>``. A merge
snapshot (``snapline merge``, :meth:`RefsStore.merging`) names the other lines' heads it
joins as its further parents (:mod:`.joining`).
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable
from contextlib import closing
from pathlib import Path
from typing import TYPE_CHECKING

from snapline.crashpoints import crash_point
from snapline.errors import SnaplineError
from snapline.store.changes import ChangeTable
from snapline.store.indexed import IndexedStore
from snapline.store.ledgerless import Ledgerless
from snapline.store.pending import Pending, PublishingSnapshots
from snapline.store.refs.edits import UnpublishableError, state_edits
from snapline.store.refs.followed import LINE_FILE, read_own_line, write_own_line
from snapline.store.refs.forkmarks import forks_moved
from snapline.store.refs.git import GitRepository
from snapline.store.refs.headmark import mark_head
from snapline.store.refs.layout import STATE, line_ref, milestones_ref
from snapline.store.refs.marks import FOLLOWED, PIN, MarkTable, forget_tips
from snapline.store.refs.otherlines import OtherLines, SideBlobs
from snapline.store.refs.reading import LineSnapshot, read_milestones, read_snapshot
from snapline.store.refs.tombstones import Forgotten
from snapline.store.refs.verified import Verified
from snapline.store.refs.writing import append_milestone, append_snapshot
from snapline.store.rows import ChangeRow, SideRow, SnapshotRow
from snapline.store.sqlite import SqliteStore

if TYPE_CHECKING:
    from snapline.store.protocol import Store

__all__ = ["WRITER_MARK", "LineMovedError", "RefsStore"]

WRITER_MARK = "writer"
"""In the local state: this work tree has written to the history (see ``wrote_here``)."""


class LineMovedError(SnaplineError):
    """A line's ref does not end where this index adds to it.

    Another process (or a clone's fetch) put other snapshots (or milestones) on the
    line since this index last caught up; the index transaction rolls back and
    nothing is lost.

    Attributes:
        ref: The ref.
        number: The snapshot (or milestone) this writer tried to add.
        expected: The snapshot's id (the milestone's number) it follows in the index.
        found: The id (number) at the ref's tip (``None``: no ref).
        what: ``snapshot`` or ``milestone``.
    """

    def __init__(
        self, ref: str, number: int, expected: str, found: str | None, what: str = "snapshot"
    ) -> None:
        self.ref = ref
        self.number = number
        self.expected = expected
        self.found = found
        self.what = what
        at = "is missing" if found is None else f"ends at {what} {found}"
        super().__init__(
            f"{ref} {at}, not at {expected or 'nothing'} which {what} {number} follows: "
            "another writer recorded first; nothing was recorded: catch up and record again"
        )


class _ThisWriteOnly:
    """Refuses to change a snapshot that an earlier transaction published.

    Its commit is on the line: changes added or a seal set afterwards would make the
    index say what the ref does not. The recorder adds a baseline's changes and seals
    it in the transaction that inserts it.
    """

    def __init__(self, pending: Pending) -> None:
        self._pending = pending

    def check(self, numbers: Collection[int]) -> None:
        late = sorted(set(numbers) - set(self._pending.snapshots))
        if late:
            raise RuntimeError(
                f"snapshot {late[0]} is on its line already: its changes and seal are "
                "written in the transaction that inserts it"
            )


class _Snapshots(PublishingSnapshots):
    """The index's snapshot table, sealing only this transaction's snapshots."""

    def __init__(self, index: SqliteStore, pending: Pending, this_write: _ThisWriteOnly) -> None:
        super().__init__(index, pending)
        self._this_write = this_write

    def seal(self, number: int, skipped: str, chain_hash: str) -> None:
        """Seal a snapshot inserted in this transaction (checked after the table's own check)."""
        super().seal(number, skipped, chain_hash)
        self._this_write.check([number])


class _Changes(ChangeTable):
    """The index's change table, adding changes only to this transaction's snapshots."""

    def __init__(self, index: SqliteStore, this_write: _ThisWriteOnly) -> None:
        super().__init__(index.connection)
        self._this_write = this_write

    def insert(self, changes: Iterable[ChangeRow]) -> None:
        """Insert changes of snapshots inserted in this transaction.

        Raises:
            RuntimeError: Outside ``write()``, or for a snapshot already on its line.
        """
        rows = list(changes)
        super().insert(rows)
        self._this_write.check({row.snapshot for row in rows})


class RefsStore(OtherLines, Verified, Forgotten, Ledgerless, IndexedStore):
    """An open workspace history: the lines on git's refs and the local index.

    A write (``write()``) also raises what publishing raises: :class:`LineMovedError`,
    ``RefConflictError``, ``UnpublishableError`` (see ``_publish``). No ledger files
    (:class:`~snapline.store.ledgerless.Ledgerless`), ``verify``'s checkpoint in the index
    (:class:`~snapline.store.refs.verified.Verified`), forgotten versions known from the
    index or the lines (:class:`~snapline.store.refs.tombstones.Forgotten`), the
    baseline's content in its line's first ``state``.

    Args:
        repo: The git repository holding the refs.
        index: The open index (under git's directory, once wired: not in the work tree).

    Attributes:
        path: The index file, which names the store in messages.
        repo: The git repository.
        index: The local index.
    """

    def __init__(self, repo: GitRepository, index: SqliteStore) -> None:
        super().__init__(index)
        self.repo = repo
        self.path: Path = index.path
        self._this_write = _ThisWriteOnly(self._pending)
        self.snapshots = _Snapshots(index, self._pending, self._this_write)
        self.marks = MarkTable(index.connection)
        self.changes = _Changes(index, self._this_write)
        self.blobs = SideBlobs(index.connection, repo, index.path, self._pending.written)
        self._joining: dict[str, tuple[SideRow, LineSnapshot]] = {}

    def wrote_here(self) -> bool:
        """Whether this work tree ever wrote to the history (a baseline, a snapshot...).

        A checkout that only reads (CI's) is held to what explains its commit; one that
        records is held to its latest snapshot (``snapshots/check/explained.py``).
        """
        return (self.path.parent / WRITER_MARK).exists()

    def main_line(self) -> str | None:
        """The id of the main line (its baseline's id), or ``None`` before a baseline."""
        baseline = self.index.snapshots.get(0)
        return None if baseline is None else baseline.id

    def own_line(self) -> str | None:
        """The id of this work tree's own line, or ``None`` until it writes one.

        The line its local state names, if its ref exists (a writer killed before its
        ref moved named a line it never started).
        """
        named = read_own_line(self.path.parent)
        if named is None or self.repo.ref(line_ref(named)) is None:
            return None
        return named

    def followed_line(self) -> str | None:
        """The line whose tip the index follows: this work tree's own, else :meth:`read_line`."""
        return self.own_line() or self.read_line()

    def read_line(self) -> str | None:
        """Without a line of its own: the one its checkout was on (``.pinning``), else the main."""
        return self.marks.get(FOLLOWED) or self.main_line()

    def tip(self) -> str | None:
        """The commit the followed line's ref points at, or ``None`` (no baseline, no ref)."""
        line = self.followed_line()
        return None if line is None else self.repo.ref(line_ref(line))

    # -- publishing ----------------------------------------------------------------

    def _publish(self) -> list[str]:
        """Append the transaction's snapshots, then its milestones, to their refs.

        Returns:
            The commits appended.

        Raises:
            LineMovedError: If the line's ref moved on since the index last caught up.
            RefConflictError: If another writer moved the ref while this one wrote.
            UnpublishableError: If a snapshot's content is not here to put in a tree.
        """
        commits: list[str] = []
        tip: str | None = None
        state = self.path.parent
        main = self.main_line()
        # A local state from before lines per writer (or an upgrade's) that wrote owns the
        # main line (one a switch left names `-`: .switching); one following another forks.
        legacy = self.wrote_here() and not (state / LINE_FILE).exists()
        if self._pending.snapshots and legacy and main is not None and self.read_line() == main:
            write_own_line(state, main)
        if self._pending.snapshots and not self.wrote_here() and self.own_line() is None:
            from snapline.store.refs.pinning import refuse_behind

            # A first write: not on top of a checkout behind its line's latest.
            refuse_behind(self, len(self._pending.snapshots))
        with self.repo.batch():  # each ref moves once its objects are durable, together
            for number in sorted(self._pending.snapshots):
                row = self.index.snapshots.get(number)
                assert row is not None, f"snapshot {number} was inserted in this transaction"
                tip = self._append(row, tip)
                commits.append(tip)
            if tip is not None:  # whether git moves HEAD after them, for merged work
                mark_head(self, commits[0], tip, baseline=0 in self._pending.snapshots)
            tip = None
            for number in sorted(self._pending.milestones):
                tip = self._append_milestone(number, tip)
                commits.append(tip)
        crash_point("refs-published")
        return commits

    def _expected(self, ref: str, number: int, what: str, follows: str) -> str | None:
        """The ref's commit, checked against the index's mark of it (one ref read)."""
        mark = self.marks.get(ref)
        actual = self.repo.ref(ref)
        if actual != mark:
            raise LineMovedError(ref, number, follows, self._at(ref, actual, what), what)
        return mark

    def _at(self, ref: str, commit: str | None, what: str) -> str | None:
        # Read only to say what is there (a conflict): the id, or the milestone's number.
        if commit is None:
            return None
        if what == "snapshot":
            return read_snapshot(self.repo, commit, ref=ref).record.row.id
        line = ref.removeprefix("refs/snapline/milestones/")
        return str(read_milestones(self.repo, line)[-1].row.number)

    def _append_milestone(self, number: int, tip: str | None) -> str:
        row = self.index.milestones.get(number)
        assert row is not None, f"milestone {number} was inserted in this transaction"
        last = self.index.snapshots.get(row.last)
        line = self.followed_line()
        if last is None or line is None:
            raise UnpublishableError(
                self.path, row.last, "", f"is missing: milestone {number} ends at it"
            )
        if self.own_line() is None and self.marks.get(PIN) is not None:
            # Its checkout is behind the main line, whose milestones go on past it.
            raise UnpublishableError(
                self.path,
                row.last,
                "",
                "is behind the main line's latest: record first, "
                "this work tree's milestones go on the line its first record starts",
            )
        ref = milestones_ref(line)
        if tip is None:
            before = [m.number for m in self.index.milestones.all() if m.number < number]
            tip = self._expected(ref, number, "milestone", str(before[-1]) if before else "")
        commit = append_milestone(self.repo, line, row, last.id, tip=tip)
        self.marks.put(ref, commit)
        return commit

    def _append(self, row: SnapshotRow, tip: str | None) -> str:
        merges = []
        for head in json.loads(row.merges):
            if head not in self._joining:
                raise UnpublishableError(self.path, row.number, "", f"joins {head}: on no line")
            merges.append(self._joining[head][1].commit)
        fork: str | None = None
        # A baseline's parent: the user's published commit it is taken at (writing.py).
        taken_at = None
        if row.number == 0:
            # Lazy: it runs the git binary, which only an `init` needs (issue 39).
            from snapline.store.refs.based import published_head

            taken_at = published_head(self.repo.git_dir)
        if tip is not None:
            line = self.followed_line()  # a snapshot after another of this transaction
        elif row.number == 0:
            line = row.id
        else:
            line = self.own_line()
            if line is None:
                line, fork = row.id, self._fork(row)
                self.marks.drop(PIN)  # its own line now says where it is
        assert line is not None, "a snapshot after the baseline has a baseline"
        if line == row.id:
            # Named before the ref moves: a writer killed after it catches up from it.
            write_own_line(self.path.parent, line)
            crash_point("refs-line-named")
        if not self.wrote_here():
            # Before the ref moves: a write that then fails still marks a writer.
            (self.path.parent / WRITER_MARK).touch()
        ref = line_ref(line)
        if tip is None:
            tip = self._expected(ref, row.number, "snapshot", row.parent_id or "")
        parent = tip or fork
        before = None
        if parent is not None:
            entry = self.repo.entry(self.repo.read_commit(parent).tree, STATE)
            before = None if entry is None else entry.id
        stream, held = self.index.changes.stream_of, self._pending.at_hand()  # never all held
        with closing(stream(row.number)) as changes:
            edits = state_edits(self.repo, before, changes, self.blobs, self.path, *held)
        with closing(stream(row.number)) as changes:
            commit = append_snapshot(
                self.repo,
                line,
                row,
                changes,
                edits,
                tip=tip,
                fork=fork,
                merges=merges,
                taken_at=taken_at,
            )
        self.marks.put(ref, commit)
        return commit

    def _fork(self, row: SnapshotRow) -> str:
        """The commit a new line's first snapshot ``row`` follows: the followed line's tip.

        Raises:
            LineMovedError: If the index's mark of the followed line is not the snapshot
                ``row`` follows (the index is behind its line).
        """
        followed = self.read_line()
        assert followed is not None, "a snapshot after the baseline has a baseline"
        ref = line_ref(followed)
        # A work tree whose checkout is an earlier snapshot forks there (.pinning).
        mark = self.marks.get(PIN) or self.marks.get(ref)
        at = None if mark is None else read_snapshot(self.repo, mark, ref=ref).record.row
        if mark is None or at is None or at.id != row.parent_id:
            raise LineMovedError(ref, row.number, row.parent_id or "", at.id if at else None)
        return mark

    # -- the rest of the protocol ------------------------------------------------------

    def refresh(self) -> bool:
        """Whether the index changed, brought up to the followed line's ref (writer lock held).

        Raises:
            DamagedLineError: If the line is damaged or crafted.
            LineMovedError: If the ref no longer holds the index's snapshots.
        """
        from snapline.store.refs.catchup import catch_up

        return catch_up(self) > 0

    def stale(self) -> bool:
        """Whether the followed line's refs, a forget's, or a fork's line, moved from the marks.

        A forget fetched without its rewritten lines (``snapline fetch`` refuses them)
        too; or a forget's cleanup of the index still to run (a process killed first).
        """
        from snapline.store.ledger.tables import ForgetCleanup

        line = self.followed_line()
        if line is None:
            return False
        refs = {ref: self.repo.ref(ref) for ref in (line_ref(line), milestones_ref(line))}
        moved = self.marks.differ(refs) or self.marks.differ(forget_tips(self.repo))
        # A line it forked from moved: rewritten under the fork, maybe (.forkmarks).
        return moved or forks_moved(self, line) or ForgetCleanup(self.index.connection).pending()


if TYPE_CHECKING:

    def _is_a_store(store: RefsStore) -> Store:
        return store
