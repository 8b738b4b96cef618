"""Catching the index up with the main line's ref: the snapshots the ref has and it lacks.

The ref is the history; the index is a cache of it. A writer killed after its ref moved
and before its index transaction committed leaves the ref one snapshot ahead, and an
empty index (a fresh clone, a deleted cache) has none: both are filled here from the
line as :func:`~snapline.store.refs.reading.read_line` reads and checks it, the whole
versions' content taken from each state through
:func:`~snapline.store.refs.reading.read_version` (hash-checked).

The index keeps a mark per ref (:mod:`snapline.store.refs.marks`): only what follows
it is read. The line followed is the work tree's own (``RefsStore.followed_line``), with
the lines it forked from up to each fork (:mod:`snapline.store.refs.followed`), else the
main line (the one whose first snapshot is a baseline); others' lines are not joined.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from snapline.content import pack
from snapline.store.ledger.tables import ForgetCleanup
from snapline.store.refs.followed import followed_milestones, read_followed
from snapline.store.refs.layout import FORGETS, line_ref, milestones_ref
from snapline.store.refs.marks import PIN
from snapline.store.refs.reading import (
    LineRewrittenError,
    LineSnapshot,
    list_lines,
    read_line,
    read_milestones,
    read_version,
)
from snapline.store.rows import StateRow

if TYPE_CHECKING:
    from snapline.store.refs.store import RefsStore

__all__ = ["catch_up", "find_main_line"]


def find_main_line(store: RefsStore) -> str | None:
    """The main line's id: the index's baseline's, else the one line that starts with one.

    ``None`` when the index is empty and no line, or more than one, starts with a baseline.

    Raises:
        DamagedLineError: If a line read to choose is damaged or crafted.
    """
    known = store.main_line()
    if known is not None:
        return known
    found = [line for line in sorted(list_lines(store.repo)) if _starts_a_history(store, line)]
    return found[0] if len(found) == 1 else None


def _starts_a_history(store: RefsStore, line: str) -> bool:
    snapshots = read_line(store.repo, line)
    return bool(snapshots) and snapshots[0].record.row.number == 0


def catch_up(store: RefsStore, checkout: Path | None = None) -> int:
    """Add to the index the main line's snapshots and milestones it lacks; how many.

    Each snapshot comes with its changes, the content of its whole versions (as blobs)
    and its effect on the known state, then the line's milestones the index lacks, and
    the marks of both refs, in one index transaction that publishes nothing. With a
    mark only what follows it is read; a line rewritten past it is read whole. A work
    tree without a line of its own stops at its pin (:mod:`.pinning`).

    Args:
        store: The store.
        checkout: For an index built afresh: the work tree's root, whose checkout
            pins it to the snapshot it is (``None``: a catch-up, the pin kept).

    Raises:
        DamagedLineError: If the line is damaged or crafted.
        LineMovedError: If the index holds a snapshot the line does not (the line was
            rewritten, or the index belongs to another history).
    """
    line = store.followed_line() or find_main_line(store)
    if line is None:
        return 0
    own = store.own_line() is not None
    ref, milestones = line_ref(line), milestones_ref(line)
    forgets = None
    if store.repo.refs(FORGETS):
        # Only a repository with a forget loads their formats (record's hot path).
        from snapline.store.refs.forget_index import forgets_to_take_in

        forgets = forgets_to_take_in(store)
    with store.index.write():
        if forgets is not None:
            from snapline.store.refs.forget_index import take_in

            take_in(store, forgets)
        forgotten = store.index.forgotten_hashes()
        latest = store.index.snapshots.latest_number()
        missing, end = _line_after(store, line, -1 if latest is None else latest)
        last = _pin(store, own, checkout if latest is None else None, missing)
        if last is not None:
            missing = missing[: len(missing) - last]
        for snapshot in missing:
            _add(store, snapshot, forgotten)
        if end is not None:
            store.marks.put(ref, end)
        # The ref is read before its milestones: a mark never claims one not added.
        tip = store.repo.ref(milestones)
        latest_milestone = store.index.milestones.latest()
        after = 0 if latest_milestone is None else latest_milestone.number
        every = (
            followed_milestones(store.repo, line)
            if latest is None and missing and missing[0].record.row.id != line
            else read_milestones(store.repo, line)  # the forked-from lines' are in already
        )
        new = [m for m in every if m.row.number > after]
        if last is not None:
            # A pinned index takes the milestones up to its pin, no further.
            pin = store.index.snapshots.latest_number()
            new = [m for m in new if pin is not None and m.row.last <= pin]
        for milestone in new:
            store.index.milestones.insert(milestone.row)
        if tip is not None:
            store.marks.put(milestones, tip)
    if forgets is not None or ForgetCleanup(store.index.connection).pending():
        from snapline.store.refs.forget_index import secure

        secure(store)
    return len(missing) + len(new)


def _pin(
    store: RefsStore, own: bool, checkout: Path | None, missing: list[LineSnapshot]
) -> int | None:
    """How many of ``missing`` a pinned index leaves out (``None``: not pinned)."""
    if own:
        return None
    pin = store.marks.get(PIN)
    if checkout is None and pin is None:
        return None  # the common case: nothing more to load
    from snapline.store.refs.pinning import checkout_snapshot, pinned

    if checkout is not None:
        pin = checkout_snapshot(store, checkout, missing)
    if pin is None:
        return None
    taken = pinned(store, pin, missing)
    if taken is None:
        store.marks.drop(PIN)
        return None
    store.marks.put(PIN, pin)
    return len(missing) - len(taken)


def _line_after(store: RefsStore, line: str, have: int) -> tuple[list[LineSnapshot], str | None]:
    """The snapshots after the index's latest (``have``), and the commit the line ends at."""
    from snapline.store.refs.store import LineMovedError

    ref = line_ref(line)
    mark = store.marks.get(ref)
    if mark is not None and have >= 0:
        try:
            after = read_line(store.repo, line, after=mark)
        except LineRewrittenError:
            after = None  # a forget rewrote the line: read it whole
        if after is not None and (not after or after[0].record.row.number == have + 1):
            return after, after[-1].commit if after else mark
    whole = read_followed(store.repo, line)
    if have >= 0:
        mine = store.index.snapshots.get(have)
        theirs = whole[have].record.row if have < len(whole) else None
        if mine is None or theirs is None or theirs.id != mine.id:
            raise LineMovedError(ref, have, mine.id if mine else "", theirs.id if theirs else None)
    return whole[have + 1 :], whole[-1].commit if whole else None


def _add(store: RefsStore, snapshot: LineSnapshot, forgotten: set[str]) -> None:
    index = store.index
    record = snapshot.record
    index.snapshots.insert(record.row, record.changes)
    upserts: dict[str, StateRow] = {}
    deletes: set[str] = set()
    for change in record.changes:
        if change.old_path is not None:
            deletes.add(change.old_path)
        if change.result_hash is None:
            deletes.add(change.path)
            continue
        size = change.size or 0
        upserts[change.path] = StateRow(
            change.path, change.result_hash, change.result_mode or 0o100644, size, change.snapshot
        )
        whole = change.content
        if change.storage == "delta" and change.base_hash in forgotten:
            # Built on a forgotten version: kept whole from the state, so it rebuilds.
            whole = change.result_hash
        if whole is None or whole in forgotten or index.blobs.has(whole):
            continue  # a forgotten version's state holds its tombstone blob
        data = read_version(store.repo, snapshot, change.path, whole)
        index.blobs.put(whole, len(data), pack(data))
    index.state.set(upserts.values(), deletes - set(upserts))
