"""Where a linked work tree without a line of its own stands: the snapshot its checkout is.

A new linked work tree (``git worktree add``) has no line until its first write
(:mod:`snapline.store.refs.followed`); its index follows the main line. When its
checkout is an older commit than the main line's latest snapshot (a work tree added at
``HEAD~2``), its files are what an earlier snapshot recorded, and following the main
line's tip would show every later change as an outside edit. So the index built for
such a work tree stops at the latest snapshot of the main line whose state is the
checkout's commit in scope (its *pin*, kept in the index's ``meta`` table beside the
marks), and its first write forks its line there. A checkout that no snapshot explains,
or that is the tip's, follows the tip as before; a pin no longer on the line (a forget
rewrote it) is dropped. A clone reads the history it fetched whole: its ``log`` is the
team's, as a fresh clone's was.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from snapline.store.refs.catalog import changed_paths
from snapline.store.refs.reading import DamagedLineError, LineSnapshot, read_snapshot

if TYPE_CHECKING:
    from snapline.store.refs.store import RefsStore

__all__ = ["checkout_snapshot", "pinned"]


def checkout_snapshot(store: RefsStore, root: Path, line: list[LineSnapshot]) -> str | None:
    """The commit of the latest snapshot of ``line`` whose state is HEAD's files in scope.

    ``None`` when that is the line's last snapshot, or none is (follow the tip).

    Args:
        store: The store (its repository holds the work tree).
        root: The work tree's root (its ignore rules scope HEAD's tree).
        line: The main line's snapshots, oldest first.
    """
    from snapline.store.refs.disk import scoped_tree

    if store.repo.git_dir == store.repo.common_dir:
        return None  # a clone reads the history it fetched whole (a linked work tree only)
    head = store.repo.head_tree()
    if head is None or len(line) < 2:
        return None
    tracked = set().union(*(changed_paths(snapshot) for snapshot in line))
    tree = scoped_tree(store.repo, head, root, tracked).tree
    if line[-1].state == tree:
        return None
    return next((s.commit for s in reversed(line) if s.state == tree), None)


def pinned(store: RefsStore, pin: str, missing: list[LineSnapshot]) -> list[LineSnapshot] | None:
    """What a pinned index takes of ``missing``: up to the pin; ``None`` to drop the pin.

    Args:
        store: The store, inside its index transaction.
        pin: The pin's commit.
        missing: The snapshots the line has past the index's latest, oldest first.
    """
    cut = next((i for i, s in enumerate(missing) if s.commit == pin), None)
    if cut is not None:
        return missing[: cut + 1]
    latest = store.index.snapshots.latest_number()
    held = None if latest is None else store.index.snapshots.get(latest)
    try:
        at = read_snapshot(store.repo, pin).record.row
    except DamagedLineError:
        return None  # gone (a forget rewrote the line, then git gc): follow the tip
    if held is not None and held.id == at.id and held.number == at.number:
        return []  # the index is at the pin: the line's later snapshots stay out
    return None
