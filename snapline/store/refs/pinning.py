"""Which line a work tree without a line of its own follows, and the snapshot its checkout is.

A clone (after ``snapline fetch``) or a new linked work tree has no line until its first
write (:mod:`snapline.store.refs.followed`). When its index is built, the line it follows
is the one whose snapshot its checkout is: the latest snapshot of any line whose state is
``HEAD``'s files in scope, a line whose tip it is first (the main line before the
others). A clone of an agent's branch thus follows that agent's line (through the lines
it forked from), not the main line, whose later snapshots would show as drift. A checkout
that no snapshot is (CI's merge of parallel lines) follows the main line, as before.

When that snapshot is behind its line's tip (a ``git worktree add`` of ``HEAD~2``, a
clone of a commit made before the agent's later snapshots, or of the baseline's commit
whose agent work was never committed):

- a linked work tree *pins* there (the key ``PIN`` of the index's marks): its index holds
  the line up to it, and its first write forks its line there;
- a clone holds the whole line (``log``, ``show N`` read every snapshot) and marks the
  snapshot (:data:`BEHIND`): ``status`` and ``verify`` hold its files to that snapshot
  (``snapshots/check/explained.py``) while this work tree only reads, and a write is
  refused (``RefsStore``): it would fork the line silently.

A pin no longer on the line (a forget rewrote it) is dropped.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from snapline.errors import SnaplineError
from snapline.store.refs.catalog import changed_paths
from snapline.store.refs.followed import read_followed
from snapline.store.refs.marks import BEHIND, PIN
from snapline.store.refs.reading import DamagedLineError, LineSnapshot, list_lines, read_line

if TYPE_CHECKING:
    from snapline.store.refs.git import GitRepository
    from snapline.store.refs.store import RefsStore

__all__ = [
    "CheckoutBehindError",
    "Place",
    "behind_mark",
    "checkout_at",
    "checkout_place",
    "pinned",
    "refuse_behind",
]


class CheckoutBehindError(SnaplineError):
    """A first write in a checkout of a snapshot behind its line's latest: refused.

    Recording on top of it would start a second line from an older snapshot silently
    (or claim the latest snapshot's files as its base); nothing was written.

    Attributes:
        number: The snapshot the checkout is.
        latest: The line's latest snapshot.
    """

    number: int
    latest: int

    def _message(self) -> str:
        return (
            f"this checkout is snapshot {self.number}, behind its line's latest snapshot "
            f"{self.latest}: a record here would fork the line, so nothing was recorded; "
            f"record on the line's latest (check out the commit of snapshot {self.latest}), "
            "or in a work tree of its own (`git worktree add DIR HEAD`), whose first "
            f"record starts a line from snapshot {self.number}"
        )


@dataclass(frozen=True, slots=True)
class Place:
    """Where a checkout is on the refs.

    Attributes:
        line: The line to follow.
        snapshots: Its followed history (the lines it forked from up to each fork, then
            its own), numbered from the baseline.
        at: The snapshot the checkout is, when it is not the line's tip, else ``None``.
        tip: The snapshot the checkout is when it is the line's tip, else ``None``: a
            linked work tree pins there too, so that the snapshots other work trees
            record on that line later stay out of its index.
    """

    line: str
    snapshots: list[LineSnapshot]
    at: LineSnapshot | None
    tip: LineSnapshot | None = None


def behind_mark(at: LineSnapshot | None, head_tree: str) -> str:
    """The value of the ``BEHIND`` mark: ``<number> <commit> <HEAD's tree>``.

    ``- -`` for the number and commit when the checkout is not behind its line's tip. The
    tree says which checkout it was found for: after another ``git checkout`` it is
    asked again.
    """
    where = "- -" if at is None else f"{at.record.row.number} {at.commit}"
    return f"{where} {head_tree}"


def _behind(store: RefsStore) -> tuple[bool, int | None]:
    """Whether the ``BEHIND`` mark is of HEAD's tree now, and the snapshot it names."""
    mark = store.marks.get(BEHIND)
    if mark is None:
        return False, None
    number, _, head = mark.split(" ")
    if head != store.repo.head_tree():
        return False, None
    return True, None if number == "-" else int(number)


def checkout_at(store: RefsStore) -> int | None:
    """The snapshot a clone's checkout is, behind its line's latest; else ``None``.

    Only while ``HEAD``'s tree is the one it was found for when the index was built and
    the work tree has no line of its own: ``status`` and ``verify`` then hold its files
    to that snapshot (``snapshots/check/explained.py``).
    """
    if store.own_line() is not None:
        return None
    number = _behind(store)[1]
    latest = store.index.snapshots.latest_number()
    return None if number is None or latest is None or number >= latest else number


def refuse_behind(store: RefsStore, pending: int) -> None:
    """Refuse a first write whose checkout is a snapshot behind its line's latest.

    A linked work tree pinned there forks its line there instead. ``HEAD`` moved since
    the index was built (or it was built before this was marked): asked again, reading
    the followed line once, with ``HEAD``'s tree as it is (the store has no root for
    the ignore rules).

    Args:
        store: The store, inside the write's index transaction.
        pending: How many snapshots the write inserted.

    Raises:
        CheckoutBehindError: If it is.
    """
    if store.marks.get(PIN) is not None:
        return
    latest = (store.index.snapshots.latest_number() or 0) - pending
    known, number = _behind(store)
    if not known:
        line, head = store.read_line(), store.repo.head_tree()
        followed = [] if line is None or head is None else read_followed(store.repo, line)
        if followed and followed[-1].state != head:
            at = next((s for s in reversed(followed) if s.state == head), None)
            number = None if at is None else at.record.row.number
    if number is not None and number < latest:
        raise CheckoutBehindError(number, latest)


def checkout_place(repo: GitRepository, root: Path) -> Place | None:
    """The line an index built afresh follows, and where on it the checkout is.

    Every line is read once (as finding the main line always read them). ``HEAD``'s tree
    is compared as it is first, and scoped by the workspace's ignore rules only when no
    state is it (committed files the rules leave out).

    Args:
        repo: The repository holding the work tree.
        root: The work tree's root (its ignore rules scope HEAD's tree).

    Returns:
        The place; ``None`` when no line, or more than one, starts with a baseline.

    Raises:
        DamagedLineError: If a line is damaged or crafted.
    """
    lines = {line: read_line(repo, line) for line in sorted(list_lines(repo))}
    mains = [line for line, snapshots in lines.items() if _starts(snapshots)]
    if len(mains) != 1:
        return None
    main = mains[0]
    order = [main, *(line for line in lines if line != main)]
    head = repo.head_tree()
    found = None if head is None else _match(lines, order, head)
    if found is None and head is not None:
        from snapline.store.refs.disk import scoped_tree

        tracked = {p for s in lines.values() for snapshot in s for p in changed_paths(snapshot)}
        scoped = scoped_tree(repo, head, root, tracked).tree
        found = None if scoped == head else _match(lines, order, scoped)
    if found is None:
        return Place(main, lines[main], None)
    line, at = found
    followed = lines[line] if line == main else read_followed(repo, line)
    if at.commit == followed[-1].commit:
        return Place(line, followed, None, at)
    return Place(line, followed, at)


def _starts(snapshots: list[LineSnapshot]) -> bool:
    return bool(snapshots) and snapshots[0].record.row.number == 0


def _match(
    lines: dict[str, list[LineSnapshot]], order: list[str], tree: str
) -> tuple[str, LineSnapshot] | None:
    """The line whose tip's state is ``tree``, else the latest snapshot's that is (in order)."""
    for line in order:
        if lines[line] and lines[line][-1].state == tree:
            return line, lines[line][-1]
    for line in order:
        at = next((s for s in reversed(lines[line]) if s.state == tree), None)
        if at is not None:
            return line, at
    return None


def pinned(store: RefsStore, pin: str, missing: list[LineSnapshot]) -> list[LineSnapshot] | None:
    """What a pinned index takes of ``missing``: up to the pin; ``None`` to drop the pin.

    The pin is the last snapshot taken, when any (its commit is the pin's from then on).

    Args:
        store: The store, inside its index transaction.
        pin: The pin's commit.
        missing: The snapshots the line has past the index's latest, oldest first.
    """
    from snapline.store.refs.reading import read_snapshot

    cut = next((i for i, s in enumerate(missing) if s.commit == pin), None)
    if cut is not None:
        return missing[: cut + 1]
    latest = store.index.snapshots.latest_number()
    held = None if latest is None else store.index.snapshots.get(latest)
    try:
        at = read_snapshot(store.repo, pin).record.row
    except DamagedLineError:
        return None  # gone (a forget rewrote the line, then git gc): follow the tip
    # A line rewritten (a forget) holds the pin's snapshot at another commit: the index,
    # rebuilt, stops there still, as one built afresh at this checkout does.
    cut = next((i for i, s in enumerate(missing) if s.record.row.id == at.id), None)
    if cut is not None:
        return missing[: cut + 1]
    if held is not None and held.id == at.id and held.number == at.number:
        return []  # the index is at the pin: the line's later snapshots stay out
    return None
