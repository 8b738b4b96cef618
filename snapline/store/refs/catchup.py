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
line its checkout was a snapshot of when the index was built (:mod:`.pinning`), else the
main line (the one whose first snapshot is a baseline); others' lines are not joined.
"""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path
from typing import TYPE_CHECKING

from snapline.content import git_reference
from snapline.store.ledger.tables import ForgetCleanup
from snapline.store.refs.followed import followed_milestones, read_followed
from snapline.store.refs.forkmarks import forks_rewritten, mark_forks
from snapline.store.refs.git import MissingObjectError
from snapline.store.refs.layout import FORGETS, line_ref, milestones_ref
from snapline.store.refs.marks import BEHIND, FOLLOWED, PIN
from snapline.store.refs.reading import (
    DamagedLineError,
    LineRewrittenError,
    LineSnapshot,
    list_lines,
    read_line,
    read_milestones,
)
from snapline.store.refs.tombstones import named_in, take_named
from snapline.store.refs.values import TREE_MODE
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
    return known if known is not None else _read_main_line(store)[0]


def _read_main_line(store: RefsStore) -> tuple[str | None, list[LineSnapshot]]:
    """The one line that starts with a baseline, and its snapshots as read to find it."""
    found = []
    for line in sorted(list_lines(store.repo)):
        snapshots = read_line(store.repo, line)
        if snapshots and snapshots[0].record.row.number == 0:
            found.append((line, snapshots))
    return found[0] if len(found) == 1 else (None, [])


def catch_up(store: RefsStore, checkout: Path | None = None) -> int:
    """Add to the index the main line's snapshots and milestones it lacks; how many.

    Each snapshot comes with its changes, the content of its whole versions (as blobs)
    and its effect on the known state, then the line's milestones the index lacks, and
    the marks of both refs, in one index transaction that publishes nothing. With a
    mark only what follows it is read; a line (or its milestones) rewritten past it
    rebuilds the index from the refs, as a forget taken in does. A work tree without a
    line of its own stops at its pin (:mod:`.pinning`).

    Args:
        store: The store.
        checkout: For an index built afresh: the work tree's root, whose checkout
            pins it to the snapshot it is (``None``: a catch-up, the pin kept).

    Raises:
        DamagedLineError: If the line is damaged or crafted.
        LineMovedError: If the index holds a snapshot the line does not (the line was
            rewritten, or the index belongs to another history).
    """
    if checkout is None and store.own_line() is not None and not store.stale():
        # A writer on its own line whose refs are its marks (each record's case): the
        # reads below and their index transaction would find nothing (row R8).
        return 0
    line = store.followed_line()
    read: list[LineSnapshot] | None = None
    at: LineSnapshot | None = None
    pin_at: LineSnapshot | None = None
    if line is None and checkout is not None:
        # An index built afresh follows the line its checkout is a snapshot of (.pinning).
        from snapline.store.refs.pinning import checkout_place

        place = checkout_place(store.repo, checkout)
        if place is not None:
            line, read, at = place.line, place.snapshots, place.at
            pin_at = place.at or place.tip  # a linked work tree pins at its tip too
    elif line is None:
        # An empty index: the main line is read once, to find it and to fill the index.
        line, read = _read_main_line(store)
    if line is None:
        return 0
    own = store.own_line() is not None
    ref, milestones = line_ref(line), milestones_ref(line)
    following, rewritten = _after_mark(store, line)
    rewritten = (
        rewritten or _milestones_rewritten(store, milestones) or forks_rewritten(store, line)
    )
    forgets = None
    if rewritten or store.repo.refs(FORGETS):
        # Only a repository with a forget loads their formats (record's hot path).
        from snapline.store.refs.forget_index import forgets_to_take_in

        # A line rewritten under the index (a forget made elsewhere, its record here
        # or not yet): the index is rebuilt as from nothing, every forget applied again.
        forgets = forgets_to_take_in(store, every=rewritten)
    with store.index.write():
        if forgets is not None:
            from snapline.store.refs.forget_index import take_in

            take_in(store, forgets)
            following = None
        forgotten = store.index.forgotten_hashes()
        latest = store.index.snapshots.latest_number()
        have = -1 if latest is None else latest
        missing, end = _line_after(store, line, have, read, following)
        if latest is None and checkout is not None and not own:
            _place(store, line, at)
        last = _pin(store, own, pin_at if latest is None else None, missing)
        if last is not None:
            missing = missing[: len(missing) - last]
        upserts: dict[str, StateRow] = {}
        deletes: set[str] = set()
        for snapshot in missing:
            # The known state changed once for all of them: two statements a snapshot
            # were most of the index's statements when a fresh clone read its line.
            added, gone = _add(store, snapshot, forgotten)
            for path in gone:
                upserts.pop(path, None)
            deletes |= gone
            deletes -= added.keys()
            upserts.update(added)
        if upserts or deletes:
            store.index.state.set(upserts.values(), deletes)
        if end is not None:
            store.marks.put(ref, end)
        mark_forks(store, line, fresh=latest is None)
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


def _place(store: RefsStore, line: str, at: LineSnapshot | None) -> None:
    """Mark the line an index built afresh follows, and a clone's checkout behind its tip."""
    from snapline.store.refs.pinning import behind_mark

    store.marks.put(FOLLOWED, line)
    head = store.repo.head_tree()
    if head is not None:
        # A clone reads the whole line; status and verify hold it to its checkout. A
        # linked work tree pinned (below): its index ends there; so does one that
        # wrote and switched branches (.switching).
        clone = store.repo.git_dir == store.repo.common_dir and not store.wrote_here()
        store.marks.put(BEHIND, behind_mark(at if clone else None, head))


def _pin(
    store: RefsStore, own: bool, at: LineSnapshot | None, missing: list[LineSnapshot]
) -> int | None:
    """How many of ``missing`` a pinned index leaves out (``None``: not pinned).

    ``at``: for an index built afresh, the snapshot its checkout is (behind the tip or
    at it); a linked work tree pins there, and so does a clone that wrote (a branch
    switch, :mod:`.switching`); one that never did reads the whole line (:func:`_place`).
    """
    if own:
        return None
    pin = store.marks.get(PIN)
    if at is None and pin is None:
        return None  # the common case: nothing more to load
    from snapline.store.refs.pinning import pinned

    if at is not None:
        if store.repo.git_dir == store.repo.common_dir and not store.wrote_here():
            return None
        pin = at.commit
    if pin is None:
        return None
    taken = pinned(store, pin, missing)
    if taken is None:
        store.marks.drop(PIN)
        return None
    store.marks.put(PIN, taken[-1].commit if taken else pin)
    return len(missing) - len(taken)


def _after_mark(store: RefsStore, line: str) -> tuple[list[LineSnapshot] | None, bool]:
    """The line's snapshots after the index's mark of it, and whether it was rewritten.

    ``(None, False)`` when the index holds none of it. A line whose mark is no longer on
    it (``LineRewrittenError``) but whose snapshots are the index's, by id, was rewritten
    under the index: by a forget here or elsewhere (its record fetched with it, before it
    or not yet), or by anyone who rewrote its commits. The index's rows were read from
    the old commits (the changes, the whole versions' blobs, the known state), so only
    a rebuild from the refs answers as a rebuild does: ``True``.

    Raises:
        DamagedLineError: If the line is damaged or crafted.
        LineMovedError: If the rewritten line does not hold the index's snapshots (it
            lost some, or is another history): the index is left as it is.
    """
    from snapline.store.refs.store import LineMovedError

    ref = line_ref(line)
    mark = store.marks.get(ref)
    have = store.index.snapshots.latest_number()
    if mark is None or have is None:
        return None, False
    try:
        return read_line(store.repo, line, after=mark), False
    except LineRewrittenError:
        pass
    whole = read_followed(store.repo, line)
    mine = store.index.snapshots.get(have)
    theirs = whole[have].record.row if have < len(whole) else None
    if mine is None or theirs is None or theirs.id != mine.id:
        raise LineMovedError(ref, have, mine.id if mine else "", theirs.id if theirs else None)
    return None, True


def _milestones_rewritten(store: RefsStore, ref: str) -> bool:
    """Whether the milestones ref no longer holds its mark (it was rewound or rewritten).

    Milestones are added to the index by number, after its latest: one the index holds
    and the ref no longer does (or holds otherwise) would stay.
    """
    repo = store.repo
    mark = store.marks.get(ref)
    commit = repo.ref(ref)
    while mark is not None and commit is not None and commit != mark:
        try:
            parents = repo.read_commit(commit).parents
        except MissingObjectError:
            return True  # the rebuild's reading names the damage
        commit = parents[0] if parents else None
    return mark is not None and commit != mark


def _line_after(
    store: RefsStore,
    line: str,
    have: int,
    read: list[LineSnapshot] | None,
    after: list[LineSnapshot] | None,
) -> tuple[list[LineSnapshot], str | None]:
    """The snapshots after the index's latest (``have``), and the commit the line ends at.

    ``read``: the line, read whole already (a main line starts with its baseline, so it
    is all that is followed), or ``None``. ``after``: what follows the index's mark on
    the line (:func:`_after_mark`), or ``None``.
    """
    from snapline.store.refs.store import LineMovedError

    ref = line_ref(line)
    mark = store.marks.get(ref)
    if after is not None and have >= 0 and (not after or after[0].record.row.number == have + 1):
        return after, after[-1].commit if after else mark
    whole = read if read is not None and have < 0 else read_followed(store.repo, line)
    if have >= 0:
        mine = store.index.snapshots.get(have)
        theirs = whole[have].record.row if have < len(whole) else None
        if mine is None or theirs is None or theirs.id != mine.id:
            raise LineMovedError(ref, have, mine.id if mine else "", theirs.id if theirs else None)
    return whole[have + 1 :], whole[-1].commit if whole else None


def _add(
    store: RefsStore, snapshot: LineSnapshot, forgotten: set[str]
) -> tuple[dict[str, StateRow], set[str]]:
    """Insert one snapshot, its changes and its whole versions' blobs into the index.

    Returns:
        Its effect on the known state, for the caller to apply: the rows it sets, and
        the paths it no longer tracks (none of them set).
    """
    index = store.index
    record = snapshot.record
    index.snapshots.insert(record.row, record.changes)
    named = named_in(record.changes)
    if not {hash_ for _, hash_ in named} <= forgotten:
        # Lines fetched without their forget's record: its tombstones say what it forgot.
        forgotten |= take_named(index.connection, index.blobs, record.row.number, named)
    upserts: dict[str, StateRow] = {}
    deletes: set[str] = set()
    wholes: dict[str, str] = {}
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
        if whole is None or whole in forgotten:
            continue  # a forgotten version's state holds its tombstone blob
        wholes[change.path] = whole
    if wholes:
        # Kept by reference to the state's blob: git holds the content once, and it is
        # read (and hashed) only when used, or by `verify --full` (SideBlobs).
        blobs = _blob_ids(store, snapshot, wholes)
        sizes = {change.path: change.size or 0 for change in record.changes}
        index.blobs.put_many(
            [(whole, sizes[path], git_reference(blobs[path])) for path, whole in wholes.items()]
        )
    return upserts, deletes - upserts.keys()


_WALK_ABOVE = 64
"""Above this many whole versions in one snapshot, its state is listed once (a baseline)
rather than looked up path by path."""


def _blob_ids(store: RefsStore, snapshot: LineSnapshot, paths: Collection[str]) -> dict[str, str]:
    """The id of the blob each of ``paths`` has in the snapshot's state.

    Raises:
        DamagedLineError: If the state holds no file at one of them.
    """
    repo = store.repo
    try:
        if len(paths) > _WALK_ABOVE:
            listed = repo.files(snapshot.state)
            found = {path: listed.get(path) for path in paths}
        else:
            found = {path: repo.entry(snapshot.state, path) for path in paths}
    except MissingObjectError as error:
        raise DamagedLineError("", snapshot.commit, f"its state: {error}") from None
    ids = {}
    for path, entry in found.items():
        if entry is None or entry.mode == TREE_MODE:
            raise DamagedLineError("", snapshot.commit, f"its state's {path!r:.80} is missing")
        ids[path] = entry.id
    return ids
